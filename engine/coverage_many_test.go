package engine_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/engine"
)

// A cold session holding every one of 70 query terms: its queryCoverage
// must be 1, in literal and natural mode.
func TestColdCoverageOver64Terms(t *testing.T) {
	var words []string
	for i := range 70 {
		words = append(words, fmt.Sprintf("k%d", 1000+i))
	}
	text := strings.Join(words, " ")
	for _, mode := range []engine.QueryMode{engine.ModeLiteral, engine.ModeNatural} {

		w := newWorld(t)
		w.cfg.HotSessions = 1
		w.write("s-cold", msgLine("u1", "", ts, user(text)))
		w.write("s-newer", msgLine("u1", "", ts, user("unrelated pelican work")))

		p := recall(t, w.engine(), engine.RecallRequest{Query: text, QueryMode: mode, Scope: "project"})
		require.Len(t, p.Hits, 1)
		sh := p.Hits[0].Session
		require.NotNil(t, sh)
		t.Logf("%s: matchedTerms %d coverage %v page %v weak %v", mode, sh.MatchedTerms, *sh.QueryCoverage, *p.QueryCoverage, p.WeakMatch)
		assert.Equal(t, 70, sh.MatchedTerms, mode)
		assert.Equal(t, 1.0, *sh.QueryCoverage, mode)
		assert.False(t, p.WeakMatch, mode)
	}
}
