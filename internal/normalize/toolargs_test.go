package normalize_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/internal/coverage"
	"github.com/memidx/memidx/internal/normalize"
)

// heredocArgs is the JSON of a bash call whose command is a heredoc with
// word at about scalar 1000 of the serialized arguments, as the session
// stores it and as JSON.stringify writes it back (nothing to escape but
// the newlines, written \n in both).
func heredocArgs(word string) string {
	filler := strings.Repeat("echo line of the script\\n", 40) // 1000 scalars
	return `{"command":"cat <<'EOF' > run.sh\n` + filler[:960] + word + ` and more\nEOF\n` + filler[:400] + `"}`
}

func bashCall(id, args string) string {
	return msg(id, "", "2026-01-01T00:00:00Z", `{"role":"assistant","content":[{"type":"text","text":"running it"},{"type":"toolCall","id":"c1","name":"bash","arguments":`+args+`}]}`)
}

func TestToolCallArgsDisplayIsCutAndTheRestIndexed(t *testing.T) {
	args := heredocArgs("zebraquokka")
	require.Greater(t, strings.Index(args, "zebraquokka"), 950)
	shown, _ := normalize.TruncateScalars(args, normalize.MaxArgsChars)

	res := entries(t, normalize.DefaultOptions(), bashCall("a", args))
	require.Len(t, res.Entries, 1)
	e := res.Entries[0]
	assert.Equal(t, "running it\nTool: bash("+shown+"…)", e.Text, "the reference's display form")
	assert.NotContains(t, e.Text, "zebraquokka")
	require.Len(t, e.ArgsCuts, 1)
	assert.Equal(t, args[len(shown):], e.ArgsCuts[0].Rest)
	assert.Equal(t, "…)", e.Text[e.ArgsCuts[0].At:])
	assert.Equal(t, "running it\nTool: bash("+args+"…)", e.IndexText(), "the whole arguments are indexed")
	assert.False(t, e.Truncated)
	assert.False(t, res.Problems.Has(coverage.MaxEntryChars))

	b, err := json.Marshal(e)
	require.NoError(t, err)
	assert.NotContains(t, string(b), "zebraquokka", "the rest is never shown")

	lossless := entries(t, normalize.Lossless(), bashCall("a", args)).Entries[0]
	assert.Equal(t, "running it\nTool: bash("+args+")", lossless.Text, "expansion shows the whole arguments")
	assert.Empty(t, lossless.ArgsCuts)
}

// Every cut call of a message keeps its rest at its own cut.
func TestToolCallArgsCutsOfSeveralCalls(t *testing.T) {
	a, b := heredocArgs("alphaword"), heredocArgs("betaword")
	line := msg("m", "", "2026-01-01T00:00:00Z", `{"role":"assistant","content":[`+
		`{"type":"toolCall","id":"c1","name":"bash","arguments":`+a+`},`+
		`{"type":"toolCall","id":"c2","name":"read","arguments":{"path":"x.go"}},`+
		`{"type":"toolCall","id":"c3","name":"bash","arguments":`+b+`}]}`)
	e := entries(t, normalize.Options{}, line).Entries[0]
	require.Len(t, e.ArgsCuts, 2)
	assert.Equal(t, "Tool: bash("+a+"…)\nTool: read({\"path\":\"x.go\"})\nTool: bash("+b+"…)", e.IndexText())
	assert.Equal(t, "Tool: bash("+a+")\nTool: read({\"path\":\"x.go\"})\nTool: bash("+b+")",
		entries(t, normalize.Lossless(), line).Entries[0].Text)
}

// MaxEntryChars bounds the text and the rests together, text first: the
// display is kept whole and the rests get what it leaves.
func TestBoundSharesTheBudgetWithTheArgsRest(t *testing.T) {
	args := heredocArgs("zebraquokka")
	res := entries(t, normalize.Options{MaxEntryChars: 600}, bashCall("a", args))
	e := res.Entries[0]
	shown, _ := normalize.TruncateScalars(args, normalize.MaxArgsChars)
	assert.Equal(t, "running it\nTool: bash("+shown+"…)", e.Text)
	require.Len(t, e.ArgsCuts, 1)
	assert.Equal(t, 600, normalize.CountScalars(e.Text)+normalize.CountScalars(e.ArgsCuts[0].Rest))
	assert.NotContains(t, e.IndexText(), "zebraquokka")
	assert.True(t, e.Truncated)
	assert.True(t, res.Problems.Has(coverage.MaxEntryChars), "a cut rest makes absence non-authoritative")

	// A budget the text alone fills leaves no rest.
	res = entries(t, normalize.Options{MaxEntryChars: 100}, bashCall("a", args))
	e = res.Entries[0]
	assert.Equal(t, 100, normalize.CountScalars(e.Text))
	assert.Empty(t, e.ArgsCuts)
	assert.True(t, e.Truncated)

	// A budget that holds everything cuts nothing.
	res = entries(t, normalize.Options{MaxEntryChars: 2000}, bashCall("a", args))
	assert.False(t, res.Entries[0].Truncated)
	assert.Contains(t, res.Entries[0].IndexText(), "zebraquokka")
}

// Cuts that do not fit the text (damaged stored data) are ignored, never a
// panic.
func TestIndexTextIgnoresCutsOutsideTheText(t *testing.T) {
	assert.Equal(t, "ab", normalize.IndexText("ab", []normalize.ArgsCut{{At: 5, Rest: "x"}}))
	assert.Equal(t, "aXbY", normalize.IndexText("ab", []normalize.ArgsCut{{At: 1, Rest: "X"}, {At: 2, Rest: "Y"}}))
	assert.Equal(t, "aXb", normalize.IndexText("ab", []normalize.ArgsCut{{At: 1, Rest: "X"}, {At: 0, Rest: "Y"}}))
}
