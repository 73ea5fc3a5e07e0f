package normalize_test

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/internal/coverage"
	"github.com/memidx/memidx/internal/jsjson"
	"github.com/memidx/memidx/internal/lineage"
	"github.com/memidx/memidx/internal/normalize"
	"github.com/memidx/memidx/internal/session"
)

const fabricTS = "2026-09-01T10:01:00.000Z"

// mustJSON encodes v (maps encode with sorted keys).
func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return string(b)
}

// fabricSession is a user turn, the fabric_exec call, its result "r1" with
// the given details JSON, and a closing assistant turn.
func fabricSession(details string) []string {
	return []string{
		msg("u1", "", fabricTS, `{"role":"user","content":"run the plan"}`),
		msg("a1", "u1", fabricTS, `{"role":"assistant","content":[{"type":"toolCall","id":"f1","name":"fabric_exec","arguments":{"code":"await omp.read({path:'src/a.go'})"}}]}`),
		msg("r1", "a1", fabricTS, `{"role":"toolResult","toolCallId":"f1","toolName":"fabric_exec","content":[{"type":"text","text":"program finished"}],"details":`+details+`,"isError":false}`),
		msg("a2", "r1", fabricTS, `{"role":"assistant","content":[{"type":"text","text":"all done"}]}`),
	}
}

func traceDetails(t *testing.T, trace any) string {
	return mustJSON(t, map[string]any{"success": true, "trace": trace, "audits": []any{}, "phases": []any{}})
}

func baseTrace() map[string]any {
	return map[string]any{
		"kind":    "omp-fabric.execution",
		"version": 1,
		"outcome": "failed",
		"phases":  []any{"plan", "run"},
		"operations": []any{
			map[string]any{"type": "call", "sequence": 0, "ref": "omp.read", "args": map[string]any{"path": "src/a.go", "offset": 10}, "outcome": "succeeded", "result": map[string]any{"text": "package a"}},
			map[string]any{"type": "call", "sequence": 2, "ref": "agents.run", "args": map[string]any{"id": "worker-7"}, "outcome": "failed", "failureStage": "invoke", "error": "agent crashed"},
			map[string]any{"type": "call", "sequence": 5, "ref": "mcp.github.search", "args": map[string]any{}, "outcome": "timed_out", "resultTruncated": true},
		},
		"counts": map[string]any{"droppedValues": 0, "truncatedValues": 1, "redactedValues": 0, "droppedOperations": 0},
		"error":  "one call failed",
	}
}

func ops(tr map[string]any) []any { return tr["operations"].([]any) }

func op(tr map[string]any, i int) map[string]any { return ops(tr)[i].(map[string]any) }

// children returns the entries of type typ.
func children(res *normalize.Result, typ string) []normalize.Entry {
	var out []normalize.Entry
	for _, e := range res.Entries {
		if e.Type == typ {
			out = append(out, e)
		}
	}
	return out
}

func TestExecutionTraceChildren(t *testing.T) {
	res := entries(t, normalize.DefaultOptions(), fabricSession(traceDetails(t, baseTrace()))...)
	require.Len(t, res.Entries, 7)
	var ids []string
	for i, e := range res.Entries {
		assert.Equal(t, i, e.Index, "dense indices")
		ids = append(ids, normalize.Get(e.EntryID))
	}
	assert.Equal(t, []string{"u1", "a1", "r1", "r1/0", "r1/2", "r1/5", "a2"}, ids, "children right after their carrier")
	assert.True(t, res.Problems.Complete(), res.Problems.Reasons())

	carrier := res.Entries[2]
	type want struct {
		tool, ref, provider, action, outcome string
		isError                              bool
		files                                []string
		text                                 string
	}
	for i, w := range []want{
		{"read", "omp.read", "omp", "read", "succeeded", false, []string{"src/a.go"}, "Fabric operation omp.read\n10 src/a.go\npackage a"},
		{"run", "agents.run", "agents", "run", "failed", true, nil, "Fabric operation agents.run\nworker-7\nagent crashed"},
		{"github.search", "mcp.github.search", "mcp", "github.search", "timed_out", true, nil, "Fabric operation mcp.github.search"},
	} {
		e := res.Entries[3+i]
		assert.Equal(t, "fabric_operation", e.Type)
		assert.Equal(t, normalize.RoleFabricOperation, normalize.Get(e.Role))
		assert.Equal(t, w.tool, normalize.Get(e.Tool), "op %d", i)
		assert.Equal(t, w.ref, normalize.Get(e.Ref), "op %d", i)
		assert.Equal(t, w.provider, normalize.Get(e.Provider), "op %d", i)
		assert.Equal(t, w.action, normalize.Get(e.Action), "op %d", i)
		assert.Equal(t, w.outcome, normalize.Get(e.Outcome), "op %d", i)
		assert.Equal(t, w.isError, e.IsError, "op %d", i)
		assert.Equal(t, w.files, e.FilesTouched, "op %d", i)
		assert.Equal(t, w.text, e.Text, "op %d", i)
		assert.Equal(t, e.EntryID, e.OperationAddress)
		assert.Equal(t, "a1", normalize.Get(e.ParentID), "parentId is the carrier's parentId")
		assert.Equal(t, "r1", normalize.Get(e.ParentEntryID))
		assert.Equal(t, carrier.Timestamp, e.Timestamp)
		assert.Equal(t, carrier.Record, e.Record)
		assert.Equal(t, carrier.Line, e.Line)
		assert.Nil(t, e.FactAddress)
		assert.False(t, e.BranchFact.Exists())
	}
	assert.JSONEq(t, `{"address":"r1/0","parentEntryId":"r1","sequence":0,"tool":"read","ref":"omp.read","provider":"omp","action":"read","args":{"offset":10,"path":"src/a.go"},"outcome":"succeeded","result":{"text":"package a"}}`,
		jsjson.Stringify(res.Entries[3].Operation))
	assert.JSONEq(t, `{"address":"r1/2","parentEntryId":"r1","sequence":2,"tool":"run","ref":"agents.run","provider":"agents","action":"run","args":{"id":"worker-7"},"outcome":"failed","error":"agent crashed"}`,
		jsjson.Stringify(res.Entries[4].Operation), "failureStage is not carried; no result means no resultOmitted")
	assert.JSONEq(t, `{"address":"r1/5","parentEntryId":"r1","sequence":5,"tool":"github.search","ref":"mcp.github.search","provider":"mcp","action":"github.search","args":{},"outcome":"timed_out"}`,
		jsjson.Stringify(res.Entries[5].Operation), "resultTruncated is not carried")
}

