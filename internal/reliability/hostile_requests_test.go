//go:build unix

package reliability

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/engine"
)

// requestWorld is a small corpus for request tests, built once.
type requestWorld struct {
	w    *world
	path string // a session file
}

var (
	reqOnce sync.Once
	reqW    *requestWorld
)

func sharedRequestWorld(t *testing.T) *requestWorld {
	reqOnce.Do(func() {
		w := sharedWorld(t)
		g := newGen(seededAs(t, "request-world"))
		rw := &requestWorld{w: w}
		for i := 0; i < 6; i++ {
			m := g.session(fmt.Sprintf("req%d", i), w.project, 8<<10, 30)
			if i == 0 {
				m.add("u", userMsg("zqregexrun "+strings.Repeat("a", 1900)+"!"))
			}
			p := w.writeSession(m.id, m.bytes())
			if i == 0 {
				rw.path = p
			}
		}
		r := w.run(runOpts{}, "rebuild", "--scope", "global", "--json")
		require.True(t, clean(t, r) && r.code == 0, "%s", r)
		reqW = rw
	})
	if reqW == nil {
		t.Fatal("the request world failed to build")
	}
	return reqW
}

// allowedCodes are the error codes a hostile request may be answered
// with: every one names what is wrong.
var allowedCodes = map[string]bool{
	"invalid_request": true, "invalid_scope": true, "session_not_found": true, "ambiguous_session": true,
	"index_out_of_bounds": true, "address_not_found": true, "ambiguous_address": true, "text_offset_out_of_bounds": true,
	"stale_pointer": true, "invalid_regex": true, "regex_pattern_too_large": true, "regex_timeout": true,
	"unknown_ref": true, "usage": true, "source_unavailable": true,
}

// answerCode returns the error code of a clean CLI answer: the JSON error
// of an exit 1, or the result's own error, or "".
func answerCode(r result) string {
	if c := r.errCode(); c != "" {
		return c
	}
	var v struct {
		Coverage struct {
			Error *errOut `json:"error"`
		} `json:"coverage"`
	}
	if json.Unmarshal(r.stdout, &v) == nil && v.Coverage.Error != nil {
		return v.Coverage.Error.Code
	}
	return ""
}

// TestHostileRegexPatterns: patterns built to be slow (nested
// quantifiers, huge alternations, counted repetition of counted
// repetition), invalid ones and oversized ones, over long runs of "a",
// in global and single-session (hydrated) scope. Each answers in bounded
// time with results or a named regex error.
func TestHostileRegexPatterns(t *testing.T) {
	t.Parallel()
	rw := sharedRequestWorld(t)
	w := rw.w
	words := make([]string, 1000)
	for i := range words {
		words[i] = fmt.Sprintf("w%dx", i)
	}
	patterns := []string{
		`(a+)+$`, `(.*)*x`, `(a|a)*b`, `(a|aa)+$`, `^(a?){30}a{30}$`, `(.*a){20}`, `.*.*.*.*.*.*.*.*.*=.*`,
		strings.Join(words, "|"), `a{1000}{1000}`, `(?:a{1000}){1000}`, `a{1001}`, `\p{L}{1000}`, `(?:(?:a*)*)*b`,
		`[`, `(`, `(?<name>a)`, `(?=a)`, `(a)\1`, `\x{110000}`, "\xff\xfe", `(?i)ZQREGEXRUN`, `zqregexrun`, `^$`, `.`,
		strings.Repeat("a", 1025), strings.Repeat("(a|b)", 300), strings.Repeat("x", 70000),
	}
	scopes := []string{"global", "session:" + rw.path}
	n := 0
	for _, p := range patterns {
		for _, scope := range scopes {
			o := runOpts{timeout: 20 * time.Second, stdin: []byte(mustJSON(map[string]any{"query": p, "queryMode": "regex", "scope": scope}))}
			r := w.mustRun(t, o, "recall", "-")
			n++
			assert.Less(t, r.dur, 10*time.Second, "pattern %q in %s", clip([]byte(p), 60), scope)
			if c := answerCode(r); c != "" {
				assert.True(t, allowedCodes[c], "pattern %q: code %q\n%s", clip([]byte(p), 60), c, r)
			}
		}
	}
	r := w.mustRun(t, runOpts{}, "recall", "-q", "zqregexrun", "--mode", "regex", "--scope", "global")
	assert.Equal(t, 1, decodeRecall(t, r).Total, "a plain pattern still finds its entry")
	t.Logf("regex patterns tried: %d (x %d scopes = %d calls)", len(patterns), len(scopes), n)
}

