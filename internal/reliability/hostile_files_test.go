//go:build unix

package reliability

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// writeRaw writes a session file with exactly content.
func (w *world) writeRaw(id string, content []byte) string {
	return w.writeSession(id, content)
}

// lines joins lines with "\n" and ends with one.
func lines(ls ...string) []byte { return []byte(strings.Join(ls, "\n") + "\n") }

// mustRun runs a command that must end cleanly within the timeout.
func (w *world) mustRun(t *testing.T, o runOpts, args ...string) result {
	t.Helper()
	r := w.run(o, args...)
	clean(t, r)
	return r
}

// walkClean checks `walk`, which prints one JSON value per line.
func (w *world) walkClean(t *testing.T, o runOpts, req string) {
	t.Helper()
	r := w.run(o, "walk", req)
	switch {
	case r.timedOut:
		t.Errorf("walk hangs\n%s", r)
	case bytes.Contains(r.stderr, []byte("panic:")) || bytes.Contains(r.stderr, []byte("goroutine ")):
		t.Errorf("walk panics\n%s", r)
	case r.code != 0 && r.code != 1 && r.code != 2:
		t.Errorf("walk exit %d\n%s", r.code, r)
	default:
		sc := bufio.NewScanner(bytes.NewReader(r.stdout))
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			if !json.Valid(sc.Bytes()) {
				t.Errorf("walk printed a line that is not JSON: %s", clip(sc.Bytes(), 200))
				return
			}
		}
	}
}

// probe runs the single-session read commands over one session file:
// recall of term (and a browse of every branch), expand (metadata, then
// the first entries), walk (of sessions small enough: see
// TestHostileWalkLargeSession), inspect lineage and entries. Each must end
// cleanly within the timeout. It returns the session-scope recall.
func (w *world) probe(t *testing.T, path, term string, timeout time.Duration) recallOut {
	t.Helper()
	o := runOpts{timeout: timeout}
	var out recallOut
	if r := w.mustRun(t, o, "recall", "-q", term, "--scope", "session:"+path); r.code == 0 {
		out = decodeRecall(t, r)
	}
	w.mustRun(t, o, "recall", "--scope", "session:"+path, "--branches", "all")
	meta := w.mustRun(t, o, "expand", fmt.Sprintf(`{"session":%s}`, jsString(path)))
	var x expandOut
	if meta.code == 0 && json.Unmarshal(meta.stdout, &x) == nil && x.EntryCount != nil && *x.EntryCount > 0 {
		last := min(*x.EntryCount, 20) - 1
		w.mustRun(t, o, "expand", fmt.Sprintf(`{"session":%s,"entryRange":{"first":0,"last":%d}}`, jsString(path), last))
		if *x.EntryCount <= 500 {
			w.walkClean(t, o, fmt.Sprintf(`{"session":%s,"maxChars":100}`, jsString(path)))
		}
	}
	w.mustRun(t, o, "inspect", "lineage", path)
	w.mustRun(t, o, "inspect", "entries", path, "--branches", "all")
	return out
}

// probeGlobal recalls term over every session, follows the first hit and
// lists the sessions; it returns the recall.
func (w *world) probeGlobal(t *testing.T, term string, timeout time.Duration) recallOut {
	t.Helper()
	o := runOpts{timeout: timeout}
	var out recallOut
	if r := w.mustRun(t, o, "recall", "-q", term, "--scope", "global"); r.code == 0 {
		out = decodeRecall(t, r)
		if len(out.Hits) > 0 && out.Hits[0].Follow != nil {
			w.mustRun(t, o, "call", mustJSON(out.Hits[0].Follow))
		}
	}
	w.mustRun(t, o, "sessions", `{"scope":"global","branches":"all"}`)
	return out
}