func TestExecutionTraceProviderAction(t *testing.T) {
	cases := []struct {
		name                        string
		fields                      map[string]any
		ref, tool, provider, action string
	}{
		{"split at first dot", nil, "mcp.github.search", "github.search", "mcp", "github.search"},
		{"fields win", map[string]any{"provider": "files", "action": "view"}, "omp.read", "view", "files", "view"},
		{"provider field only", map[string]any{"provider": "x"}, "omp.read", "read", "x", "read"},
		{"no dot", nil, "standalone", "standalone", "", ""},
		{"empty action half", nil, "omp.", "omp.", "omp", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := map[string]any{"type": "call", "sequence": 1, "ref": c.ref, "args": map[string]any{}, "outcome": "succeeded"}
			for k, v := range c.fields {
				o[k] = v
			}
			tr := baseTrace()
			tr["operations"] = []any{o}
			got := children(entries(t, normalize.DefaultOptions(), fabricSession(traceDetails(t, tr))...), "fabric_operation")
			require.Len(t, got, 1)
			assert.Equal(t, c.tool, normalize.Get(got[0].Tool))
			assert.Equal(t, c.provider, normalize.Get(got[0].Provider))
			assert.Equal(t, c.action, normalize.Get(got[0].Action))
		})
	}
}

// nestArgs returns k nested objects: nestArgs(1) is {}.
func nestArgs(k int) map[string]any {
	m := map[string]any{}
	for i := 1; i < k; i++ {
		m = map[string]any{"a": m}
	}
	return m
}

func TestExecutionTraceGuard(t *testing.T) {
	cases := []struct {
		name   string
		mutate func(tr map[string]any)
		valid  bool
	}{
		{"valid", func(map[string]any) {}, true},
		{"no error is fine", func(tr map[string]any) { delete(tr, "error") }, true},
		{"depth 14 passes", func(tr map[string]any) { op(tr, 0)["args"] = nestArgs(12) }, true},
		{"empty operations", func(tr map[string]any) { tr["operations"] = []any{} }, true},
		{"version 1.0", func(tr map[string]any) { tr["version"] = 1.0 }, true},
		{"extra top-level key", func(tr map[string]any) { tr["extra"] = 1 }, false},
		{"extra op key", func(tr map[string]any) { op(tr, 0)["note"] = "x" }, false},
		{"extra counts key", func(tr map[string]any) { tr["counts"].(map[string]any)["other"] = 0 }, false},
		{"op tool key is not a trace key", func(tr map[string]any) { op(tr, 0)["tool"] = "read" }, false},
		{"bad kind", func(tr map[string]any) { tr["kind"] = "omp-fabric.audit" }, false},
		{"bad version", func(tr map[string]any) { tr["version"] = 2 }, false},
		{"string version", func(tr map[string]any) { tr["version"] = "1" }, false},
		{"missing version", func(tr map[string]any) { delete(tr, "version") }, false},
		{"bad outcome", func(tr map[string]any) { tr["outcome"] = "ok" }, false},
		{"bad op outcome", func(tr map[string]any) { op(tr, 1)["outcome"] = "error" }, false},
		{"bad failure stage", func(tr map[string]any) { op(tr, 1)["failureStage"] = "run" }, false},
		{"equal sequence", func(tr map[string]any) { op(tr, 1)["sequence"] = 0 }, false},
		{"decreasing sequence", func(tr map[string]any) { op(tr, 2)["sequence"] = 1 }, false},
		{"negative sequence", func(tr map[string]any) { op(tr, 0)["sequence"] = -1 }, false},
		{"fractional sequence", func(tr map[string]any) { op(tr, 0)["sequence"] = 0.5 }, false},
		{"unsafe sequence", func(tr map[string]any) { op(tr, 2)["sequence"] = float64(1 << 53) }, false},
		{"string sequence", func(tr map[string]any) { op(tr, 0)["sequence"] = "0" }, false},
		{"missing count", func(tr map[string]any) { delete(tr["counts"].(map[string]any), "redactedValues") }, false},
		{"negative count", func(tr map[string]any) { tr["counts"].(map[string]any)["droppedValues"] = -1 }, false},
		{"fractional count", func(tr map[string]any) { tr["counts"].(map[string]any)["droppedValues"] = 1.5 }, false},
		{"phase not a string", func(tr map[string]any) { tr["phases"] = []any{"plan", 3} }, false},
		{"args not an object", func(tr map[string]any) { op(tr, 0)["args"] = []any{"src/a.go"} }, false},
		{"missing args", func(tr map[string]any) { delete(op(tr, 0), "args") }, false},
		{"type not call", func(tr map[string]any) { op(tr, 0)["type"] = "discovery" }, false},
		{"missing ref", func(tr map[string]any) { delete(op(tr, 0), "ref") }, false},
		{"empty ref", func(tr map[string]any) { op(tr, 0)["ref"] = "" }, false},
		{"provider not a string", func(tr map[string]any) { op(tr, 0)["provider"] = 1 }, false},
		{"resultTruncated not a bool", func(tr map[string]any) { op(tr, 2)["resultTruncated"] = "yes" }, false},
		{"op error not a string", func(tr map[string]any) { op(tr, 1)["error"] = map[string]any{"message": "x"} }, false},
		{"trace error not a string", func(tr map[string]any) { tr["error"] = 1 }, false},
		{"operations not an array", func(tr map[string]any) { tr["operations"] = map[string]any{} }, false},
		{"too deep", func(tr map[string]any) { op(tr, 0)["args"] = nestArgs(13) }, false},
		{"far too deep", func(tr map[string]any) { op(tr, 0)["args"] = nestArgs(2000) }, false},
		{"too large", func(tr map[string]any) { op(tr, 0)["args"] = map[string]any{"s": strings.Repeat("x", 520<<10)} }, false},
		{"huge array", func(tr map[string]any) {
			items := make([]any, 60_000)
			for i := range items {
				items[i] = 123456789
			}
			op(tr, 0)["result"] = items
		}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tr := baseTrace()
			c.mutate(tr)
			res := entries(t, normalize.DefaultOptions(), fabricSession(traceDetails(t, tr))...)
			got := children(res, "fabric_operation")
			if c.valid {
				assert.Len(t, got, len(ops(tr)))
			} else {
				assert.Empty(t, got)
				assert.Len(t, res.Entries, 4, "the carrier and its neighbours stay")
			}
		})
	}
}

