package corpus_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/internal/corpus"
	"github.com/memidx/memidx/internal/jsjson"
)

// smallCorpus is generated once and shared by the read-only tests.
var smallCorpus struct {
	dir string
	m   *corpus.Manifest
	err error
}

// small returns the corpus the read-only tests check: 20 sessions at scale
// 0.05, generated once; or, when MEMIDX_CORPUS_CHECK names the directory of
// a corpus generated earlier, that corpus (read from its manifest.json).
func small(t *testing.T) (string, *corpus.Manifest) {
	t.Helper()
	if dir := os.Getenv("MEMIDX_CORPUS_CHECK"); dir != "" {
		data, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
		require.NoError(t, err)
		var m corpus.Manifest
		require.NoError(t, json.Unmarshal(data, &m))
		return dir, &m
	}
	if smallCorpus.dir == "" && smallCorpus.err == nil {
		dir, err := os.MkdirTemp("", "corpus-small-")
		require.NoError(t, err)
		smallCorpus.dir = dir
		start := time.Now()
		smallCorpus.m, smallCorpus.err = corpus.Generate(corpus.Options{Sessions: 20, Seed: 7, Out: dir, Scale: 0.05})
		t.Logf("generated 20 sessions (scale 0.05) in %v", time.Since(start))
	}
	require.NoError(t, smallCorpus.err)
	return smallCorpus.dir, smallCorpus.m
}

func TestMain(m *testing.M) {
	code := m.Run()
	if smallCorpus.dir != "" {
		os.RemoveAll(smallCorpus.dir)
	}
	os.Exit(code)
}

// record is one parsed line of a session file.
type record struct {
	raw string
	obj map[string]any
}

func (r record) str(k string) string {
	s, _ := r.obj[k].(string)
	return s
}

func (r record) msg() map[string]any {
	m, _ := r.obj["message"].(map[string]any)
	return m
}

// readSession splits a session file into its slot line, header and
// entries, parsing every line with encoding/json.
func readSession(t *testing.T, path string) (slot string, header record, entries []record) {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.True(t, bytes.HasSuffix(data, []byte("\n")), "%s: no final newline", path)
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	require.GreaterOrEqual(t, len(lines), 2, path)
	for i, line := range lines {
		var obj map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &obj), "%s line %d", path, i+1)
		r := record{raw: line, obj: obj}
		switch i {
		case 0:
			slot = line
		case 1:
			header = r
		default:
			entries = append(entries, r)
		}
	}
	return slot, header, entries
}

// activePath returns the ids on the path from the last entry (the leaf) to
// the root, as OMP's loader computes it.
func activePath(entries []record) map[string]bool {
	parent := map[string]any{}
	for _, e := range entries {
		parent[e.str("id")] = e.obj["parentId"]
	}
	on := map[string]bool{}
	id := entries[len(entries)-1].str("id")
	for id != "" && !on[id] {
		if _, ok := parent[id]; !ok {
			break
		}
		on[id] = true
		id, _ = parent[id].(string)
	}
	return on
}

func contentText(m map[string]any, blockType string) []string {
	var out []string
	switch c := m["content"].(type) {
	case string:
		if blockType == "text" {
			out = append(out, c)
		}
	case []any:
		for _, b := range c {
			bm, _ := b.(map[string]any)
			if bm["type"] == blockType {
				key := blockType
				if blockType == "thinking" {
					key = "thinking"
				}
				s, _ := bm[key].(string)
				out = append(out, s)
			}
		}
	}
	return out
}

var termRE = regexp.MustCompile(`zqx[a-z2-7]*`)

