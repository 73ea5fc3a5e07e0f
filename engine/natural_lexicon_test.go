package engine_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/memidx/memidx/engine"
)

// Natural queries answer the same with the archive lexicon and without it
// (every digest opened): stems found through the lexicon's keys and through
// the vocabularies agree.
func TestNaturalLexiconEqualsDigests(t *testing.T) {
	e, m := lexiconWorld(t)
	var long []string
	for i, f := range m.Facts {
		if i < 80 {
			long = append(long, f.Term)
		}
	}
	reqs := []engine.RecallRequest{
		{Query: "how did the deploys time out", QueryMode: engine.ModeNatural, Scope: "global", PageSize: 20},
		{Query: "errors failing tests go db ci", QueryMode: engine.ModeNatural, Scope: "global", PageSize: 20},
		{Query: "0 1 2 timeouts", QueryMode: engine.ModeNatural, Scope: "global", PageSize: 3, Offset: 4},
		{Query: strings.Join(long, " "), QueryMode: engine.ModeNatural, Scope: "global", PageSize: 20},
		{Query: "error", QueryMode: engine.ModeNatural, Scope: "global", Tool: "bash"},
	}
	for _, req := range reqs {
		p := sameWithoutLexicon(t, e, req)
		if req.Tool == "" && req.Offset == 0 {
			assert.NotEmpty(t, p.Hits, req.Query)
		}
	}
}