func TestExecutionTraceRawGuard(t *testing.T) {
	valid := traceDetails(t, baseTrace())
	cases := []struct{ name, details string }{
		{"non-finite number", strings.Replace(valid, `"offset":10`, `"offset":1e999`, 1)},
		{"trace null", `{"trace":null}`},
		{"trace string", `{"trace":"omp-fabric.execution"}`},
		{"no trace key", `{"success":true,"audits":[{"ref":"omp.read","args":{"path":"x"}}]}`},
		{"details not an object", `"trace"`},
		{"duplicate key reordered", strings.Replace(valid, `"kind":"omp-fabric.execution"`, `"kind":"omp-fabric.execution","kind":"other"`, 1)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := entries(t, normalize.DefaultOptions(), fabricSession(c.details)...)
			assert.Empty(t, children(res, "fabric_operation"))
			assert.Len(t, res.Entries, 4)
		})
	}
}

func TestExecutionTraceNeedsCarrierID(t *testing.T) {
	details := traceDetails(t, baseTrace())
	// A numeric id keeps the record on the active path but gives it no
	// entryId.
	lines := []string{
		msg("u1", "", fabricTS, `{"role":"user","content":"go"}`),
		`{"type":"message","id":7,"parentId":"u1","timestamp":"` + fabricTS + `","message":{"role":"toolResult","toolCallId":"f1","toolName":"fabric_exec","content":"x","details":` + details + `}}`,
	}
	res := entries(t, normalize.DefaultOptions(), lines...)
	require.Len(t, res.Entries, 2)
	assert.Nil(t, res.Entries[1].EntryID)
	assert.Empty(t, children(res, "fabric_operation"))

	// Without any id, under branches "all".
	f := session.Parse("x.jsonl", []byte(header+`{"type":"message","parentId":null,"timestamp":"`+fabricTS+`","message":{"role":"toolResult","toolName":"fabric_exec","content":"x","details":`+details+`}}`+"\n"))
	res = normalize.Session(f, lineage.Select(f, lineage.All, nil), normalize.DefaultOptions())
	require.Len(t, res.Entries, 1)
	assert.Empty(t, children(res, "fabric_operation"))
}

func TestExecutionTraceOnlyOnFabricExec(t *testing.T) {
	details := traceDetails(t, baseTrace())
	res := entries(t, normalize.DefaultOptions(),
		msg("r1", "", fabricTS, `{"role":"toolResult","toolCallId":"f1","toolName":"bash","content":"x","details":`+details+`}`))
	assert.Len(t, res.Entries, 1)
}

func TestExecutionTraceResultPolicy(t *testing.T) {
	res := entries(t, normalize.Options{}, fabricSession(traceDetails(t, baseTrace()))...)
	got := children(res, "fabric_operation")
	require.Len(t, got, 3)
	assert.JSONEq(t, `{"address":"r1/0","parentEntryId":"r1","sequence":0,"tool":"read","ref":"omp.read","provider":"omp","action":"read","args":{"offset":10,"path":"src/a.go"},"outcome":"succeeded","resultOmitted":true}`,
		jsjson.Stringify(got[0].Operation))
	assert.Equal(t, "Fabric operation omp.read\n10 src/a.go", got[0].Text, "no result text without IndexToolOutput")
	assert.False(t, got[1].Operation.Has("resultOmitted"), "nothing omitted when there was no result")
}