// TestFacts checks every planted fact against the written bytes, using the
// standard library only: the term is on the line of the claimed entry,
// occurs nowhere else in the corpus, and the claimed placement holds.
func TestFacts(t *testing.T) {
	dir, m := small(t)
	require.NotEmpty(t, m.Facts)

	// Every occurrence of the plant prefix in the corpus is a fact's term,
	// and each term occurs once.
	count := map[string]int{}
	for _, s := range m.Sessions {
		data, err := os.ReadFile(filepath.Join(dir, s.Path))
		require.NoError(t, err)
		assert.Equal(t, bytes.Count(data, []byte("zqx")), len(termRE.FindAll(data, -1)), s.Path)
		for _, term := range termRE.FindAll(data, -1) {
			count[string(term)]++
		}
	}
	terms := map[string]bool{}
	for _, f := range m.Facts {
		assert.False(t, terms[f.Term], "term %s planted twice", f.Term)
		terms[f.Term] = true
		assert.Equal(t, 1, count[f.Term], "%s (%s) occurs %d times in the corpus", f.Term, f.Kind, count[f.Term])
	}
	for term := range count {
		assert.True(t, terms[term], "stray %s in the corpus", term)
	}

	kinds := map[string]int{}
	for _, f := range m.Facts {
		kinds[f.Kind]++
		t.Run(f.Kind+"/"+f.Term, func(t *testing.T) { checkFact(t, dir, f) })
	}
	for _, k := range []string{"term", "thinking-term", "deep-term", "abandoned-term", "tool-outcome",
		"bash-execution", "operation", "branch-fact", "subagent-term"} {
		assert.NotZero(t, kinds[k], "no fact of kind %s", k)
	}
	t.Logf("facts by kind: %v", kinds)
}

func checkFact(t *testing.T, dir string, f corpus.Fact) {
	_, header, entries := readSession(t, filepath.Join(dir, f.Path))
	assert.Equal(t, f.SessionID, header.str("id"))
	var e *record
	for i := range entries {
		if entries[i].str("id") == f.EntryID {
			e = &entries[i]
		}
	}
	require.NotNil(t, e, "entry %s not in %s", f.EntryID, f.Path)
	require.Contains(t, e.raw, f.Term)

	on := activePath(entries)
	switch f.Branch {
	case "active":
		assert.True(t, on[f.EntryID], "entry %s is not on the active branch", f.EntryID)
	case "abandoned":
		assert.Equal(t, "abandoned-term", f.Kind)
		assert.False(t, on[f.EntryID], "entry %s is on the active branch", f.EntryID)
	default:
		t.Fatalf("branch %q", f.Branch)
	}

	msg := e.msg()
	switch f.Role {
	case "user", "assistant", "toolResult", "bashExecution":
		assert.Equal(t, "message", e.str("type"))
		assert.Equal(t, f.Role, msg["role"])
	case "custom":
		assert.Equal(t, "custom_message", e.str("type"))
	case "compaction":
		assert.Equal(t, "compaction", e.str("type"))
		assert.Contains(t, e.str("summary"), f.Term)
	}
	// An operation fact, or an abandoned term planted in an operation.
	isOp := f.Kind == "operation" || (f.Kind == "abandoned-term" && f.Ref != "")
	if f.Role == "toolResult" && !isOp {
		assert.Equal(t, f.Tool, msg["toolName"])
		{
			assert.Equal(t, f.Outcome == "error", msg["isError"], "isError")
			assert.Contains(t, strings.Join(contentText(msg, "text"), ""), f.Term)
		}
	}

	// Every term but a deep one sits inside the first 2000 characters of
	// the entry's text, thinking included, so a truncated index finds it.
	if text := entryText(e); f.Kind != "deep-term" && text != "" {
		at := strings.Index(text, f.Term)
		require.GreaterOrEqual(t, at, 0, "term not in the entry's text")
		assert.Less(t, utf8.RuneCountInString(text[:at]), 1900)
	}

	if isOp {
		checkOperationFact(t, f, msg)
	}

	switch f.Kind {
	case "term", "abandoned-term":
		if f.Role == "user" || f.Role == "assistant" || f.Role == "custom" {
			text := strings.Join(contentText(msg, "text"), "\n")
			if f.Role == "custom" {
				text = strings.Join(contentText(e.obj, "text"), "\n")
			}
			assert.Contains(t, text, f.Term)
		}
	case "thinking-term":
		assert.Contains(t, strings.Join(contentText(msg, "thinking"), ""), f.Term)
		assert.NotContains(t, strings.Join(contentText(msg, "text"), ""), f.Term)
	case "deep-term":
		text := contentText(msg, "text")[0]
		at := strings.Index(text, f.Term)
		assert.Equal(t, f.Offset, utf8.RuneCountInString(text[:at]))
		assert.Greater(t, f.Offset, 2000)
	case "tool-outcome":
		assert.Equal(t, true, msg["isError"])
		if f.Tool == "bash" {
			details, _ := msg["details"].(map[string]any)
			assert.Equal(t, "exitCode="+jsNum(details["exitCode"]), f.Note)
		}
	case "bash-execution":
		assert.Equal(t, "bash", f.Tool)
		assert.Equal(t, "exit:"+jsNum(msg["exitCode"]), f.Outcome)
		assert.Contains(t, msg["output"], f.Term)
	case "operation":
		assert.True(t, isOp)
	case "branch-fact":
		assert.Equal(t, "branch_summary", e.str("type"))
		details, _ := e.obj["details"].(map[string]any)
		addr := strings.TrimPrefix(f.Note, "address=")
		found := false
		for _, fact := range details["facts"].([]any) {
			fact := fact.(map[string]any)
			if fact["address"] != addr {
				continue
			}
			found = true
			v, err := json.Marshal(fact)
			require.NoError(t, err)
			assert.Contains(t, string(v), f.Term)
			want := map[string]string{"branchUser": "user", "fabricOperation": "operation", "fabricRun": "fabricRun"}[f.Role]
			assert.Equal(t, want, fact["kind"])
		}
		assert.True(t, found, "fact %s not in the envelope", addr)
	case "subagent-term":
		assert.Equal(t, "assistant", msg["role"])
		assert.Contains(t, strings.Join(contentText(msg, "text"), ""), f.Term)
		assert.NotEmpty(t, header.str("parentSession"))
		assert.GreaterOrEqual(t, strings.Count(f.Path, "/"), 3, "subagent files live in an artifacts dir: %s", f.Path)
	default:
		t.Fatalf("unknown kind %q", f.Kind)
	}
}