// sessionReasons returns the coverage reasons memory.sessions gives the
// session at path; for a file that is not a session (no header), the
// error code that refuses it.
func (w *world) sessionReasons(t *testing.T, path, branches string) []string {
	t.Helper()
	r := w.mustRun(t, runOpts{}, "sessions", fmt.Sprintf(`{"scope":%s,"branches":%q}`, jsString("session:"+path), branches))
	var res struct {
		Sessions []struct {
			Reasons []string `json:"reasons"`
		} `json:"sessions"`
		Error *errOut `json:"error"`
	}
	require.NoError(t, json.Unmarshal(r.stdout, &res), "%s", r)
	if res.Error != nil {
		assert.Equal(t, "session_not_found", res.Error.Code, "%s", r)
		assert.Contains(t, res.Error.Message, "not an OMP session file", "%s", r)
		return []string{res.Error.Code}
	}
	require.Len(t, res.Sessions, 1, "%s", r)
	return res.Sessions[0].Reasons
}

// TestHostileMalformedAndTornLines feeds sessions full of lines OMP would
// drop (not JSON, not objects, wrong field types, unknown types, a second
// header, an unparseable number) and files that are torn, empty, headless,
// of unknown version, with a BOM or CRLF. Every read command ends cleanly;
// valid lines stay findable; the torn tail is not indexed; the coverage
// names what was dropped.
func TestHostileMalformedAndTornLines(t *testing.T) {
	t.Parallel()
	seeded(t)
	w := newWorld(t)
	ts := tsAt(1)
	main := w.writeRaw("s-malformed", []byte(strings.Join([]string{
		headerLine("s-malformed", w.project),
		msgLine("u1", "", ts, userMsg("alpha zqvalidone")),
		"{not json",
		"",
		"   ",
		"null",
		"42",
		`"a string"`,
		"[1,2,3]",
		`{"type":"message"}`,
		`{"type":"message","id":"x1","parentId":"u1","message":5}`,
		`{"type":"message","id":"x2","parentId":"u1","message":{"role":"assistant","content":5}}`,
		`{"type":"message","id":"x3","parentId":"u1","message":{"role":"assistant","content":[{"type":"text","text":5},{"type":"toolCall","name":7,"arguments":"notobj"},null,3,{"type":"thinking"}]}}`,
		`{"type":"message","id":7,"parentId":{"a":1},"message":{"role":"user","content":"numeric id"}}`,
		`{"type":"message","id":"x4","parentId":"u1","timestamp":"not a date","message":{"role":"user","content":[{"type":"text","text":"zqvalidtwo"}]}}`,
		`{"type":"message","id":"x5","parentId":"x4","timestamp":1e400,"message":{"role":"user","content":"overflow"}}`,
		`{"type":"message","id":"x6","parentId":"x4","timestamp":-1e308,"message":{"role":"toolResult","toolCallId":null,"content":null,"details":[]}}`,
		`{"type":"unknown_type","id":"x7","parentId":"x6"}`,
		`{"type":"compaction","id":"x8","parentId":"x6","summary":5,"firstKeptEntryId":{}}`,
		`{"type":"session","id":"again","version":3}`,
		`{"type":"message","id":"x9","parentId":"x6","message":{"role":"assistant","content":[{"type":"text","text":"zqvalidthree"}],"stopReason":"stop"}}`,
		`{"type":"message","id":"x10","parentId":"x9","message":{"role":"user","content":"zqtornterm`,
	}, "\n")))
	others := map[string][]byte{
		"s-torn-header": []byte(`{"type":"sess`),
		"s-empty":       {},
		"s-newline":     []byte("\n\n\n"),
		"s-headless":    lines(msgLine("u1", "", ts, userMsg("no header"))),
		"s-badversion":  lines(`{"type":"session","version":"abc","id":"s-badversion"}`, msgLine("u1", "", ts, userMsg("bad version"))),
		"s-future":      lines(`{"type":"session","version":99,"id":"s-future"}`, msgLine("u1", "", ts, userMsg("future version"))),
		"s-bom":         append([]byte("\ufeff"), lines(headerLine("s-bom", w.project), msgLine("u1", "", ts, userMsg("zqbomterm")))...),
		"s-crlf":        []byte(headerLine("s-crlf", w.project) + "\r\n" + msgLine("u1", "", ts, userMsg("zqcrlfterm")) + "\r\n"),
		"s-header-only": lines(headerLine("s-header-only", w.project)),
	}
	paths := map[string]string{}
	for id, b := range others {
		paths[id] = w.writeRaw(id, b)
	}

	for _, term := range []string{"zqvalidone", "zqvalidtwo", "zqvalidthree"} {
		got := w.probeGlobal(t, term, 20*time.Second)
		assert.Equal(t, 1, got.Total, "%s is on the active branch of valid lines", term)
	}
	assert.Zero(t, w.probeGlobal(t, "zqtornterm", 20*time.Second).Total, "a torn tail is not indexed")
	assert.Equal(t, 1, w.probe(t, main, "zqvalidtwo", 20*time.Second).Total)
	reasons := w.sessionReasons(t, main, "active")
	assert.Contains(t, reasons, "malformed_line")
	assert.Contains(t, reasons, "torn_tail")
	assert.Equal(t, 2, w.probeGlobal(t, "zqbomterm zqcrlfterm", 20*time.Second).Total, "a BOM and CRLF lines are read")
	for id, p := range paths {
		w.probe(t, p, "zqbomterm zqcrlfterm", 20*time.Second)
		t.Logf("%s: reasons %v", id, w.sessionReasons(t, p, "active"))
	}
	t.Logf("hostile lines tried: %d in one session, %d odd files", 21, len(others))
}

