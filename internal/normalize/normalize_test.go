package normalize_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/internal/coverage"
	"github.com/memidx/memidx/internal/lineage"
	"github.com/memidx/memidx/internal/normalize"
	"github.com/memidx/memidx/internal/session"
)

const header = `{"type":"session","version":3,"id":"s1","timestamp":"2026-09-01T10:00:00.000Z","cwd":"/p"}` + "\n"

// entries normalizes a session made of header + lines on its active branch.
func entries(t *testing.T, opt normalize.Options, lines ...string) *normalize.Result {
	t.Helper()
	f := session.Parse("mem.jsonl", []byte(header+strings.Join(lines, "\n")+"\n"))
	return normalize.Session(f, lineage.Select(f, lineage.Active, nil), opt)
}

func msg(id, parent, ts, message string) string {
	p := "null"
	if parent != "" {
		p = `"` + parent + `"`
	}
	return `{"type":"message","id":"` + id + `","parentId":` + p + `,"timestamp":"` + ts + `","message":` + message + `}`
}

func TestTextPerRole(t *testing.T) {
	ts := "2026-09-01T10:01:00.000Z"
	cases := []struct {
		name    string
		message string
		opt     normalize.Options
		text    string
		role    string
		tool    string
	}{
		{"user string", `{"role":"user","content":"hello there"}`, normalize.DefaultOptions(), "hello there", "user", ""},
		{"user parts", `{"role":"user","content":[{"type":"text","text":"a"},{"type":"image","data":"x"},{"type":"text","text":"b"}]}`, normalize.DefaultOptions(), "a\nb", "user", ""},
		{"assistant blocks", `{"role":"assistant","content":[{"type":"thinking","thinking":"secret"},{"type":"text","text":"Let me look."},{"type":"toolCall","id":"c1","name":"read","arguments":{"path":"a.go"}}]}`, normalize.DefaultOptions(), "Let me look.\nTool: read({\"path\":\"a.go\"})", "assistant", "read"},
		{"assistant thinking on", `{"role":"assistant","content":[{"type":"thinking","thinking":"secret"},{"type":"text","text":"x"}]}`, normalize.Options{IndexThinking: true}, "secret\nx", "assistant", ""},
		{"assistant error", `{"role":"assistant","content":[],"stopReason":"error","errorMessage":"overloaded"}`, normalize.DefaultOptions(), "Error: overloaded", "assistant", ""},
		{"tool result", `{"role":"toolResult","toolCallId":"c1","toolName":"read","content":[{"type":"text","text":"package a"}],"isError":false}`, normalize.DefaultOptions(), "toolResult(read): package a", "toolResult", "read"},
		{"tool result error", `{"role":"toolResult","toolCallId":"c1","toolName":"bash","content":[{"type":"text","text":"FAIL"}],"details":{"exitCode":1},"isError":true}`, normalize.DefaultOptions(), "toolResult(bash) [error]: FAIL", "toolResult", "bash"},
		{"tool result no output", `{"role":"toolResult","toolName":"read","content":[{"type":"text","text":"package a"}],"isError":false}`, normalize.Options{}, "toolResult(read)", "toolResult", "read"},
		{"bash execution", `{"role":"bashExecution","command":"go test","output":"ok","exitCode":0,"cancelled":false,"truncated":false}`, normalize.DefaultOptions(), "bash$ go test [exit 0]\nok", "bashExecution", "bash"},
		{"bash execution no output", `{"role":"bashExecution","command":"go test","output":"ok","exitCode":2}`, normalize.Options{}, "bash$ go test [exit 2]", "bashExecution", "bash"},
		{"custom", `{"role":"custom","customType":"hint","content":"lint first","display":true}`, normalize.DefaultOptions(), "[hint] lint first", "custom", ""},
		{"compaction summary", `{"role":"compactionSummary","summary":"did things"}`, normalize.DefaultOptions(), "compaction: did things", "compactionSummary", ""},
		{"branch summary prose not indexed", `{"role":"branchSummary","summary":"prose"}`, normalize.DefaultOptions(), "", "branchSummary", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := entries(t, c.opt, msg("e1", "", ts, c.message))
			require.Len(t, res.Entries, 1)
			e := res.Entries[0]
			assert.Equal(t, c.text, e.Text)
			assert.Equal(t, c.role, normalize.Get(e.Role))
			assert.Equal(t, c.tool, normalize.Get(e.Tool))
			assert.Equal(t, "e1", normalize.Get(e.EntryID))
			require.NotNil(t, e.Timestamp)
			assert.Equal(t, float64(1788256860000), *e.Timestamp)
		})
	}
}