// TestHostileOversizedQueries: queries at and over the 4,096-unit limit
// (ASCII and astral), a 1 MB query and a 17 MB request on stdin (over the
// CLI's 16 MB limit), a query of 1,000 distinct terms (any, all, phrase),
// and megabyte-long scope, role, tool and ref strings.
func TestHostileOversizedQueries(t *testing.T) {
	t.Parallel()
	rw := sharedRequestWorld(t)
	w := rw.w
	code := func(r result) string { return answerCode(r) }

	r := w.mustRun(t, runOpts{}, "recall", "-q", strings.Repeat("a", 4096), "--scope", "global")
	assert.Empty(t, code(r), "4,096 characters is within the limit: %s", r)
	r = w.mustRun(t, runOpts{}, "recall", "-q", strings.Repeat("a", 4097), "--scope", "global")
	assert.Equal(t, "invalid_request", code(r))
	r = w.mustRun(t, runOpts{}, "recall", "-q", strings.Repeat("😀", 2049), "--scope", "global")
	assert.Equal(t, "invalid_request", code(r), "4,098 UTF-16 units")

	big := func(field string, n int) []byte {
		return []byte(mustJSON(map[string]any{"query": "x", "scope": "global", field: strings.Repeat("q", n)}))
	}
	for _, in := range [][]byte{
		[]byte(mustJSON(map[string]any{"query": strings.Repeat("zq ", 1<<18)})),
		big("role", 1<<20), big("tool", 1<<20), big("ref", 1<<20), big("provider", 1<<20), big("action", 1<<20),
		[]byte(mustJSON(map[string]any{"query": "x", "scope": "session:" + strings.Repeat("s", 1<<20)})),
		[]byte(mustJSON(map[string]any{"query": "x", "scope": "session:/" + strings.Repeat("d/", 1<<19)})),
		append([]byte(`{"query":"`), append(bytes.Repeat([]byte("z"), 17<<20), `"}`...)...),
	} {
		r := w.mustRun(t, runOpts{stdin: in, timeout: 30 * time.Second}, "recall", "-")
		if c := code(r); c != "" {
			assert.True(t, allowedCodes[c], "code %q\n%s", c, r)
		}
		assert.Less(t, r.dur, 20*time.Second)
	}
	var terms []string
	for i := 0; len(strings.Join(terms, " ")) < 4000; i++ {
		terms = append(terms, fmt.Sprintf("t%d", i))
	}
	q := strings.Join(terms, " ")
	for _, extra := range [][]string{nil, {"--match", "all"}, {"--mode", "phrase"}} {
		r := w.mustRun(t, runOpts{}, append([]string{"recall", "-q", q, "--scope", "global"}, extra...)...)
		assert.Empty(t, code(r), "%d distinct terms %v", len(terms), extra)
	}
}

// absurd are number arguments no caller should send.
var absurd = []string{"1e308", "-1e308", "-1", "1.5", "-0", "0", "9007199254740993", "1e-300", `"10"`, "true", "[]", "{}", "null", "1e400", "-1e400"}