// writeHugeLine writes a session whose one message line holds a text of
// about size bytes (streamed, never held in memory), ending with tail.
func (w *world) writeHugeLine(id string, size int, tail string) string {
	p := w.sessionPath(id)
	f, err := os.Create(p)
	require.NoError(w.t, err)
	bw := bufio.NewWriterSize(f, 1<<20)
	bw.WriteString(headerLine(id, w.project) + "\n")
	bw.WriteString(`{"type":"message","id":"u1","parentId":null,"timestamp":"2026-09-01T10:00:01.000Z","message":{"role":"user","content":"`)
	chunk := strings.Repeat("lorem ipsum dolor sit amet ", 2000)
	for n := 0; n < size; n += len(chunk) {
		bw.WriteString(chunk)
	}
	bw.WriteString(tail + `"}}` + "\n")
	require.NoError(w.t, bw.Flush())
	require.NoError(w.t, f.Close())
	return p
}

// TestHostileHugeSingleLine: a 100 MB single line is read in bounded time
// and memory (peak RSS by /usr/bin/time -v when present), its term beyond
// the hot truncation is reported as not authoritative (max_entry_chars),
// and expanding it answers within the 30,000-unit envelope with a next.
func TestHostileHugeSingleLine(t *testing.T) {
	t.Parallel()
	seeded(t)
	w := newWorld(t)
	p := w.writeHugeLine("s-huge", 100<<20, " zqhugeneedle")
	_, err := os.Stat("/usr/bin/time")
	timeV := err == nil
	o := runOpts{timeout: 90 * time.Second, timeV: timeV}

	r := w.mustRun(t, o, "recall", "-q", "zqhugeneedle", "--scope", "global")
	require.Zero(t, r.code, "%s", r)
	got := decodeRecall(t, r)
	t.Logf("100 MB line: recall %v, peak RSS %d MB", r.dur.Round(time.Millisecond), r.maxRSSKB/1024)
	assert.Less(t, r.dur, 60*time.Second)
	if timeV {
		assert.Less(t, r.maxRSSKB, int64(1<<20), "peak RSS under 1 GiB for a 100 MB line")
	} else {
		t.Log("/usr/bin/time is missing: memory not measured")
	}
	if got.Total == 0 {
		assert.False(t, got.Coverage.Complete, "a miss beyond the hot truncation is not authoritative")
		assert.Contains(t, got.Coverage.Reasons, "max_entry_chars")
	}

	r = w.mustRun(t, o, "expand", fmt.Sprintf(`{"session":%s,"indices":[0],"maxChars":24000}`, jsString(p)))
	require.Zero(t, r.code, "%s", r)
	assert.LessOrEqual(t, len(r.stdout), 30000+2, "the expansion keeps to the envelope")
	var x expandOut
	require.NoError(t, json.Unmarshal(r.stdout, &x))
	require.Len(t, x.Entries, 1)
	assert.NotNil(t, x.Next, "the rest of the text is a next away")
	t.Logf("expand of the 100 MB entry: %v, peak RSS %d MB", r.dur.Round(time.Millisecond), r.maxRSSKB/1024)

	r = w.mustRun(t, o, "recall", "-q", "zqhugeneedle", "--scope", "session:"+p)
	require.Zero(t, r.code, "%s", r)
	got = decodeRecall(t, r)
	t.Logf("single-session recall: %v, peak RSS %d MB, total %d, reasons %v", r.dur.Round(time.Millisecond), r.maxRSSKB/1024, got.Total, got.Coverage.Reasons)
	if got.Total == 0 {
		assert.Contains(t, got.Coverage.Reasons, "max_entry_chars", "a miss in truncated hot text says so")
	}
}