// checkOperationFact finds the operation a fact names in the trace of a
// fabric_exec result and checks its ref, outcome and the field with the
// term.
func checkOperationFact(t *testing.T, f corpus.Fact, msg map[string]any) {
	assert.Equal(t, "fabric_exec", msg["toolName"])
	details, _ := msg["details"].(map[string]any)
	trace, _ := details["trace"].(map[string]any)
	addr, field, _ := strings.Cut(strings.TrimPrefix(f.Note, "address="), " field=")
	entryID, seq, _ := strings.Cut(addr, "/")
	assert.Equal(t, f.EntryID, entryID)
	found := false
	for _, op := range trace["operations"].([]any) {
		op := op.(map[string]any)
		if jsNum(op["sequence"]) != seq {
			continue
		}
		found = true
		assert.Equal(t, f.Ref, op["ref"])
		assert.Equal(t, f.Outcome, op["outcome"])
		_, action, _ := strings.Cut(f.Ref, ".")
		assert.Equal(t, action, f.Tool)
		v, err := json.Marshal(op[field])
		require.NoError(t, err)
		assert.Contains(t, string(v), f.Term, "field %s", field)
	}
	assert.True(t, found, "operation %s not in the trace", addr)
}

// entryText is the text of an entry in the order memidx reads it: all
// thinking and text blocks, a tool output, a command output, a custom
// message or a summary.
func entryText(e *record) string {
	msg := e.msg()
	switch e.str("type") {
	case "custom_message":
		return strings.Join(contentText(e.obj, "text"), "\n")
	case "compaction":
		return e.str("summary")
	case "message":
	default:
		return ""
	}
	switch msg["role"] {
	case "assistant":
		var parts []string
		for _, b := range msg["content"].([]any) {
			b := b.(map[string]any)
			switch b["type"] {
			case "thinking":
				parts = append(parts, b["thinking"].(string))
			case "text":
				parts = append(parts, b["text"].(string))
			}
		}
		return strings.Join(parts, "\n")
	case "bashExecution":
		return msg["output"].(string)
	case "toolResult":
		if msg["toolName"] == "fabric_exec" {
			return ""
		}
	}
	return strings.Join(contentText(msg, "text"), "\n")
}

// jsNum formats a decoded JSON number as JavaScript prints an integer.
func jsNum(v any) string {
	f, _ := v.(float64)
	return strconv.FormatFloat(f, 'f', -1, 64)
}