func TestExecutionTraceOperationSizeRule(t *testing.T) {
	cases := []struct {
		name   string
		result string
		kept   bool
	}{
		{"under 96 KiB", strings.Repeat("y", 90<<10), true},
		{"over 96 KiB", strings.Repeat("y", 97<<10), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tr := baseTrace()
			op(tr, 0)["result"] = map[string]any{"text": c.result}
			got := children(entries(t, normalize.Lossless(), fabricSession(traceDetails(t, tr))...), "fabric_operation")
			require.Len(t, got, 3)
			o := got[0].Operation
			enc := jsjson.Stringify(o)
			assert.Equal(t, c.kept, o.Has("result"))
			assert.Equal(t, !c.kept, o.Has("resultOmitted"))
			assert.Equal(t, c.kept, strings.Contains(got[0].Text, c.result))
			assert.LessOrEqual(t, len(enc), normalize.MaxOperationBytes)
		})
	}
}

var wordRE = regexp.MustCompile(`[\p{L}\p{N}_]+`)

func words(s string) map[string]bool {
	out := map[string]bool{}
	for _, w := range wordRE.FindAllString(strings.ToLower(s), -1) {
		out[w] = true
	}
	return out
}

func TestOperationTextIndexesValuesNotKeys(t *testing.T) {
	tr := baseTrace()
	tr["operations"] = []any{
		map[string]any{"type": "call", "sequence": 3, "ref": "omp.grep", "args": map[string]any{"pattern": "TODO", "path": "internal"}, "outcome": "succeeded", "result": map[string]any{"matches": []any{"a.go:1", "b.go:2"}, "count": 2, "complete": true}},
		map[string]any{"type": "call", "sequence": 4, "ref": "mesh.put", "args": map[string]any{"key": "outcome", "value": "sequence"}, "outcome": "failed", "error": "quota"},
	}
	got := children(entries(t, normalize.Lossless(), fabricSession(traceDetails(t, tr))...), "fabric_operation")
	require.Len(t, got, 2)

	w := words(got[0].Text)
	for _, v := range []string{"todo", "internal", "a", "go", "1", "b", "2", "omp", "grep"} {
		assert.True(t, w[v], "value %q indexed in %q", v, got[0].Text)
	}
	for _, k := range []string{"args", "outcome", "sequence", "address", "parententryid", "pattern", "path", "matches", "count", "complete", "true", "succeeded", "tool", "result", "resultomitted", "3"} {
		assert.False(t, w[k], "key or structural word %q indexed in %q", k, got[0].Text)
	}
	assert.Equal(t, []string{"internal"}, got[0].FilesTouched)

	assert.Equal(t, "Fabric operation mesh.put\noutcome sequence\nquota", got[1].Text, "words that are values are indexed")
}

// An operation's argument line shows the reference's 400-scalar display;
// the rest stays searchable through ArgsCuts, and expansion (Lossless)
// shows the whole line.
func TestOperationArgsDisplayIsCutAndTheRestIndexed(t *testing.T) {
	tr := baseTrace()
	op(tr, 0)["args"] = map[string]any{"a": strings.Repeat("é", 300), "b": strings.Repeat("z", 300), "c": "never"}
	whole := strings.Repeat("é", 300) + " " + strings.Repeat("z", 300) + " never"

	got := children(entries(t, normalize.DefaultOptions(), fabricSession(traceDetails(t, tr))...), "fabric_operation")
	require.Len(t, got, 3)
	line := strings.Split(got[0].Text, "\n")[1]
	assert.Equal(t, strings.Repeat("é", 300)+" "+strings.Repeat("z", 99)+"…", line)
	assert.Equal(t, normalize.MaxArgsChars+1, normalize.CountScalars(line))
	require.Len(t, got[0].ArgsCuts, 1)
	assert.Equal(t, strings.Repeat("z", 201)+" never", got[0].ArgsCuts[0].Rest)
	assert.Equal(t, whole+"…", strings.Split(got[0].IndexText(), "\n")[1])
	assert.False(t, got[0].Truncated)

	got = children(entries(t, normalize.Lossless(), fabricSession(traceDetails(t, tr))...), "fabric_operation")
	require.Len(t, got, 3)
	assert.Equal(t, whole, strings.Split(got[0].Text, "\n")[1])
	assert.Empty(t, got[0].ArgsCuts)
}

func TestOperationChildrenAreTruncatedLikeEntries(t *testing.T) {
	tr := baseTrace()
	op(tr, 0)["result"] = strings.Repeat("r", 5000)
	res := entries(t, normalize.DefaultOptions(), fabricSession(traceDetails(t, tr))...)
	got := children(res, "fabric_operation")
	require.Len(t, got, 3)
	assert.True(t, got[0].Truncated)
	assert.Equal(t, 2000, normalize.CountScalars(got[0].Text))
	assert.True(t, res.Problems.Has(coverage.MaxEntryChars))
}

// Branch summaries.

func fact(kind, entryID, sub string, kv ...any) map[string]any {
	f := map[string]any{"kind": kind, "entryId": entryID, "subordinal": sub, "address": entryID + "/" + sub}
	for i := 0; i+1 < len(kv); i += 2 {
		f[kv[i].(string)] = kv[i+1]
	}
	return f
}

func envelope(version int, facts ...any) map[string]any {
	return map[string]any{
		"kind":         "omp-fabric.branch-summary",
		"version":      version,
		"source":       map[string]any{"firstEntryId": "x1", "lastEntryId": "x9", "entryCount": 9, "oldLeafId": "x9"},
		"facts":        facts,
		"omittedFacts": 0,
		"sections":     []any{"Goal", "Progress"},
		"request":      map[string]any{"text": "summarize", "sourceBytes": 1234, "truncated": false},
	}
}

