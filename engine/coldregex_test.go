package engine_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/engine"
	"github.com/memidx/memidx/internal/coverage"
)

// A cold session is matched one vocabulary term at a time. A pattern that
// can span tokens is never a confident no there: the session its
// vocabulary cannot rule out is a candidate to follow, and coverage says
// so; following it finds the entry, as the hot tier does. A token-local
// pattern stays authoritative, and so does a vocabulary that lacks what
// the pattern needs inside a token.
func TestColdRegexAcrossTokens(t *testing.T) {
	for _, c := range []struct {
		pattern  string
		sessions int  // cold candidates
		complete bool // of the cold answer
	}{
		{`foo\.ts`, 1, false},
		{`src/foo`, 1, false},
		{`edit src`, 1, false},
		{`bar\.ts`, 0, true}, // no term holds "bar"
		{`^deploy$`, 1, true},
		{`time\w*`, 1, true},
		{`^nothing$`, 0, true},
	} {
		t.Run(c.pattern, func(t *testing.T) {
			w := newWorld(t)
			w.cfg.HotSessions = 1
			w.write("s-old",
				msgLine("u1", "", ts, user("edit src/foo.ts now")),
				msgLine("u2", "u1", ts, user("deploy")),
				msgLine("u3", "u2", ts, user("timeout again")),
			)
			w.write("s-new", msgLine("u1", "", ts, user("unrelated pelican work")))
			req := engine.RecallRequest{Query: c.pattern, QueryMode: engine.ModeRegex, Scope: "project"}

			p := recall(t, w.engine(), req)
			assert.Equal(t, c.sessions, p.Total)
			assert.Equal(t, c.complete, p.Coverage.Complete, p.Coverage.Reasons)
			if c.complete {
				assert.NotContains(t, p.Coverage.Reasons, coverage.ColdRegexRequiresHydration)
			} else {
				assert.Contains(t, p.Coverage.Reasons, coverage.ColdRegexRequiresHydration)
			}
			if c.sessions == 0 {
				return
			}
			require.Len(t, p.Hits, 1)
			sh := p.Hits[0].Session
			require.NotNil(t, sh, "the cold session is a candidate")
			assert.Equal(t, "cold", sh.Tier)
			r, err := w.engine().Call(ctx, sh.Follow)
			require.NoError(t, err)
			require.Nil(t, r.Recall.Error)
			require.Equal(t, 1, r.Recall.Total, "following it finds the entry")
			require.NotNil(t, r.Recall.Hits[0].Entry)

			// The same session hot finds the same entry, completely.
			w.cfg.HotSessions = 2
			hot := recall(t, w.engine(), req)
			require.Nil(t, hot.Error)
			require.Equal(t, 1, hot.Total)
			require.NotNil(t, hot.Hits[0].Entry)
			assert.Equal(t, r.Recall.Hits[0].Entry.Snippet, hot.Hits[0].Entry.Snippet)
			assert.True(t, hot.Coverage.Complete, hot.Coverage.Reasons)
		})
	}
}