func TestRecordTypes(t *testing.T) {
	res := entries(t, normalize.DefaultOptions(),
		`{"type":"model_change","id":"a","parentId":null,"timestamp":"2026-09-01T10:00:00Z","model":"x/y"}`,
		`{"type":"compaction","id":"b","parentId":"a","timestamp":"2026-09-01T10:00:01Z","summary":"short","firstKeptEntryId":"a","tokensBefore":5}`,
		`{"type":"custom_message","id":"c","parentId":"b","timestamp":"2026-09-01T10:00:02Z","customType":"skill","content":[{"type":"text","text":"body"}],"display":true}`,
		`{"type":"branch_summary","id":"d","parentId":"c","timestamp":"2026-09-01T10:00:03Z","fromId":"c","summary":"never indexed"}`,
		`{"type":"label","id":"e","parentId":"d","timestamp":"2026-09-01T10:00:04Z","targetId":"a","label":"x"}`,
		`{"type":"custom","id":"f","parentId":"e","timestamp":"2026-09-01T10:00:05Z","customType":"session_exit","data":{}}`,
	)
	var got []string
	for _, e := range res.Entries {
		got = append(got, e.Type+"|"+normalize.Get(e.Role)+"|"+e.Text)
	}
	assert.Equal(t, []string{
		"compaction|compaction|compaction: short",
		"custom_message|custom|[skill] body",
		"branch_summary|branchSummary|",
	}, got)
	for i, e := range res.Entries {
		assert.Equal(t, i, e.Index)
	}
	assert.True(t, res.Problems.Complete(), res.Problems.Reasons())
}

func TestNativeToolProvenance(t *testing.T) {
	ts := "2026-09-01T10:01:00.000Z"
	res := entries(t, normalize.DefaultOptions(),
		msg("a", "", ts, `{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"read","arguments":{"path":"a.go"}},{"type":"toolCall","id":"c2","name":"bash","arguments":{"command":"ls","cwd":"/x"}}]}`),
		msg("b", "a", ts, `{"role":"toolResult","toolCallId":"c1","toolName":"read","content":"ok","isError":false}`),
		msg("c", "b", ts, `{"role":"toolResult","toolCallId":"c2","toolName":"bash","content":"boom","details":{"exitCode":2}}`),
		msg("d", "c", ts, `{"role":"toolResult","toolCallId":"c3","toolName":"bash","content":"slow","details":{"timedOut":true}}`),
		msg("e", "d", ts, `{"role":"bashExecution","command":"make","output":"","exitCode":1}`),
		msg("f", "e", ts, `{"role":"bashExecution","command":"sleep 9","output":"","cancelled":true}`),
	)
	require.Len(t, res.Entries, 6)
	a := res.Entries[0]
	assert.Equal(t, "read", normalize.Get(a.Tool), "the hit's tool stays the first call's")
	assert.Equal(t, []string{"read", "bash"}, a.Tools)
	assert.Equal(t, "omp.read", normalize.Get(a.Ref))
	assert.Equal(t, []string{"a.go"}, a.FilesTouched)
	assert.Nil(t, a.Outcome)

	type want struct {
		ref, outcome string
		isError      bool
		files        []string
	}
	for i, w := range []want{
		{"omp.read", "succeeded", false, []string{"a.go"}},
		{"omp.bash", "failed", true, nil},
		{"omp.bash", "timed_out", true, nil},
		{"omp.bash", "failed", true, nil},
		{"omp.bash", "aborted", false, nil},
	} {
		e := res.Entries[i+1]
		assert.Equal(t, w.ref, normalize.Get(e.Ref), "entry %d", i+1)
		assert.Equal(t, "omp", normalize.Get(e.Provider))
		assert.Equal(t, w.outcome, normalize.Get(e.Outcome), "entry %d", i+1)
		assert.Equal(t, w.isError, e.IsError, "entry %d", i+1)
		assert.Equal(t, w.files, e.FilesTouched, "entry %d", i+1)
	}
}