func v1Facts() []any {
	return []any{
		fact("user", "x1", "0", "text", "make the worker test deterministic"),
		fact("customMessage", "x2", "0", "customType", "hint", "text", "lint first", "display", true, "details", map[string]any{"source": "lint-ext"}),
		fact("phase", "x3", "phase:1", "phase", "investigate"),
		fact("operation", "x4", "2", "ref", "omp.edit", "tool", "edit", "args", map[string]any{"path": "worker_test.go"}, "outcome", "failed", "error", "no match", "result", map[string]any{"diff": "-sleep +done"}),
	}
}

func branchRecord(id, parent, fromID, details string) string {
	return `{"type":"branch_summary","id":"` + id + `","parentId":"` + parent + `","timestamp":"` + fabricTS + `","fromId":"` + fromID + `","summary":"secret prose about everything","details":` + details + `}`
}

func TestBranchFactsV1(t *testing.T) {
	env := mustJSON(t, envelope(1, v1Facts()...))
	res := entries(t, normalize.DefaultOptions(),
		msg("u1", "", fabricTS, `{"role":"user","content":"start"}`),
		branchRecord("b1", "u1", "u1", env),
		msg("a1", "b1", fabricTS, `{"role":"assistant","content":[{"type":"text","text":"next"}]}`),
	)
	require.Len(t, res.Entries, 7)
	assert.True(t, res.Problems.Complete(), res.Problems.Reasons())
	carrier := res.Entries[1]
	assert.Equal(t, "", carrier.Text, "summary prose is never indexed")
	for _, e := range res.Entries {
		assert.NotContains(t, e.Text, "prose")
	}
	type want struct {
		id, role, text string
	}
	for i, w := range []want{
		{"x1/0", normalize.RoleBranchUser, "make the worker test deterministic"},
		{"x2/0", normalize.RoleBranchCustomMessage, "[hint] lint first"},
		{"x3/phase:1", normalize.RoleFabricPhase, "Fabric phase investigate"},
		{"x4/2", normalize.RoleFabricOperation, "Fabric branch operation omp.edit\nworker_test.go\nno match\n-sleep +done"},
	} {
		e := res.Entries[2+i]
		assert.Equal(t, 2+i, e.Index)
		assert.Equal(t, "fabric_branch_fact", e.Type)
		assert.Equal(t, w.id, normalize.Get(e.EntryID))
		assert.Equal(t, w.id, normalize.Get(e.FactAddress))
		assert.Equal(t, w.role, normalize.Get(e.Role))
		assert.Equal(t, w.text, e.Text)
		assert.Equal(t, "u1", normalize.Get(e.ParentID), "the carrier's parentId")
		assert.Equal(t, "b1", normalize.Get(e.ParentEntryID))
		assert.Equal(t, "b1", normalize.Get(e.CarrierEntryID))
		assert.Equal(t, "u1", normalize.Get(e.CarrierParentID))
		assert.Equal(t, "u1", normalize.Get(e.CarrierFromID))
		assert.Equal(t, carrier.Timestamp, e.Timestamp)
		require.True(t, e.BranchFact.IsObject())
		assert.Equal(t, "b1", e.BranchFact.Get("carrierEntryId").StrOr(""))
		assert.Equal(t, "u1", e.BranchFact.Get("carrierParentId").StrOr(""))
		assert.Equal(t, "u1", e.BranchFact.Get("carrierFromId").StrOr(""))
		assert.Equal(t, w.id, e.BranchFact.Get("address").StrOr(""))
	}
	for _, e := range res.Entries[2:5] {
		assert.Nil(t, e.OperationAddress)
		assert.Nil(t, e.Outcome)
		assert.False(t, e.IsError)
		assert.False(t, e.Operation.Exists())
	}
	opc := res.Entries[5]
	assert.Equal(t, "x4/2", normalize.Get(opc.OperationAddress))
	assert.Equal(t, "edit", normalize.Get(opc.Tool))
	assert.Equal(t, "omp.edit", normalize.Get(opc.Ref))
	assert.Equal(t, "omp", normalize.Get(opc.Provider))
	assert.Equal(t, "edit", normalize.Get(opc.Action))
	assert.Equal(t, "failed", normalize.Get(opc.Outcome))
	assert.True(t, opc.IsError)
	assert.Equal(t, []string{"worker_test.go"}, opc.FilesTouched)
	assert.JSONEq(t, `{"address":"x4/2","parentEntryId":"x4","subordinal":"2","tool":"edit","ref":"omp.edit","provider":"omp","action":"edit","args":{"path":"worker_test.go"},"outcome":"failed","error":"no match","result":{"diff":"-sleep +done"}}`,
		jsjson.Stringify(opc.Operation))
	assert.JSONEq(t, `{"kind":"customMessage","entryId":"x2","subordinal":"0","address":"x2/0","customType":"hint","text":"lint first","display":true,"details":{"source":"lint-ext"},"carrierEntryId":"b1","carrierParentId":"u1","carrierFromId":"u1"}`,
		jsjson.Stringify(res.Entries[3].BranchFact))
}