// TestSessions validates every file of the small corpus against the OMP
// format: the slot, the header, the tree, usage with cost, paired tool calls,
// Fabric traces and envelopes, and the manifest's claims.
func TestSessions(t *testing.T) {
	dir, m := small(t)
	var top, sub, branched int
	var total int64
	mtimes := map[time.Time]bool{}
	buckets := map[string]bool{}
	for _, s := range m.Sessions {
		t.Run(s.Path, func(t *testing.T) { checkSession(t, dir, s) })
		total += s.Bytes
		if s.Parent == "" {
			top++
			buckets[s.Bucket] = true
		} else {
			sub++
		}
		if s.Branched {
			branched++
		}
		assert.False(t, mtimes[s.Mtime], "mtime %v shared", s.Mtime)
		mtimes[s.Mtime] = true
		assert.True(t, s.Mtime.After(time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)) && s.Mtime.Before(time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC)), "mtime %v", s.Mtime)
	}
	if os.Getenv("MEMIDX_CORPUS_CHECK") == "" {
		assert.Equal(t, 20, top)
	}
	assert.NotZero(t, sub, "no subagent sessions")
	assert.NotZero(t, branched, "no branched sessions")
	assert.Equal(t, total, m.TotalBytes)
	assert.Greater(t, len(buckets), 3)

	var onDisk []string
	require.NoError(t, filepath.WalkDir(filepath.Join(dir, "sessions"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			onDisk = append(onDisk, filepath.ToSlash(rel))
		}
		return err
	}))
	var listed []string
	for _, s := range m.Sessions {
		listed = append(listed, s.Path)
	}
	sort.Strings(listed)
	sort.Strings(onDisk)
	assert.Equal(t, listed, onDisk)

	data, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	require.NoError(t, err)
	var back corpus.Manifest
	require.NoError(t, json.Unmarshal(data, &back))
	assert.Equal(t, *m, back)
}