// TestHostileAbsurdNumbers sends every absurd value to every number
// argument of recall, expand and sessions (and inside entryRange and
// indices), over the CLI: each is refused with a named code or answered,
// never an internal error.
func TestHostileAbsurdNumbers(t *testing.T) {
	t.Parallel()
	rw := sharedRequestWorld(t)
	w := rw.w
	sess := jsString("session:" + rw.path)
	path := jsString(rw.path)
	type req struct{ cmd, json string }
	var reqs []req
	for _, v := range absurd {
		for _, f := range []string{"pageSize", "offset", "snippetChars", "since", "until"} {
			reqs = append(reqs, req{"recall", fmt.Sprintf(`{"query":"x","scope":"global",%q:%s}`, f, v)})
		}
		for _, r := range []string{`{"first":%[1]s,"last":%[1]s}`, `{"first":0,"last":%[1]s}`, `{"first":%[1]s,"last":3}`} {
			reqs = append(reqs, req{"recall", fmt.Sprintf(`{"scope":%s,"entryRange":%s}`, sess, fmt.Sprintf(r, v))})
			reqs = append(reqs, req{"expand", fmt.Sprintf(`{"session":%s,"entryRange":%s}`, path, fmt.Sprintf(r, v))})
		}
		for _, f := range []string{"before", "after", "entryOffset", "textOffset", "maxChars", "maxEntries"} {
			reqs = append(reqs, req{"expand", fmt.Sprintf(`{"session":%s,"indices":[0],%q:%s}`, path, f, v)})
		}
		reqs = append(reqs, req{"expand", fmt.Sprintf(`{"session":%s,"indices":[%s]}`, path, v)})
		for _, f := range []string{"limit", "offset"} {
			reqs = append(reqs, req{"sessions", fmt.Sprintf(`{"scope":"global",%q:%s}`, f, v)})
		}
	}
	for _, x := range []string{`{"session":%s,"entryRange":{"first":2,"last":1}}`, `{"session":%s,"entryRange":{"first":0}}`,
		`{"session":%s,"entryRange":{}}`, `{"session":%s,"entryRange":[]}`, `{"session":%s,"indices":[0,0,0]}`,
		`{"session":%s,"indices":[` + strings.TrimSuffix(strings.Repeat("0,", 101), ",") + `]}`,
		`{"session":%s,"indices":[0],"before":100,"after":100,"maxEntries":20,"maxChars":24000}`} {
		reqs = append(reqs, req{"expand", fmt.Sprintf(x, path)})
	}
	calls := make([]rpcCall, len(reqs))
	for i, q := range reqs {
		calls[i] = rpcCall{"memory." + q.cmd, q.json}
	}
	codes := map[string]int{}
	for i, c := range w.rpcCodes(t, calls) {
		codes[c]++
		if c != "" && !allowedCodes[c] {
			t.Errorf("%s %s: code %q", reqs[i].cmd, reqs[i].json, c)
		}
	}
	// A sample over the CLI, which decodes the same way.
	rng := seeded(t)
	for k := 0; k < 12; k++ {
		q := reqs[rng.IntN(len(reqs))]
		if r := w.run(runOpts{}, q.cmd, q.json); clean(t, r) {
			if c := answerCode(r); c != "" && !allowedCodes[c] {
				t.Errorf("%s %s: code %q\n%s", q.cmd, q.json, c, r)
			}
		}
	}
	t.Logf("absurd number requests: %d, answered %v", len(reqs), codes)
}

// recallWire, expandWire and sessionsWire are the argument objects as the
// wire spells them (the fields and JSON types of the reference), whose
// fields wrongValues gives wrong types. engine's request types are their
// Go face (plain Go types), so they do not say the wire's types.
type recallWire struct {
	Query                      *string            `json:"query"`
	QueryMode                  string             `json:"queryMode"`
	QueryMatch                 string             `json:"queryMatch"`
	ExpectedSourceHash         string             `json:"expectedSourceHash"`
	ExpectedLineageFingerprint string             `json:"expectedLineageFingerprint"`
	Branches                   string             `json:"branches"`
	Scope                      string             `json:"scope"`
	Offset                     *float64           `json:"offset"`
	PageSize                   *float64           `json:"pageSize"`
	SnippetChars               *float64           `json:"snippetChars"`
	Role                       *string            `json:"role"`
	Tool                       *string            `json:"tool"`
	Ref                        *string            `json:"ref"`
	Provider                   *string            `json:"provider"`
	Action                     *string            `json:"action"`
	Outcome                    *string            `json:"outcome"`
	Since                      *float64           `json:"since"`
	Until                      *float64           `json:"until"`
	EntryRange                 *engine.Range      `json:"entryRange"`
	Live                       *engine.StaticLive `json:"live"`
}