func TestBranchFactsV2AndMessageCarrier(t *testing.T) {
	facts := append(v1Facts(),
		fact("fabricRun", "x5", "call:toolu_9", "name", "fix flaky test", "description", "edit and rerun", "outcome", "succeeded"),
		fact("fabricRun", "x6", "call:toolu_10", "name", "retry", "outcome", "aborted"),
	)
	env := mustJSON(t, envelope(2, facts...))
	// A message with role branchSummary carries its details on the message.
	res := entries(t, normalize.Options{},
		msg("u1", "", fabricTS, `{"role":"user","content":"start"}`),
		msg("m1", "u1", fabricTS, `{"role":"branchSummary","summary":"prose","fromId":"root","details":`+env+`}`),
	)
	require.Len(t, res.Entries, 8)
	var ids []string
	for _, e := range res.Entries {
		ids = append(ids, normalize.Get(e.EntryID))
	}
	assert.Equal(t, []string{"u1", "m1", "x1/0", "x2/0", "x3/phase:1", "x4/2", "x5/call:toolu_9", "x6/call:toolu_10"}, ids)

	run := res.Entries[6]
	assert.Equal(t, normalize.RoleFabricRun, normalize.Get(run.Role))
	assert.Equal(t, "fabric_exec", normalize.Get(run.Tool))
	assert.Equal(t, "fabric_exec", normalize.Get(run.Ref))
	assert.Equal(t, "x5/call:toolu_9", normalize.Get(run.OperationAddress))
	assert.Equal(t, "succeeded", normalize.Get(run.Outcome))
	assert.False(t, run.IsError)
	assert.Equal(t, "Fabric run fix flaky test — edit and rerun → succeeded", run.Text)
	assert.Equal(t, "root", normalize.Get(run.CarrierFromID))
	assert.Equal(t, "m1", normalize.Get(run.CarrierEntryID))

	retry := res.Entries[7]
	assert.Equal(t, "Fabric run retry → aborted", retry.Text)
	assert.True(t, retry.IsError)

	// Without IndexToolOutput the operation result is omitted everywhere.
	opc := res.Entries[5]
	assert.False(t, opc.Operation.Has("result"))
	assert.True(t, opc.Operation.Has("resultOmitted"))
	assert.False(t, opc.BranchFact.Has("result"))
	assert.True(t, opc.BranchFact.Has("resultOmitted"))
	assert.Equal(t, "Fabric branch operation omp.edit\nworker_test.go\nno match", opc.Text)
}

func TestBranchFactsV1RejectsFabricRun(t *testing.T) {
	env := mustJSON(t, envelope(1, fact("fabricRun", "x5", "call:1", "name", "n", "outcome", "succeeded")))
	res := entries(t, normalize.DefaultOptions(), branchRecord("b1", "", "root", env))
	assert.Empty(t, children(res, "fabric_branch_fact"))
}

func TestFabricRunValidation(t *testing.T) {
	run := func(sub, name string, kv ...any) map[string]any {
		return fact("fabricRun", "x5", sub, append([]any{"name", name, "outcome", "succeeded"}, kv...)...)
	}
	cases := []struct {
		name  string
		fact  map[string]any
		valid bool
	}{
		{"valid", run("call:1", "deploy"), true},
		{"name of 256 bytes", run("call:1", strings.Repeat("é", 128)), true},
		{"description of 1024 bytes", run("call:1", "n", "description", strings.Repeat("d", 1024)), true},
		{"subordinal without call prefix", run("run:1", "deploy"), false},
		{"subordinal is only the prefix", run("call:", "deploy"), false},
		{"blank name", run("call:1", " \t\u00a0\ufeff"), false},
		{"empty name", run("call:1", ""), false},
		{"NEL is not JavaScript white space", run("call:1", "\u0085"), true},
		{"name of 257 bytes", run("call:1", strings.Repeat("é", 128)+"x"), false},
		{"description of 1025 bytes", run("call:1", "n", "description", strings.Repeat("d", 1025)), false},
		{"description not a string", run("call:1", "n", "description", nil), false},
		{"bad outcome", fact("fabricRun", "x5", "call:1", "name", "n", "outcome", "done"), false},
		{"extra key", run("call:1", "n", "args", map[string]any{}), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			env := mustJSON(t, envelope(2, c.fact))
			got := children(entries(t, normalize.DefaultOptions(), branchRecord("b1", "", "root", env)), "fabric_branch_fact")
			if c.valid {
				assert.Len(t, got, 1)
			} else {
				assert.Empty(t, got)
			}
		})
	}
}