var (
	hex8   = regexp.MustCompile(`^[0-9a-f]{8}$`)
	uuidRE = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	nameRE = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z_(.+)\.jsonl$`)
)

// bucketFor is OMP's current bucket name for a cwd, with home /home/dev.
func bucketFor(cwd string) string {
	enc := strings.NewReplacer("/", "-", `\`, "-", ":", "-")
	switch {
	case cwd == "/home/dev":
		return "-"
	case strings.HasPrefix(cwd, "/home/dev/"):
		return "-" + enc.Replace(strings.TrimPrefix(cwd, "/home/dev/"))
	case strings.HasPrefix(cwd, "/tmp/"):
		return "-tmp-" + enc.Replace(strings.TrimPrefix(cwd, "/tmp/"))
	}
	return "--" + enc.Replace(strings.TrimPrefix(cwd, "/")) + "--"
}

func checkSession(t *testing.T, dir string, s corpus.SessionInfo) {
	full := filepath.Join(dir, filepath.FromSlash(s.Path))
	st, err := os.Stat(full)
	require.NoError(t, err)
	assert.Equal(t, s.Bytes, st.Size())
	assert.True(t, s.Mtime.Equal(st.ModTime()), "mtime %v on disk, %v in manifest", st.ModTime(), s.Mtime)

	slot, header, entries := readSession(t, full)

	// Path and bucket.
	parts := strings.Split(s.Path, "/")
	assert.Equal(t, "sessions", parts[0])
	assert.Equal(t, s.Bucket, parts[1])
	legacy := "--" + strings.NewReplacer("/", "-").Replace(strings.TrimPrefix(s.Cwd, "/")) + "--"
	assert.Contains(t, []string{bucketFor(s.Cwd), legacy}, s.Bucket)
	if s.Parent == "" {
		require.Len(t, parts, 3)
		mm := nameRE.FindStringSubmatch(parts[2])
		require.NotNil(t, mm, parts[2])
		assert.Equal(t, s.ID, mm[1])
		assert.Regexp(t, uuidRE, s.ID)
		assert.Empty(t, header.str("parentSession"))
	} else {
		assert.True(t, strings.HasPrefix(s.Path, strings.TrimSuffix(s.Parent, ".jsonl")+"/"), "%s not under %s", s.Path, s.Parent)
		assert.Equal(t, "/home/dev/.omp/agent/"+s.Parent, header.str("parentSession"))
		assert.Equal(t, "session_init", entries[0].str("type"))
	}

	// Title slot: exactly 256 bytes with the newline, keys in OMP's order.
	assert.Len(t, slot+"\n", 256)
	var so map[string]any
	require.NoError(t, json.Unmarshal([]byte(slot), &so))
	assert.Equal(t, "title", so["type"])
	assert.Equal(t, 1.0, so["v"])
	assert.Regexp(t, `^\{"type":"title","v":1,"title":".*?",("source":"(auto|user)",)?"updatedAt":"[^"]+","pad":" *"\}$`, slot)
	if title, ok := header.obj["title"]; ok {
		assert.Equal(t, title, so["title"])
	} else {
		assert.Equal(t, "", so["title"])
	}

	// Header.
	assert.True(t, strings.HasPrefix(header.raw, `{"type":"session","version":3,"id":`), header.raw)
	assert.Equal(t, s.ID, header.str("id"))
	assert.Equal(t, s.Cwd, header.str("cwd"))
	_, err = time.Parse(time.RFC3339Nano, header.str("timestamp"))
	assert.NoError(t, err)

	// Entries: JavaScript's JSON.stringify form, ids, parents, timestamps.
	assert.Equal(t, s.Entries, len(entries))
	assert.Equal(t, s.Leaf, entries[len(entries)-1].str("id"))
	seen := map[string]bool{}
	calls := map[string]string{}   // toolCall id -> name
	results := map[string]string{} // toolCallId -> name
	for _, e := range entries {
		v, err := jsjson.Parse([]byte(e.raw))
		require.NoError(t, err)
		assert.Equal(t, e.raw, jsjson.Stringify(v), "not in JSON.stringify form")
		id := e.str("id")
		assert.Regexp(t, hex8, id)
		assert.False(t, seen[id], "duplicate id %s", id)
		if p, ok := e.obj["parentId"].(string); ok {
			assert.True(t, seen[p], "parent %s of %s not written before it", p, id)
		} else {
			assert.Nil(t, e.obj["parentId"])
			assert.Empty(t, seen, "second root %s", id)
		}
		seen[id] = true
		ts, err := time.Parse("2006-01-02T15:04:05.000Z", e.str("timestamp"))
		assert.NoError(t, err)
		assert.False(t, ts.After(s.Mtime), "entry after the mtime")
		checkEntry(t, e, seen, calls, results)
	}
	assert.Equal(t, calls, results, "tool calls and results pair up")

	on := activePath(entries)
	assert.Equal(t, s.Branched, len(on) < len(entries), "branched")
	var sawModel, sawThinking bool
	for _, e := range entries {
		sawModel = sawModel || e.str("type") == "model_change"
		sawThinking = sawThinking || e.str("type") == "thinking_level_change"
	}
	assert.True(t, sawModel && sawThinking)
}

func checkEntry(t *testing.T, e record, seen map[string]bool, calls, results map[string]string) {
	switch e.str("type") {
	case "message":
		msg := e.msg()
		require.NotNil(t, msg)
		switch msg["role"] {
		case "assistant":
			checkUsage(t, msg["usage"])
			assert.Contains(t, []any{"stop", "toolUse", "error", "aborted", "length"}, msg["stopReason"])
			for _, b := range msg["content"].([]any) {
				b := b.(map[string]any)
				switch b["type"] {
				case "toolCall":
					assert.IsType(t, map[string]any{}, b["arguments"])
					calls[b["id"].(string)] = b["name"].(string)
				case "thinking":
					assert.NotEmpty(t, b["thinkingSignature"])
				}
			}
		case "toolResult":
			id := msg["toolCallId"].(string)
			_, dup := results[id]
			assert.False(t, dup, "second result for %s", id)
			assert.Contains(t, calls, id, "result before its call")
			results[id] = msg["toolName"].(string)
			assert.IsType(t, true, msg["isError"])
			details, _ := msg["details"].(map[string]any)
			switch msg["toolName"] {
			case "fabric_exec":
				checkFabricDetails(t, details)
			case "task":
				checkUsage(t, details["usage"])
			case "bash":
				_, hasExit := details["exitCode"]
				assert.Equal(t, msg["isError"], hasExit, "bash exitCode only on failure")
			}
		case "user", "bashExecution":
		default:
			t.Errorf("role %v", msg["role"])
		}
	case "model_usage":
		checkUsage(t, e.obj["usage"])
	case "compaction":
		assert.True(t, seen[e.str("firstKeptEntryId")], "firstKeptEntryId %q", e.str("firstKeptEntryId"))
		assert.NotEmpty(t, e.str("summary"))
	case "label":
		assert.True(t, seen[e.str("targetId")])
	case "branch_summary":
		assert.Equal(t, e.obj["parentId"], e.obj["fromId"])
		if details, _ := e.obj["details"].(map[string]any); details["kind"] == "omp-fabric.branch-summary" {
			checkEnvelope(t, details)
		}
	case "custom", "custom_message":
		assert.NotEmpty(t, e.str("customType"))
		assert.True(t, strings.HasSuffix(e.raw, `"parentId":`+jsonString(e.obj["parentId"])+`,"timestamp":"`+e.str("timestamp")+`"}`), "id, parentId, timestamp last")
	}
}