func TestTruncationCountsScalars(t *testing.T) {
	long := strings.Repeat("é😀", 10) // 20 scalars
	res := entries(t, normalize.Options{MaxEntryChars: 5}, msg("a", "", "2026-01-01T00:00:00Z", `{"role":"user","content":"`+long+`"}`))
	require.Len(t, res.Entries, 1)
	assert.Equal(t, "é😀é😀é", res.Entries[0].Text)
	assert.True(t, res.Entries[0].Truncated)
	assert.True(t, res.Problems.Has(coverage.MaxEntryChars))

	res = entries(t, normalize.Options{MaxEntryChars: 20}, msg("a", "", "2026-01-01T00:00:00Z", `{"role":"user","content":"`+long+`"}`))
	assert.False(t, res.Entries[0].Truncated)
	assert.False(t, res.Problems.Has(coverage.MaxEntryChars))
}

func TestToolArgsSummaryIsBounded(t *testing.T) {
	arg := strings.Repeat("x", 1000)
	res := entries(t, normalize.DefaultOptions(), msg("a", "", "2026-01-01T00:00:00Z", `{"role":"assistant","content":[{"type":"toolCall","id":"c","name":"write","arguments":{"content":"`+arg+`"}}]}`))
	text := res.Entries[0].Text
	assert.True(t, strings.HasSuffix(text, "…)"))
	assert.Equal(t, len("Tool: write(")+normalize.MaxArgsChars+len("…)"), len(text))
}

func TestDuplicateEntryIDsAreReported(t *testing.T) {
	f := session.Parse("mem.jsonl", []byte(header+
		msg("a", "", "2026-01-01T00:00:00Z", `{"role":"user","content":"one"}`)+"\n"+
		msg("a", "", "2026-01-01T00:00:01Z", `{"role":"user","content":"two"}`)+"\n"))
	res := normalize.Session(f, lineage.Select(f, lineage.All, nil), normalize.DefaultOptions())
	require.Len(t, res.Entries, 2)
	assert.True(t, res.Problems.Has(coverage.DuplicateEntryID))
}

func TestActiveBranchOnly(t *testing.T) {
	ts := "2026-01-01T00:00:00Z"
	lines := []string{
		msg("a", "", ts, `{"role":"user","content":"root"}`),
		msg("b", "a", ts, `{"role":"assistant","content":[{"type":"text","text":"abandoned"}]}`),
		msg("c", "a", ts, `{"role":"assistant","content":[{"type":"text","text":"chosen"}]}`),
	}
	active := entries(t, normalize.DefaultOptions(), lines...)
	var texts []string
	for _, e := range active.Entries {
		texts = append(texts, e.Text)
	}
	assert.Equal(t, []string{"root", "chosen"}, texts)

	f := session.Parse("mem.jsonl", []byte(header+strings.Join(lines, "\n")+"\n"))
	all := normalize.Session(f, lineage.Select(f, lineage.All, nil), normalize.DefaultOptions())
	assert.Len(t, all.Entries, 3)
}

func TestEntryJSONShape(t *testing.T) {
	res := entries(t, normalize.DefaultOptions(), msg("a", "", "2026-01-01T00:00:00Z", `{"role":"user","content":"hi"}`))
	b, err := json.Marshal(res.Entries[0])
	require.NoError(t, err)
	assert.JSONEq(t, `{"index":0,"entryId":"a","parentId":null,"type":"message","role":"user","tool":null,"ref":null,"provider":null,"action":null,"outcome":null,"timestamp":1767225600000,"isError":false,"text":"hi","truncated":false}`, string(b))
}