// TestHostileDeepNesting: values nested 100,000 levels deep (arrays and
// objects, in content, tool arguments, details, a whole line, and an
// unbalanced one) end cleanly in bounded time.
func TestHostileDeepNesting(t *testing.T) {
	t.Parallel()
	seeded(t)
	w := newWorld(t)
	const depth = 100000
	arr := strings.Repeat("[", depth) + strings.Repeat("]", depth)
	obj := strings.Repeat(`{"a":`, depth) + "1" + strings.Repeat("}", depth)
	ts := tsAt(1)
	p := w.writeRaw("s-deep", lines(
		headerLine("s-deep", w.project),
		msgLine("u1", "", ts, userMsg("zqdeepstart")),
		msgLine("u2", "u1", ts, `{"role":"user","content":`+arr+`}`),
		msgLine("a1", "u2", ts, `{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"bash","arguments":`+obj+`}],"stopReason":"toolUse"}`),
		msgLine("r1", "a1", ts, `{"role":"toolResult","toolCallId":"c1","toolName":"bash","content":[{"type":"text","text":"out"}],"details":`+arr+`}`),
		arr,
		obj,
		strings.Repeat("[", depth),
		msgLine("a2", "r1", ts, assistantMsg("zqdeepend")),
	))
	start := time.Now()
	assert.Equal(t, 1, w.probeGlobal(t, "zqdeepend", 60*time.Second).Total)
	w.probe(t, p, "zqdeepend", 60*time.Second)
	t.Logf("100,000-level nesting: every command in %v", time.Since(start).Round(time.Millisecond))
}