func jsonString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func checkUsage(t *testing.T, v any) {
	u, ok := v.(map[string]any)
	require.True(t, ok, "usage %v", v)
	for _, k := range []string{"input", "output", "cacheRead", "cacheWrite", "totalTokens"} {
		assert.IsType(t, 0.0, u[k], k)
	}
	cost, ok := u["cost"].(map[string]any)
	require.True(t, ok, "usage without cost")
	assert.IsType(t, 0.0, cost["total"])
}

// keys asserts that m has exactly the allowed keys and all the required.
func keys(t *testing.T, what string, m map[string]any, required, optional string) {
	t.Helper()
	allowed := map[string]bool{}
	for _, k := range strings.Fields(required) {
		allowed[k] = true
		assert.Contains(t, m, k, "%s lacks %s", what, k)
	}
	for _, k := range strings.Fields(optional) {
		allowed[k] = true
	}
	for k := range m {
		assert.True(t, allowed[k], "%s has extra key %s", what, k)
	}
}

func safeInt(t *testing.T, v any) int {
	f, ok := v.(float64)
	require.True(t, ok && f >= 0 && f == float64(int64(f)) && f <= 1<<53-1, "not a safe integer >= 0: %v", v)
	return int(f)
}

// checkFabricDetails applies readFabricExecutionTraceV1's guard.
func checkFabricDetails(t *testing.T, d map[string]any) {
	keys(t, "details", d, "success trace audits phases", "error")
	tr := d["trace"].(map[string]any)
	keys(t, "trace", tr, "kind version outcome phases operations counts", "error")
	assert.Equal(t, "omp-fabric.execution", tr["kind"])
	assert.Equal(t, 1.0, tr["version"])
	outcomes := []any{"succeeded", "failed", "aborted", "timed_out"}
	assert.Contains(t, outcomes, tr["outcome"])
	assert.Equal(t, tr["outcome"] == "succeeded", d["success"])
	counts := tr["counts"].(map[string]any)
	keys(t, "counts", counts, "droppedValues truncatedValues redactedValues droppedOperations", "")
	for _, v := range counts {
		safeInt(t, v)
	}
	last := -1
	for _, op := range tr["operations"].([]any) {
		op := op.(map[string]any)
		keys(t, "operation", op, "type sequence ref args outcome", "provider action failureStage error result resultTruncated")
		assert.Equal(t, "call", op["type"])
		seq := safeInt(t, op["sequence"])
		assert.Greater(t, seq, last, "sequences strictly increase")
		last = seq
		assert.Contains(t, outcomes, op["outcome"])
		if st, ok := op["failureStage"]; ok {
			assert.Contains(t, []any{"resolve", "prepare", "validate", "approve", "invoke", "guard"}, st)
		}
		assert.IsType(t, map[string]any{}, op["args"])
	}
	raw, _ := json.Marshal(tr)
	assert.Less(t, len(raw), 512<<10)
}

