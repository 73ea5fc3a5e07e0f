package hotbm25

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/internal/normalize"
)

// A tool call whose display cuts its arguments: the rest is indexed
// (postings, length) and kept for verification, never in Text.
func TestArgsRestIsIndexedAndStored(t *testing.T) {
	text := `Tool: bash({"command":"cat <<EOF` + "…)"
	cut := normalize.ArgsCut{At: len(text) - len("…)"), Rest: ` zebraquokka line"})`}
	ents := []normalize.Entry{{Index: 0, Type: "message", Role: sp("assistant"), Tool: sp("bash"), Text: text, ArgsCuts: []normalize.ArgsCut{cut}}}
	b, err := Build(ents)
	require.NoError(t, err)
	s, err := Open(b.Dict, b.Cols, b.Ents, b.Entries)
	require.NoError(t, err)

	assert.Equal(t, 1, s.Postings("zebraquokka").Count())
	assert.Equal(t, 1, s.Postings("eof").Count(), "the display's last word before the cut")
	// tool bash command cat eof zebraquokka line
	assert.Equal(t, uint32(7), s.DocLen(0))
	assert.Equal(t, int64(7), b.SumLen)

	st, err := s.Entry(0)
	require.NoError(t, err)
	assert.Equal(t, text, st.Text, "recall shows the display form")
	assert.Equal(t, []normalize.ArgsCut{cut}, st.ArgsCuts)
	assert.Equal(t, `Tool: bash({"command":"cat <<EOF zebraquokka line"})…)`, st.IndexText())
}