// TestHostileInvalidUTF8 puts invalid UTF-8 (stray continuation bytes,
// overlong forms, encoded surrogates, cut sequences) and lone surrogate
// escapes in texts, ids, the header and the queries. Output stays valid
// JSON.
func TestHostileInvalidUTF8(t *testing.T) {
	t.Parallel()
	seeded(t)
	w := newWorld(t)
	ts := tsAt(1)
	bad := "\xff\xfe \xc0\xaf \xed\xa0\x80 \xe2\x82"
	p := w.writeRaw("s-utf8", []byte(strings.Join([]string{
		`{"type":"session","version":3,"id":"s-utf8` + bad + `","timestamp":"2026-09-01T10:00:00.000Z","cwd":"` + w.project + bad + `"}`,
		`{"type":"message","id":"u1` + bad + `","parentId":null,"timestamp":"` + ts + `","message":{"role":"user","content":"zqutfone ` + bad + `"}}`,
		`{"type":"message","id":"u2","parentId":"u1` + bad + `","timestamp":"` + ts + `","message":{"role":"user","content":"zqutftwo \ud800 \udfff x\ud83d"}}`,
		`{"type":"message","id":"u3","parentId":"u2","timestamp":"` + ts + `","message":{"role":"assistant","content":[{"type":"text","text":"zqutfthree ` + "\xe2\x82" + `"}]}}`,
	}, "\n")))
	for _, term := range []string{"zqutfone", "zqutftwo", "zqutfthree"} {
		assert.Equal(t, 1, w.probeGlobal(t, term, 20*time.Second).Total, term)
	}
	w.probe(t, p, "zqutfone", 20*time.Second)
	for _, q := range []string{bad, "zqutfone" + bad, "\xed\xa0\x80"} {
		r := w.mustRun(t, runOpts{}, "recall", "-q", q, "--scope", "global")
		assert.True(t, json.Valid(r.stdout))
	}
	for _, raw := range []string{`{"query":"\ud800"}`, `{"query":"zqutftwo \udfff"}`, "{\"query\":\"\xff\"}", `{"query":"x","scope":"session:\ud800"}`} {
		r := w.mustRun(t, runOpts{stdin: []byte(raw)}, "recall", "-")
		assert.True(t, json.Valid(r.stdout), "%s", r)
	}
	r := w.mustRun(t, runOpts{}, "expand", fmt.Sprintf(`{"session":%s,"entryIds":["u1\ud800"]}`, jsString(p)))
	assert.True(t, json.Valid(r.stdout))
}

// TestHostileNULBytes: raw NUL bytes inside and between lines, escaped
// NULs in texts and ids, a file of nothing but NULs (a preallocated or
// crashed file), NUL in queries and filters.
func TestHostileNULBytes(t *testing.T) {
	t.Parallel()
	seeded(t)
	w := newWorld(t)
	ts := tsAt(1)
	p := w.writeRaw("s-nul", []byte(strings.Join([]string{
		headerLine("s-nul", w.project),
		msgLine("u1", "", ts, userMsg("zqnulone \x00 raw")),
		"\x00\x00\x00",
		msgLine("u\u0000x", "", ts, userMsg("zqnultwo \u0000 escaped")),
		msgLine("u2", "u\u0000x", ts, `{"role":"user","content":"zqnulthree \u0000\u0000"}`),
		msgLine("a1", "u2", ts, toolCallMsg("c\x001", "ba\x00sh", `{"command":"x\u0000y"}`)),
	}, "\n")+"\n\x00"))
	zeros := w.writeRaw("s-zeros", make([]byte, 1<<20))
	for _, term := range []string{"zqnultwo", "zqnulthree"} {
		assert.Equal(t, 1, w.probeGlobal(t, term, 20*time.Second).Total, term)
	}
	t.Logf("raw NUL inside a string (a line JSON refuses): %d hits", w.probeGlobal(t, "zqnulone", 20*time.Second).Total)
	w.probe(t, p, "zqnultwo", 20*time.Second)
	w.probe(t, zeros, "x", 20*time.Second)
	t.Logf("all-NUL file: reasons %v", w.sessionReasons(t, zeros, "active"))
	for _, raw := range []string{`{"query":"\u0000"}`, `{"query":"zqnulthree\u0000"}`, `{"tool":"\u0000t"}`, `{"ref":"a\u0000"}`, `{"role":"user\u0000"}`,
		`{"query":"x","scope":"session:\u0000"}`, `{"query":"x","scope":"session:/tmp/\u0000x.jsonl"}`} {
		w.mustRun(t, runOpts{stdin: []byte(raw)}, "recall", "-")
	}
	w.mustRun(t, runOpts{}, "expand", fmt.Sprintf(`{"session":%s,"entryIds":["u\u0000x"]}`, jsString(p)))
	w.mustRun(t, runOpts{}, "expand", `{"session":"s-nul\u0000"}`)
}