func TestBranchEnvelopeGuard(t *testing.T) {
	manyFacts := func(n int) []any {
		out := make([]any, n)
		for i := range out {
			out[i] = fact("phase", "p", strconv.Itoa(i), "phase", "x")
		}
		return out
	}
	cases := []struct {
		name   string
		mutate func(env map[string]any)
		valid  bool
	}{
		{"valid", func(map[string]any) {}, true},
		{"null oldLeafId", func(env map[string]any) { env["source"].(map[string]any)["oldLeafId"] = nil }, true},
		{"no oldLeafId", func(env map[string]any) { delete(env["source"].(map[string]any), "oldLeafId") }, true},
		{"256 facts", func(env map[string]any) { env["facts"] = manyFacts(256) }, true},
		{"extra envelope key", func(env map[string]any) { env["summary"] = "x" }, false},
		{"extra source key", func(env map[string]any) { env["source"].(map[string]any)["leafId"] = "x" }, false},
		{"extra request key", func(env map[string]any) { env["request"].(map[string]any)["model"] = "x" }, false},
		{"extra fact key", func(env map[string]any) { env["facts"].([]any)[0].(map[string]any)["note"] = "x" }, false},
		{"missing request", func(env map[string]any) { delete(env, "request") }, false},
		{"wrong kind", func(env map[string]any) { env["kind"] = "discarded-entry-branch" }, false},
		{"version 3", func(env map[string]any) { env["version"] = 3 }, false},
		{"negative omittedFacts", func(env map[string]any) { env["omittedFacts"] = -1 }, false},
		{"fractional entryCount", func(env map[string]any) { env["source"].(map[string]any)["entryCount"] = 1.5 }, false},
		{"unsafe sourceBytes", func(env map[string]any) { env["request"].(map[string]any)["sourceBytes"] = float64(1 << 53) }, false},
		{"numeric oldLeafId", func(env map[string]any) { env["source"].(map[string]any)["oldLeafId"] = 3 }, false},
		{"truncated not a bool", func(env map[string]any) { env["request"].(map[string]any)["truncated"] = "no" }, false},
		{"section not a string", func(env map[string]any) { env["sections"] = []any{1} }, false},
		{"64 sections", func(env map[string]any) { env["sections"] = strings.Split(strings.Repeat("s", 64), "") }, true},
		{"65 sections", func(env map[string]any) { env["sections"] = strings.Split(strings.Repeat("s", 65), "") }, false},
		{"257 facts", func(env map[string]any) { env["facts"] = manyFacts(257) }, false},
		{"address mismatch", func(env map[string]any) { env["facts"].([]any)[0].(map[string]any)["address"] = "x1/1" }, false},
		{"numeric subordinal", func(env map[string]any) {
			f := env["facts"].([]any)[0].(map[string]any)
			f["subordinal"], f["address"] = 0, "x1/0"
		}, false},
		{"unknown fact kind", func(env map[string]any) { env["facts"] = []any{fact("thought", "x", "0", "text", "t")} }, false},
		{"display not a bool", func(env map[string]any) { env["facts"].([]any)[1].(map[string]any)["display"] = 1 }, false},
		{"operation args not an object", func(env map[string]any) { env["facts"].([]any)[3].(map[string]any)["args"] = "x" }, false},
		{"operation bad outcome", func(env map[string]any) { env["facts"].([]any)[3].(map[string]any)["outcome"] = "ok" }, false},
		{"operation missing tool", func(env map[string]any) { delete(env["facts"].([]any)[3].(map[string]any), "tool") }, false},
		{"collection over 256", func(env map[string]any) {
			env["facts"].([]any)[1].(map[string]any)["details"] = make([]any, 257)
		}, false},
		{"node budget", func(env map[string]any) {
			fs := env["facts"].([]any)
			for i := 0; i < 20; i++ {
				fs = append(fs, fact("customMessage", "c", strconv.Itoa(i), "customType", "t", "text", "x", "display", false, "details", make([]any, 250)))
			}
			env["facts"] = fs
		}, false},
		{"too deep", func(env map[string]any) {
			env["facts"].([]any)[1].(map[string]any)["details"] = nestArgs(15)
		}, false},
		{"too large", func(env map[string]any) {
			env["facts"].([]any)[0].(map[string]any)["text"] = strings.Repeat("t", 130<<10)
		}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			env := envelope(1, v1Facts()...)
			c.mutate(env)
			res := entries(t, normalize.DefaultOptions(), branchRecord("b1", "", "root", mustJSON(t, env)))
			got := children(res, "fabric_branch_fact")
			if c.valid {
				assert.Len(t, got, len(env["facts"].([]any)))
			} else {
				assert.Empty(t, got)
				assert.Len(t, res.Entries, 1)
				assert.True(t, res.Problems.Complete(), "a rejected envelope is just non-semantic")
			}
		})
	}
}

func TestBranchDepthBoundary(t *testing.T) {
	// envelope(0) → facts(1) → fact(2) → details(3): 14 nested objects in
	// details reach depth 16.
	for _, c := range []struct {
		k     int
		valid bool
	}{{14, true}, {15, false}} {
		env := envelope(1, fact("customMessage", "c", "0", "customType", "t", "text", "x", "display", false, "details", nestArgs(c.k)))
		got := children(entries(t, normalize.DefaultOptions(), branchRecord("b1", "", "root", mustJSON(t, env))), "fabric_branch_fact")
		assert.Equal(t, c.valid, len(got) == 1, "depth %d", c.k)
	}
}

func TestBranchFactsDuplicateInEnvelope(t *testing.T) {
	cases := []struct {
		name        string
		facts       []any
		operationRe bool
	}{
		{"user facts", []any{fact("user", "x1", "0", "text", "a"), fact("phase", "p", "0", "phase", "b"), fact("user", "x1", "0", "text", "c")}, false},
		{"operation facts", []any{
			fact("operation", "r1", "1", "ref", "omp.read", "tool", "read", "args", map[string]any{}, "outcome", "succeeded"),
			fact("user", "x1", "0", "text", "a"),
			fact("operation", "r1", "1", "ref", "omp.read", "tool", "read", "args", map[string]any{}, "outcome", "failed"),
		}, true},
		{"user against run", []any{fact("user", "x1", "call:1", "text", "a"), fact("fabricRun", "x1", "call:1", "name", "n", "outcome", "succeeded")}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := entries(t, normalize.DefaultOptions(), branchRecord("b1", "", "root", mustJSON(t, envelope(2, c.facts...))))
			assert.Empty(t, children(res, "fabric_branch_fact"), "all facts of the envelope are dropped")
			assert.True(t, res.Problems.Has(coverage.DuplicateBranchFactAddress))
			assert.Equal(t, c.operationRe, res.Problems.Has(coverage.DuplicateOperationAddress))
		})
	}
}