type expandWire struct {
	Session                    string             `json:"session"`
	ExpectedSourceHash         string             `json:"expectedSourceHash"`
	ExpectedLineageFingerprint string             `json:"expectedLineageFingerprint"`
	Branches                   string             `json:"branches"`
	Indices                    []int64            `json:"indices"`
	EntryIDs                   []string           `json:"entryIds"`
	OperationAddresses         []string           `json:"operationAddresses"`
	EntryRange                 *engine.Range      `json:"entryRange"`
	Before                     *int64             `json:"before"`
	After                      *int64             `json:"after"`
	EntryOffset                *int64             `json:"entryOffset"`
	TextOffset                 *int64             `json:"textOffset"`
	MaxChars                   *int64             `json:"maxChars"`
	MaxEntries                 *int64             `json:"maxEntries"`
	Live                       *engine.StaticLive `json:"live"`
}

type sessionsWire struct {
	Scope    string             `json:"scope"`
	Branches string             `json:"branches"`
	Limit    *int64             `json:"limit"`
	Offset   *int64             `json:"offset"`
	Live     *engine.StaticLive `json:"live"`
}

// fieldNames lists the JSON names of a request type's fields and a wrong
// value for each.
func wrongValues(v any) map[string][]string {
	out := map[string][]string{}
	rt := reflect.TypeOf(v)
	for i := 0; i < rt.NumField(); i++ {
		f := rt.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" {
			continue
		}
		ft := f.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		switch ft.Kind() {
		case reflect.String:
			out[name] = []string{"5", "[]", "{}", "true"}
		case reflect.Float64, reflect.Int64, reflect.Int:
			out[name] = []string{`"x"`, "[]", "{}", "true"}
		case reflect.Slice:
			out[name] = []string{`"x"`, "{}", "5", `[{}]`, `[[]]`}
		case reflect.Struct:
			out[name] = []string{`"x"`, "5", "[]", `{"bogus":1}`}
		}
	}
	return out
}