// TestHostileManyEntries: 200,000 small entries in one session are
// indexed and searched in bounded time and memory; the last entry is
// reachable by expand and by an entryRange page.
func TestHostileManyEntries(t *testing.T) {
	t.Parallel()
	seeded(t)
	w := newWorld(t)
	const n = 200000
	var b bytes.Buffer
	b.WriteString(headerLine("s-many", w.project) + "\n")
	parent := ""
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("e%d", i)
		b.WriteString(msgLine(id, parent, "2026-09-01T10:00:01.000Z", userMsg(fmt.Sprintf("item %d word%d", i, i%100))))
		b.WriteByte('\n')
		parent = id
	}
	p := w.writeRaw("s-many", b.Bytes())
	_, err := os.Stat("/usr/bin/time")
	o := runOpts{timeout: 120 * time.Second, timeV: err == nil}

	r := w.mustRun(t, o, "recall", "-q", "word7", "--scope", "global")
	require.Zero(t, r.code, "%s", r)
	got := decodeRecall(t, r)
	assert.Equal(t, n/100, got.Total)
	t.Logf("200,000 entries (%d MB): first recall %v, peak RSS %d MB", b.Len()>>20, r.dur.Round(time.Millisecond), r.maxRSSKB/1024)
	assert.Less(t, r.dur, 90*time.Second)
	if o.timeV {
		assert.Less(t, r.maxRSSKB, int64(2<<20), "peak RSS under 2 GiB")
	}

	r = w.mustRun(t, o, "expand", fmt.Sprintf(`{"session":%s,"indices":[%d]}`, jsString(p), n-1))
	var x expandOut
	require.NoError(t, json.Unmarshal(r.stdout, &x))
	require.Len(t, x.Entries, 1, "%s", r)
	assert.Equal(t, fmt.Sprintf("item %d word%d", n-1, (n-1)%100), x.Entries[0].Text)
	r = w.mustRun(t, o, "recall", fmt.Sprintf(`{"scope":"session:%s","entryRange":{"first":%d,"last":%d}}`, p, n-10, n-1))
	assert.Equal(t, 10, decodeRecall(t, r).Total, "%s", r)
	w.mustRun(t, o, "sessions", "--scope", "global")
}

// TestHostileDuplicateIDs: the same id on many records (siblings, a
// self-parented one, one on the active path) is reported, and addressing
// it answers ambiguous_address or one entry, never a panic.
func TestHostileDuplicateIDs(t *testing.T) {
	t.Parallel()
	seeded(t)
	w := newWorld(t)
	ts := tsAt(1)
	ls := []string{headerLine("s-dup", w.project), msgLine("u1", "", ts, userMsg("root zqduproot"))}
	for i := 0; i < 500; i++ {
		ls = append(ls, msgLine("dup", "u1", ts, assistantMsg(fmt.Sprintf("sibling %d zqdupsibling", i))))
	}
	ls = append(ls, msgLine("dup", "dup", ts, userMsg("self parent zqdupself")), msgLine("z", "dup", ts, assistantMsg("leaf zqdupleaf")))
	p := w.writeRaw("s-dup", lines(ls...))
	for _, term := range []string{"zqduproot", "zqdupsibling", "zqdupself", "zqdupleaf"} {
		got := w.probeGlobal(t, term, 20*time.Second)
		t.Logf("%s: %d hits, reasons %v", term, got.Total, got.Coverage.Reasons)
	}
	w.probe(t, p, "zqdupleaf", 20*time.Second)
	assert.Contains(t, w.sessionReasons(t, p, "all"), "duplicate_entry_id")
	for _, branches := range []string{"active", "all"} {
		r := w.mustRun(t, runOpts{}, "expand", fmt.Sprintf(`{"session":%s,"entryIds":["dup"],"branches":%q}`, jsString(p), branches))
		var x expandOut
		require.NoError(t, json.Unmarshal(r.stdout, &x))
		if x.Error != nil {
			assert.Contains(t, []string{"ambiguous_address", "address_not_found"}, x.Error.Code)
		}
	}
}