// checkEnvelope applies the FabricBranchSummaryDetailsV2 validation.
func checkEnvelope(t *testing.T, d map[string]any) {
	keys(t, "envelope", d, "kind version source facts omittedFacts sections request", "")
	assert.Equal(t, 2.0, d["version"])
	src := d["source"].(map[string]any)
	keys(t, "source", src, "firstEntryId lastEntryId entryCount", "oldLeafId")
	safeInt(t, src["entryCount"])
	safeInt(t, d["omittedFacts"])
	req := d["request"].(map[string]any)
	keys(t, "request", req, "text sourceBytes truncated", "")
	safeInt(t, req["sourceBytes"])
	facts := d["facts"].([]any)
	assert.LessOrEqual(t, len(facts), 256)
	assert.LessOrEqual(t, len(d["sections"].([]any)), 64)
	addrs := map[string]bool{}
	for _, f := range facts {
		f := f.(map[string]any)
		base := "kind entryId subordinal address"
		switch f["kind"] {
		case "user":
			keys(t, "user fact", f, base+" text", "")
		case "customMessage":
			keys(t, "customMessage fact", f, base+" customType text display", "details")
		case "phase":
			keys(t, "phase fact", f, base+" phase", "")
		case "operation":
			keys(t, "operation fact", f, base+" ref tool args outcome", "provider action error result")
		case "fabricRun":
			keys(t, "fabricRun fact", f, base+" name outcome", "description")
			assert.True(t, strings.HasPrefix(f["subordinal"].(string), "call:") && len(f["subordinal"].(string)) > 5)
		default:
			t.Errorf("fact kind %v", f["kind"])
		}
		addr := f["address"].(string)
		assert.Equal(t, f["entryId"].(string)+"/"+f["subordinal"].(string), addr)
		assert.False(t, addrs[addr], "duplicate address %s", addr)
		addrs[addr] = true
	}
	raw, _ := json.Marshal(d)
	assert.Less(t, len(raw), 128<<10)
}

func hashTree(t *testing.T, dir string) map[string]string {
	out := map[string]string{}
	require.NoError(t, filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		st, err := os.Stat(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		sum := sha256.Sum256(data)
		out[filepath.ToSlash(rel)] = hex.EncodeToString(sum[:])
		if strings.HasSuffix(p, ".jsonl") {
			out[filepath.ToSlash(rel)] += " " + st.ModTime().UTC().String()
		}
		return nil
	}))
	return out
}

func TestGenerate_Deterministic(t *testing.T) {
	opt := corpus.Options{Sessions: 12, Seed: 42, Scale: 0.05, Projects: 5}
	a, b := t.TempDir(), t.TempDir()
	opt.Out = a
	_, err := corpus.Generate(opt)
	require.NoError(t, err)
	opt.Out = b
	_, err = corpus.Generate(opt)
	require.NoError(t, err)
	ha, hb := hashTree(t, a), hashTree(t, b)
	assert.Greater(t, len(ha), 12)
	assert.Equal(t, ha, hb)

	opt.Out, opt.Seed = t.TempDir(), 43
	_, err = corpus.Generate(opt)
	require.NoError(t, err)
	assert.NotEqual(t, ha["manifest.json"], hashTree(t, opt.Out)["manifest.json"])
}

func TestGenerate_Errors(t *testing.T) {
	_, err := corpus.Generate(corpus.Options{Sessions: 0, Out: t.TempDir()})
	assert.Error(t, err)
	_, err = corpus.Generate(corpus.Options{Sessions: 1})
	assert.Error(t, err)
	dir := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(dir, "sessions"), 0o755))
	_, err = corpus.Generate(corpus.Options{Sessions: 1, Out: dir})
	assert.ErrorContains(t, err, "already exists")
}