// TestHostileUnknownFieldsAndWrongTypes sends every request kind (recall,
// expand, sessions over the CLI and call) with an unknown field and with
// each field of the wrong type, and requests that are not objects: each is
// refused with invalid_request naming the argument.
func TestHostileUnknownFieldsAndWrongTypes(t *testing.T) {
	t.Parallel()
	rw := sharedRequestWorld(t)
	w := rw.w
	kinds := []struct {
		cmd, ref string
		req      any
		base     map[string]string
	}{
		{"recall", "memory.recall", recallWire{}, map[string]string{"query": `"x"`, "scope": `"global"`}},
		{"expand", "memory.expand", expandWire{}, map[string]string{"session": jsString(rw.path)}},
		{"sessions", "memory.sessions", sessionsWire{}, map[string]string{"scope": `"global"`}},
	}
	// The mirrors name the engine's arguments: each is known (a null is
	// absent; an unknown name is refused).
	decoders := map[string]func([]byte) *engine.ErrorObject{
		"recall":   func(b []byte) *engine.ErrorObject { _, eo := engine.DecodeRecall(b); return eo },
		"expand":   func(b []byte) *engine.ErrorObject { _, eo := engine.DecodeExpand(b); return eo },
		"sessions": func(b []byte) *engine.ErrorObject { _, eo := engine.DecodeSessions(b); return eo },
	}
	for _, k := range kinds {
		for field := range wrongValues(k.req) {
			assert.Nil(t, decoders[k.cmd]([]byte(`{"`+field+`":null}`)), "%s: %s", k.cmd, field)
		}
	}
	obj := func(m map[string]string) string {
		var parts []string
		for k, v := range m {
			parts = append(parts, jsString(k)+":"+v)
		}
		return "{" + strings.Join(parts, ",") + "}"
	}
	type probe struct{ what, cmd, json string }
	var probes []probe
	check := func(what string, args ...string) { probes = append(probes, probe{what, args[0], args[1]}) }
	for _, k := range kinds {
		for field, vals := range wrongValues(k.req) {
			for _, v := range vals {
				m := map[string]string{}
				for a, b := range k.base {
					m[a] = b
				}
				m[field] = v
				req := obj(m)
				check(k.cmd+" "+req, k.cmd, req)
				check("call "+req, "call", fmt.Sprintf(`{"ref":%q,"args":%s}`, k.ref, req))
			}
		}
		for _, unknown := range []string{"bogus", "PageSize", "pagesize", "query ", "__proto__", "constructor", ""} {
			m := map[string]string{}
			for a, b := range k.base {
				m[a] = b
			}
			m[unknown] = "1"
			req := obj(m)
			check(k.cmd+" "+req, k.cmd, req)
			check("call "+req, "call", fmt.Sprintf(`{"ref":%q,"args":%s}`, k.ref, req))
		}
		for _, notObj := range []string{"[]", `"x"`, "5", "true", "[{}]", "{", `{"a":1}}`} {
			check(k.cmd+" "+notObj, k.cmd, notObj)
		}
	}
	check("alias and name together", "recall", `{"q":"a","query":"b"}`)
	check("nested unknown field", "recall", fmt.Sprintf(`{"scope":%s,"entryRange":{"first":0,"last":0,"x":1}}`, jsString("session:"+rw.path)))
	check("live with an unknown field", "recall", `{"query":"x","live":{"sessionFile":"x","bogus":1}}`)
	// Params that are not JSON break the JSON-RPC line itself: the CLI
	// alone gets those.
	var viaCLI []probe
	kept := probes[:0]
	for _, p := range probes {
		if json.Valid([]byte(p.json)) {
			kept = append(kept, p)
		} else {
			viaCLI = append(viaCLI, p)
		}
	}
	probes = kept
	for _, p := range viaCLI {
		if r := w.run(runOpts{}, p.cmd, p.json); clean(t, r) {
			assert.Equal(t, "invalid_request", answerCode(r), "%s\n%s", p.what, r)
		}
	}
	calls := make([]rpcCall, len(probes))
	for i, p := range probes {
		if p.cmd == "call" {
			calls[i] = rpcCall{"tools.call", p.json}
		} else {
			calls[i] = rpcCall{"memory." + p.cmd, p.json}
		}
	}
	for i, c := range w.rpcCodes(t, calls) {
		want := "invalid_request"
		if probes[i].cmd != "call" && !strings.HasPrefix(probes[i].json, "{") {
			want = "invalid_params" // not an object: JSON-RPC refuses the params
		}
		if c != want && !(want == "invalid_params" && c == "invalid_request") {
			t.Errorf("%s: answered %q, want %s", probes[i].what, c, want)
		}
	}
	// A sample over the CLI.
	rng := seeded(t)
	for k := 0; k < 12; k++ {
		p := probes[rng.IntN(len(probes))]
		if r := w.run(runOpts{}, p.cmd, p.json); clean(t, r) {
			assert.Equal(t, "invalid_request", answerCode(r), "%s\n%s", p.what, r)
		}
	}
	n := len(probes) + len(viaCLI)
	for _, c := range []string{`{"ref":5,"args":{}}`, `{"ref":"memory.recall","args":"x"}`, `{"ref":"memory.recall","args":[1]}`, `{"args":{}}`, `[]`, `"x"`} {
		n++
		r := w.run(runOpts{}, "call", c)
		if clean(t, r) {
			assert.Contains(t, []string{"invalid_request", "unknown_ref"}, answerCode(r), "call %s\n%s", c, r)
		}
	}
	r := w.mustRun(t, runOpts{}, "call", `{"ref":"memory.nope","args":{}}`)
	assert.Equal(t, "unknown_ref", answerCode(r))
	t.Logf("requests with unknown fields or wrong types: %d", n+1)
}