// TestHostileParentCycles: two-record and long cycles, a self-parent
// leaf, parents that come later in the file, and an empty leaf id are
// walked in bounded time and reported.
func TestHostileParentCycles(t *testing.T) {
	t.Parallel()
	seeded(t)
	w := newWorld(t)
	ts := tsAt(1)
	long := []string{headerLine("s-longcycle", w.project)}
	const k = 10000
	for i := 0; i < k; i++ {
		long = append(long, msgLine(fmt.Sprintf("c%d", i), fmt.Sprintf("c%d", (i+k-1)%k), ts, userMsg(fmt.Sprintf("cycle %d zqcycle", i))))
	}
	files := map[string][]byte{
		"s-cycle2": lines(headerLine("s-cycle2", w.project),
			msgLine("a", "b", ts, userMsg("zqcycle a")), msgLine("b", "a", ts, userMsg("zqcycle b"))),
		"s-self": lines(headerLine("s-self", w.project), msgLine("u1", "", ts, userMsg("root")),
			msgLine("s", "s", ts, userMsg("zqcycle self"))),
		"s-forward": lines(headerLine("s-forward", w.project), msgLine("a", "b", ts, userMsg("zqcycle forward")),
			msgLine("b", "", ts, userMsg("root later")), msgLine("c", "a", ts, userMsg("leaf"))),
		"s-emptyleaf": lines(headerLine("s-emptyleaf", w.project), msgLine("u1", "", ts, userMsg("zqcycle root")),
			msgLine("", "u1", ts, userMsg("empty id leaf"))),
		"s-longcycle": lines(long...),
	}
	for id, b := range files {
		p := w.writeRaw(id, b)
		start := time.Now()
		w.probe(t, p, "zqcycle", 30*time.Second)
		t.Logf("%s: probed in %v, reasons %v", id, time.Since(start).Round(time.Millisecond), w.sessionReasons(t, p, "active"))
	}
	w.probeGlobal(t, "zqcycle", 30*time.Second)
}

// TestHostileWalkLargeSession: walking a session must take time linear in
// its size (it once re-read and re-parsed the whole source for every page
// of at most 20 entries, which made it quadratic).
func TestHostileWalkLargeSession(t *testing.T) {
	t.Parallel()
	seeded(t)
	w := newWorld(t)
	walk := func(n int) time.Duration {
		var b bytes.Buffer
		b.WriteString(headerLine("s-chain", w.project) + "\n")
		parent := ""
		for i := 0; i < n; i++ {
			id := fmt.Sprintf("e%d", i)
			b.WriteString(msgLine(id, parent, "2026-09-01T10:00:01.000Z", userMsg(fmt.Sprintf("item %d", i))) + "\n")
			parent = id
		}
		p := w.writeRaw(fmt.Sprintf("s-chain%d", n), b.Bytes())
		r := w.run(runOpts{timeout: 120 * time.Second}, "walk", fmt.Sprintf(`{"session":%s}`, jsString(p)))
		require.False(t, r.timedOut, "%s", r)
		require.Equal(t, n, bytes.Count(r.stdout, []byte("\n")), "%s", r)
		return r.dur
	}
	// The best of three runs of each: the other tests of the package run
	// in parallel, and one slow run of a 10 ms process is noise, not a
	// quadratic walk.
	best := func(n int) time.Duration {
		return min(walk(n), walk(n), walk(n))
	}
	small, large := best(1000), best(4000)
	t.Logf("walk: 1,000 entries %v, 4,000 entries %v (best of three)", small, large)
	// Linear: about 4 times longer; quadratic: about 16.
	assert.Less(t, large, 8*small, "walking 4x the entries took %.1fx the time", large.Seconds()/small.Seconds())
}