func TestBranchFactsDedupAcrossCarriers(t *testing.T) {
	first := mustJSON(t, envelope(1, fact("user", "x1", "0", "text", "hello"), fact("phase", "x2", "0", "phase", "plan")))
	second := mustJSON(t, envelope(1, fact("phase", "x2", "0", "phase", "plan"), fact("user", "x1", "0", "text", "hello"), fact("phase", "x3", "0", "phase", "ship")))
	res := entries(t, normalize.DefaultOptions(),
		msg("u1", "", fabricTS, `{"role":"user","content":"start"}`),
		branchRecord("b1", "u1", "u1", first),
		branchRecord("b2", "b1", "b1", second),
	)
	var got []string
	for _, e := range res.Entries {
		got = append(got, normalize.Get(e.EntryID)+"@"+normalize.Get(e.CarrierEntryID))
	}
	assert.Equal(t, []string{"u1@", "b1@", "x1/0@b1", "x2/0@b1", "b2@", "x3/0@b2"}, got, "the earliest carrier wins")
	assert.True(t, res.Problems.Complete(), res.Problems.Reasons())
}

func TestBranchOperationFactDefersToItsTrace(t *testing.T) {
	tr := baseTrace()
	lines := fabricSession(traceDetails(t, tr))
	env := mustJSON(t, envelope(1,
		fact("operation", "r1", "0", "ref", "omp.read", "tool", "read", "args", map[string]any{"path": "src/a.go"}, "outcome", "succeeded"),
		fact("user", "u1", "0", "text", "run the plan"),
	))
	// The summary sits on a sibling branch of the traced result.
	lines = append(lines, branchRecord("b1", "u1", "u1", env))
	f := session.Parse("x.jsonl", []byte(header+strings.Join(lines, "\n")+"\n"))

	all := normalize.Session(f, lineage.Select(f, lineage.All, nil), normalize.DefaultOptions())
	var addrs []string
	for _, e := range all.Entries {
		if e.OperationAddress != nil {
			addrs = append(addrs, e.Type+" "+*e.OperationAddress)
		}
	}
	assert.Equal(t, []string{"fabric_operation r1/0", "fabric_operation r1/2", "fabric_operation r1/5"}, addrs)
	assert.Len(t, children(all, "fabric_branch_fact"), 1)
	assert.True(t, all.Problems.Complete(), all.Problems.Reasons())

	active := normalize.Session(f, lineage.Select(f, lineage.Active, nil), normalize.DefaultOptions())
	assert.Len(t, children(active, "fabric_branch_fact"), 2, "on its own branch the fact is the record")
	assert.Empty(t, children(active, "fabric_operation"))
}

func TestBranchDetailsIgnored(t *testing.T) {
	for _, details := range []string{
		`{"readFiles":["a.go"],"modifiedFiles":[]}`,
		`{"kind":"discarded-entry-branch","discardedEntryId":"x"}`,
		`{"startedAt":1}`,
		`"omp-fabric.branch-summary"`,
		`null`,
		`[]`,
	} {
		res := entries(t, normalize.DefaultOptions(), branchRecord("b1", "", "root", details))
		assert.Len(t, res.Entries, 1, details)
		assert.True(t, res.Problems.Complete(), details)
	}
	// No details at all, and a carrier without an entryId.
	res := entries(t, normalize.DefaultOptions(), `{"type":"branch_summary","id":"b1","parentId":null,"timestamp":"`+fabricTS+`","fromId":"root","summary":"x"}`)
	assert.Len(t, res.Entries, 1)
	env := mustJSON(t, envelope(1, v1Facts()...))
	res = entries(t, normalize.DefaultOptions(), `{"type":"branch_summary","id":5,"parentId":null,"timestamp":"`+fabricTS+`","fromId":"root","summary":"x","details":`+env+`}`)
	require.Len(t, res.Entries, 1)
	assert.Nil(t, res.Entries[0].EntryID)
}

func TestFabricHostileInputIsBounded(t *testing.T) {
	deep := strings.Repeat(`{"a":`, 3000) + `1` + strings.Repeat(`}`, 3000)
	wide := `[` + strings.Repeat(`123456789,`, 60_000) + `0]` // over 512 KiB
	for _, payload := range []string{deep, wide} {
		env := `{"kind":"omp-fabric.branch-summary","version":1,"source":{"firstEntryId":"a","lastEntryId":"b","entryCount":1},"facts":[{"kind":"customMessage","entryId":"c","subordinal":"0","address":"c/0","customType":"t","text":"x","display":true,"details":` + payload + `}],"omittedFacts":0,"sections":[],"request":{"text":"","sourceBytes":0,"truncated":false}}`
		res := entries(t, normalize.DefaultOptions(), branchRecord("b1", "", "root", env))
		assert.Len(t, res.Entries, 1)

		trace := `{"trace":{"kind":"omp-fabric.execution","version":1,"outcome":"succeeded","phases":[],"operations":[{"type":"call","sequence":0,"ref":"omp.read","args":{"x":` + payload + `},"outcome":"succeeded"}],"counts":{"droppedValues":0,"truncatedValues":0,"redactedValues":0,"droppedOperations":0}}}`
		res = entries(t, normalize.DefaultOptions(), fabricSession(trace)...)
		assert.Empty(t, children(res, "fabric_operation"))
	}
}

func TestFabricChildrenDoNotAliasSource(t *testing.T) {
	data := []byte(header + strings.Join(fabricSession(traceDetails(t, baseTrace())), "\n") + "\n")
	f := session.Parse("x.jsonl", data)
	res := normalize.Session(f, lineage.Select(f, lineage.Active, nil), normalize.DefaultOptions())
	before := jsjson.Stringify(res.Entries[3].Operation)
	for i := range data {
		data[i] = 'Z'
	}
	assert.Equal(t, before, jsjson.Stringify(res.Entries[3].Operation))
	assert.Equal(t, "omp.read", normalize.Get(res.Entries[3].Ref))
	assert.Equal(t, "succeeded", normalize.Get(res.Entries[3].Outcome))
}