// rpcCall is one JSON-RPC request.
type rpcCall struct{ method, params string }

// rpcCodes sends calls to one serve process and returns, for each, the
// error code of its answer: "" for a result without error, the result's
// error code, the data code of a JSON-RPC error, or invalid_params /
// method_not_found / rpc_<n> for a bare JSON-RPC error.
func (w *world) rpcCodes(t *testing.T, calls []rpcCall) []string {
	t.Helper()
	var in bytes.Buffer
	for i, c := range calls {
		fmt.Fprintf(&in, `{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`+"\n", i, c.method, c.params)
	}
	resps, _ := w.serve(t, in.Bytes(), 120*time.Second)
	out := make([]string, len(calls))
	seen := make([]bool, len(calls))
	for _, r := range resps {
		var i int
		if string(r.ID) == "null" || json.Unmarshal(r.ID, &i) != nil || i < 0 || i >= len(calls) {
			t.Errorf("an answer with id %s", r.ID)
			continue
		}
		seen[i] = true
		switch {
		case r.Error != nil:
			var d struct {
				Code string `json:"code"`
			}
			if json.Unmarshal(r.Error.Data, &d) == nil && d.Code != "" {
				out[i] = d.Code
			} else if r.Error.Code == -32602 {
				out[i] = "invalid_params"
			} else if r.Error.Code == -32601 {
				out[i] = "method_not_found"
			} else {
				out[i] = fmt.Sprintf("rpc_%d", r.Error.Code)
			}
		default:
			var v struct {
				Error    *errOut `json:"error"`
				Coverage struct {
					Error *errOut `json:"error"`
				} `json:"coverage"`
			}
			json.Unmarshal(r.Result, &v)
			if v.Error != nil {
				out[i] = v.Error.Code
			} else if v.Coverage.Error != nil {
				out[i] = v.Coverage.Error.Code
			}
		}
	}
	for i, ok := range seen {
		if !ok {
			t.Errorf("%s %s: no answer", calls[i].method, calls[i].params)
		}
	}
	return out
}

// rpcResponse is one JSON-RPC answer.
type rpcResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	Method  string          `json:"method"` // a notification (memory.progress)
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result"`
	Error   *struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
}

// serve runs `serve --stdio` over input and returns its answers.
func (w *world) serve(t *testing.T, input []byte, timeout time.Duration) ([]rpcResponse, result) {
	t.Helper()
	r := w.run(runOpts{stdin: input, timeout: timeout}, "serve", "--stdio")
	if r.timedOut {
		t.Errorf("serve hangs\n%s", r)
		return nil, r
	}
	assert.Zero(t, r.code, "serve exits 0 at the end of its input\n%s", r)
	assert.NotContains(t, string(r.stderr), "panic:")
	assert.NotContains(t, string(r.stderr), "goroutine ")
	var out []rpcResponse
	sc := bufio.NewScanner(bytes.NewReader(r.stdout))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		// A batch is answered by one array of responses.
		var batch []rpcResponse
		if line := bytes.TrimSpace(sc.Bytes()); len(line) > 0 && line[0] == '[' {
			if assert.NoError(t, json.Unmarshal(line, &batch), "a batch answer is not JSON: %s", clip(line, 300)) {
				assert.NotEmpty(t, batch, "an empty batch answer")
				out = append(out, batch...)
			}
			continue
		}
		var resp rpcResponse
		if !assert.NoError(t, json.Unmarshal(sc.Bytes(), &resp), "a response line is not JSON: %s", clip(sc.Bytes(), 300)) {
			continue
		}
		assert.Equal(t, "2.0", resp.JSONRPC)
		if resp.Method != "" {
			// A notification from the server (progress of a slow call).
			assert.Equal(t, "memory.progress", resp.Method)
			assert.Empty(t, resp.ID)
			continue
		}
		assert.True(t, (resp.Result == nil) != (resp.Error == nil), "exactly one of result and error: %s", clip(sc.Bytes(), 300))
		if resp.Error != nil {
			assert.NotEqual(t, -32603, resp.Error.Code, "internal error: %s", clip(sc.Bytes(), 300))
		}
		assert.NotContains(t, string(sc.Bytes()), `"internal_error"`)
		out = append(out, resp)
	}
	return out, r
}