// TestGenerate_Size measures a sample at full scale and extrapolates the
// size of Sessions=2000.
func TestGenerate_Size(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("generates about 45 MB; it measures, and races nothing the other tests do not")
	}
	const n = 100
	start := time.Now()
	m, err := corpus.Generate(corpus.Options{Sessions: n, Seed: 3, Out: t.TempDir()})
	require.NoError(t, err)
	var sizes []int64
	for _, s := range m.Sessions {
		if s.Parent == "" {
			sizes = append(sizes, s.Bytes)
		}
	}
	sort.Slice(sizes, func(i, j int) bool { return sizes[i] < sizes[j] })
	t.Logf("%d sessions (%d files): %.1f MB in %v; sizes min %d, median %d, p90 %d, max %d; 2000 sessions ≈ %.2f GB",
		n, len(m.Sessions), float64(m.TotalBytes)/1e6, time.Since(start), sizes[0], sizes[n/2], sizes[n*9/10], sizes[n-1],
		float64(m.TotalBytes)/n*2000/1e9)
	assert.Less(t, sizes[0], int64(12e3), "smallest session")
	assert.Greater(t, sizes[n-1], int64(2e6), "largest session")
}

// TestGenerate_Out writes a corpus where MEMIDX_CORPUS_OUT says, with
// MEMIDX_CORPUS_SESSIONS sessions (default 2000), seed MEMIDX_CORPUS_SEED
// (default 1) and scale MEMIDX_CORPUS_SCALE (default 1), and logs its size
// and the time taken. It is skipped when MEMIDX_CORPUS_OUT is unset:
//
//	MEMIDX_CORPUS_OUT=/tmp/corpus-2000 go test -run TestGenerate_Out -v ./internal/corpus/
func TestGenerate_Out(t *testing.T) {
	out := os.Getenv("MEMIDX_CORPUS_OUT")
	if out == "" {
		t.Skip("MEMIDX_CORPUS_OUT is unset")
	}
	opt := corpus.Options{Out: out, Sessions: 2000, Seed: 1, Scale: 1}
	if v := os.Getenv("MEMIDX_CORPUS_SESSIONS"); v != "" {
		n, err := strconv.Atoi(v)
		require.NoError(t, err)
		opt.Sessions = n
	}
	if v := os.Getenv("MEMIDX_CORPUS_SEED"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		require.NoError(t, err)
		opt.Seed = n
	}
	if v := os.Getenv("MEMIDX_CORPUS_SCALE"); v != "" {
		f, err := strconv.ParseFloat(v, 64)
		require.NoError(t, err)
		opt.Scale = f
	}
	start := time.Now()
	m, err := corpus.Generate(opt)
	require.NoError(t, err)
	took := time.Since(start)
	kinds := map[string]int{}
	for _, f := range m.Facts {
		kinds[f.Kind]++
	}
	var sizes []int64
	subs, branched := 0, 0
	for _, s := range m.Sessions {
		if s.Parent != "" {
			subs++
			continue
		}
		if s.Branched {
			branched++
		}
		sizes = append(sizes, s.Bytes)
	}
	sort.Slice(sizes, func(i, j int) bool { return sizes[i] < sizes[j] })
	n := len(sizes)
	t.Logf("%s: %d sessions + %d subagent sessions, %d branched; total %d bytes (%.3f GB) in %v",
		out, n, subs, branched, m.TotalBytes, float64(m.TotalBytes)/1e9, took)
	t.Logf("top-level sizes: min %d, p10 %d, median %d, p90 %d, p99 %d, max %d",
		sizes[0], sizes[n/10], sizes[n/2], sizes[n*9/10], sizes[n*99/100], sizes[n-1])
	t.Logf("%d facts: %v", len(m.Facts), kinds)
}

func ExampleGenerate() {
	dir, err := os.MkdirTemp("", "corpus-example-")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	m, err := corpus.Generate(corpus.Options{Sessions: 3, Seed: 1, Out: dir, Scale: 0.02})
	if err != nil {
		panic(err)
	}
	for _, s := range m.Sessions {
		fmt.Println(s.Path, s.Entries)
	}
	f := m.Facts[0]
	fmt.Println(f.Kind, f.Term, f.Role, f.Branch)
	// Output:
	// sessions/-src-ledger-api/2026-05-02T08-26-00-657Z_019de7cb-6851-7bec-a5fe-0e4b7c245c4a.jsonl 24
	// sessions/-src-webshop/2026-03-21T12-45-54-798Z_019d106e-42ee-79b0-a3c0-7ac39302c805.jsonl 13
	// sessions/-work-kvstore/2026-03-28T22-52-55-496Z_019d36a6-8348-766a-8a8a-ed3ea86e661e.jsonl 17
	// term zqxaaaaaa user active
}
