package coldvocab

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/internal/coverage"
	"github.com/memidx/memidx/internal/normalize"
)

// The vocabulary takes the rest of a tool call's arguments past the
// display cut, and a token that spans the cut whole.
func TestVocabularyHasTheArgsRest(t *testing.T) {
	text := `Tool: bash({"command":"echo zeb` + "…)"
	cut := normalize.ArgsCut{At: len(text) - len("…)"), Rest: `raquokka done"})`}
	ents := []normalize.Entry{{Index: 0, Type: "message", Role: sp("assistant"), Text: text, ArgsCuts: []normalize.ArgsCut{cut}}}
	blob, _, err := Build(Digest{}, ents, coverage.Set{}, roomy)
	require.NoError(t, err)
	v, err := Open(blob)
	require.NoError(t, err)
	for _, term := range []string{"echo", "zebraquokka", "done"} {
		assert.True(t, v.HasTerm(term), term)
	}
	assert.False(t, v.HasTerm("zeb"), "the display's partial word is not a term")
}