// TestHostileServeStdio: one serve process gets malformed JSON-RPC lines,
// invalid requests, unknown methods, ids of every type, notifications,
// a 20 MB line (over the 16 MB limit), a 15 MB line, batches, bad params
// for every method, CRLF endings and 240 concurrent good requests. Every
// request with an id gets exactly one answer with that id; every line
// that cannot be read gets a null-id error; good requests answer as the
// CLI does; the server ends cleanly at EOF.
func TestHostileServeStdio(t *testing.T) {
	t.Parallel()
	rw := sharedRequestWorld(t)
	w := rw.w
	var in bytes.Buffer
	id := 0
	want := map[string]string{} // id -> "result", "error" or "any"
	nullErrors := 0
	send := func(method string, params string, expect string) {
		id++
		key := fmt.Sprintf(`"r%d"`, id)
		p := ""
		if params != "" {
			p = `,"params":` + params
		}
		fmt.Fprintf(&in, `{"jsonrpc":"2.0","id":%s,"method":%q%s}`+"\n", key, method, p)
		want[key] = expect
	}
	raw := func(line string, nullError bool) {
		in.WriteString(line + "\n")
		if nullError {
			nullErrors++
		}
	}
	// Lines that cannot be read.
	for _, l := range []string{"{", "[]", "null", `"str"`, "5",
		`{"jsonrpc":"2.0","method":"memory.recall","id":2} trailing`} {
		raw(l, true)
	}
	// A request whose id can be read is answered with it, even when the
	// rest is wrong.
	raw(`{"jsonrpc":"2.0","method":5,"id":1}`, false)
	want["1"] = "error"
	// A batch answers each of its requests.
	raw(`[{"jsonrpc":"2.0","method":"memory.recall","id":"batch"},{"jsonrpc":"2.0","method":"memory.nope","id":"batch2"}]`, false)
	want[`"batch"`], want[`"batch2"`] = "result", "error"
	// Invalid requests without an id answer with a null id.
	for _, l := range []string{`{}`, `{"jsonrpc":"1.0","method":"memory.recall"}`, `{"jsonrpc":"2.0"}`} {
		raw(l, true)
	}
	// Invalid requests with an id answer with that id.
	for i, l := range []string{`{"jsonrpc":"1.0","method":"memory.recall","id":"bad%d"}`, `{"jsonrpc":"2.0","id":"bad%d"}`, `{"id":"bad%d","method":"memory.recall"}`} {
		key := fmt.Sprintf(`"bad%d"`, i)
		raw(fmt.Sprintf(l, i), false)
		want[key] = "error"
	}
	// A 20 MB line, then a 15 MB one (a query far over its limit).
	raw(`{"jsonrpc":"2.0","id":"huge","method":"memory.recall","params":{"query":"`+strings.Repeat("z", 20<<20)+`"}}`, true)
	in.WriteString(`{"jsonrpc":"2.0","id":"big","method":"memory.recall","params":{"query":"` + strings.Repeat("z", 15<<20) + `"}}` + "\n")
	want[`"big"`] = "error" // invalid params: -32602
	// Notifications get no answer.
	raw(`{"jsonrpc":"2.0","method":"memory.recall","params":{"query":"x"}}`, false)
	raw(`{"jsonrpc":"2.0","method":"nope"}`, false)
	// Ids of every type: a string, a number or null is an id; anything
	// else makes the request invalid (answered with a null id).
	for _, idv := range []string{`0`, `-1`, `1.5`, `1e308`, `""`, `"` + strings.Repeat("i", 100000) + `"`, `{"a":1}`, `[1]`, `true`} {
		valid := idv[0] != '{' && idv[0] != '[' && idv != "true"
		raw(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":"memory.sessions","params":{"scope":"global","limit":1}}`, idv), !valid)
		if valid {
			want[idv] = "any"
		}
	}
	// Unknown methods, bad params.
	for _, m := range []string{"memory.nope", "rpc.nope", "__proto__", "tools.call.extra", "MEMORY.RECALL", " memory.recall"} {
		send(m, `{}`, "error")
	}
	for _, m := range []string{"memory.recall", "memory.expand", "memory.sessions", "tools.call", "tools.catalog", "tools.search", "tools.describe"} {
		for _, p := range []string{`[]`, `"x"`, `5`, `{"bogus":1}`, `{"query":5,"session":5,"scope":5,"ref":5}`} {
			send(m, p, "any")
		}
	}
	// CRLF, blank lines.
	in.WriteString(fmt.Sprintf(`{"jsonrpc":"2.0","id":"crlf","method":"memory.recall","params":{"query":"x","scope":"global"}}`) + "\r\n\n\n")
	want[`"crlf"`] = "result"
	// Many good requests at once.
	good := map[string]string{}
	for i := 0; i < 80; i++ {
		send("memory.recall", fmt.Sprintf(`{"query":"zqregexrun","scope":"global","pageSize":%d}`, 1+i%5), "result")
		good[fmt.Sprintf(`"r%d"`, id)] = "recall"
		send("memory.expand", fmt.Sprintf(`{"session":%s,"indices":[%d]}`, jsString(rw.path), i%10), "result")
		send("tools.call", fmt.Sprintf(`{"ref":"memory.sessions","args":{"scope":"global","limit":%d}}`, 1+i%6), "result")
	}
	// The last request has no trailing newline.
	in.WriteString(`{"jsonrpc":"2.0","id":"last","method":"memory.sessions","params":{"scope":"global"}}`)
	want[`"last"`] = "result"

	resps, r := w.serve(t, in.Bytes(), 120*time.Second)
	t.Logf("serve: %d bytes in, %d answers in %v", in.Len(), len(resps), r.dur.Round(time.Millisecond))
	got := map[string]int{}
	nulls := 0
	cli := decodeRecall(t, w.mustRun(t, runOpts{}, "recall", "-q", "zqregexrun", "--scope", "global"))
	for _, resp := range resps {
		k := string(resp.ID)
		if k == "null" {
			nulls++
			assert.NotNil(t, resp.Error)
			continue
		}
		got[k]++
		switch want[k] {
		case "":
			t.Errorf("an answer to no request: id %s", clip(resp.ID, 80))
		case "result":
			if assert.Nil(t, resp.Error, "id %s: %+v", k, resp.Error) && good[k] == "recall" {
				var page recallOut
				assert.NoError(t, json.Unmarshal(resp.Result, &page))
				assert.Equal(t, cli.Total, page.Total, "a concurrent answer equals the CLI's")
			}
		case "error":
			assert.NotNil(t, resp.Error, "id %s", k)
		}
	}
	for k := range want {
		assert.Equal(t, 1, got[k], "id %s answered once", clip([]byte(k), 80))
	}
	assert.Equal(t, nullErrors, nulls, "one null-id error per unreadable line")
	t.Logf("serve requests: %d with ids, %d unreadable or id-less lines, 2 notifications", len(want), nullErrors)
}

// TestHostileServeConcurrentProcesses: several serve processes and CLI
// calls share one index while a rebuild runs.
func TestHostileServeConcurrentProcesses(t *testing.T) {
	t.Parallel()
	rw := sharedRequestWorld(t)
	w := rw.w
	var in bytes.Buffer
	for i := 0; i < 40; i++ {
		fmt.Fprintf(&in, `{"jsonrpc":"2.0","id":%d,"method":"memory.recall","params":{"query":"zqregexrun","scope":"global"}}`+"\n", i)
	}
	var wg sync.WaitGroup
	for p := 0; p < 3; p++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resps, _ := w.serve(t, in.Bytes(), 60*time.Second)
			assert.Len(t, resps, 40)
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		w.mustRun(t, runOpts{}, "rebuild", "--scope", "global", "--json")
	}()
	wg.Wait()
}
