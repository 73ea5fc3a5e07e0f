package engine_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/engine"
	"github.com/memidx/memidx/internal/coverage"
)

// Requests are plain Go values whose zero value is the default, and their
// JSON is the wire's.
func TestRequestsArePlainGo(t *testing.T) {
	b, err := json.Marshal(engine.RecallRequest{Query: "flaky", Scope: engine.ScopeProject, PageSize: 3,
		Since: engine.EpochMs(time.UnixMilli(1788256860000)), Role: "user"})
	require.NoError(t, err)
	assert.JSONEq(t, `{"query":"flaky","scope":"project","pageSize":3,"role":"user","since":1788256860000}`, string(b))

	b, err = json.Marshal(engine.RecallRequest{})
	require.NoError(t, err)
	assert.JSONEq(t, `{}`, string(b), "zero is absent: every default")

	b, err = json.Marshal(engine.ExpandRequest{Session: "s", Indices: []int{3}, Before: 2, MaxChars: 100})
	require.NoError(t, err)
	assert.JSONEq(t, `{"session":"s","indices":[3],"before":2,"maxChars":100}`, string(b))

	b, err = json.Marshal(engine.SessionsRequest{Scope: "global", Limit: 5})
	require.NoError(t, err)
	assert.JSONEq(t, `{"scope":"global","limit":5}`, string(b))

	r, eo := engine.DecodeRecall([]byte(`{"q":"x","page_size":7.9,"offset":2,"since":1500,"tool":"bash"}`))
	require.Nil(t, eo)
	assert.Equal(t, "x", r.Query)
	assert.Equal(t, 7, r.PageSize, "a number argument is floored, as the reference does")
	assert.Equal(t, 2, r.Offset)
	assert.Equal(t, "bash", r.Tool)
	assert.Equal(t, 1500.0, *r.Since)
	assert.True(t, engine.EpochTime(r.Since).Equal(time.UnixMilli(1500)))
	assert.Nil(t, r.Until)

	x, eo := engine.DecodeExpand([]byte(`{"session":"s","indices":[1,2],"entryRange":{"first":0,"last":4}}`))
	require.Nil(t, eo)
	assert.Equal(t, []int{1, 2}, x.Indices)
	assert.Equal(t, &engine.Range{First: 0, Last: 4}, x.EntryRange)
}

// The JSON form refuses what the wire refuses, with the same messages, also
// through encoding/json.
func TestRequestJSONIsStrict(t *testing.T) {
	for _, c := range []struct{ in, msg string }{
		{`{"session":"s","indices":[1.5]}`, `argument "indices" must be of type number, not number 1.5`},
		{`{"session":"s","maxChars":"9"}`, `argument "maxChars" must be of type number, not string`},
		{`{"session":"s","nope":1}`, `unknown argument "nope"`},
		{`{"session":"s","max_chars":1,"maxChars":2}`, `"max_chars" and "maxChars" are the same argument; give one`},
		{`{"session":NaN}`, `the request must be a JSON object`},
	} {
		_, eo := engine.DecodeExpand([]byte(c.in))
		require.NotNil(t, eo, c.in)
		assert.Equal(t, coverage.InvalidRequest, eo.Code)
		assert.Contains(t, eo.Message, c.msg, c.in)

		if !json.Valid([]byte(c.in)) {
			continue // encoding/json refuses it before the request sees it
		}
		var r engine.ExpandRequest
		err := json.Unmarshal([]byte(c.in), &r)
		require.Error(t, err, c.in)
		assert.True(t, errors.Is(err, engine.ErrInvalidRequest), "%s: %v", c.in, err)
	}
	var r engine.RecallRequest
	assert.Error(t, json.Unmarshal([]byte(`{"pagesize":3}`), &r), "names match exactly")
	assert.Error(t, json.Unmarshal([]byte(`{"pageSize":"3"}`), &r))
	var s engine.SessionsRequest
	assert.Error(t, json.Unmarshal([]byte(`{"limit":1.5}`), &s))
}

// A decoded request says what its Go fields cannot: a field given with its
// zero value is given (and refused, or repeated) exactly as written.
func TestDecodedRequestKeepsTheWire(t *testing.T) {
	for _, in := range []string{
		`{"query":"","tool":"","pageSize":7.9,"since":0,"until":1.5}`,
		`{"scope":"project","offset":0,"snippetChars":10,"role":""}`,
	} {
		r, eo := engine.DecodeRecall([]byte(in))
		require.Nil(t, eo)
		b, err := json.Marshal(r)
		require.NoError(t, err)
		assert.JSONEq(t, in, string(b))
	}
	x, eo := engine.DecodeExpand([]byte(`{"session":"s","before":0,"maxChars":0}`))
	require.Nil(t, eo)
	b, _ := json.Marshal(x)
	assert.JSONEq(t, `{"session":"s","before":0,"maxChars":0}`, string(b))
	// A field the host changes is the Go field's.
	x.MaxChars, x.Session = 500, "t"
	b, _ = json.Marshal(x)
	assert.JSONEq(t, `{"session":"t","before":0,"maxChars":500}`, string(b))

	w := newWorld(t)
	path := w.write("s-wire", msgLine("u1", "", ts, user("hello wire")))
	e := w.engine()
	x, eo = engine.DecodeExpand([]byte(`{"session":` + jsString(path) + `,"indices":[0],"maxChars":0}`))
	require.Nil(t, eo)
	res, err := e.Expand(ctx, x)
	require.NoError(t, err)
	require.NotNil(t, res.Error, "maxChars 0 given is refused, as on the wire")
	assert.Equal(t, coverage.InvalidRequest, res.Error.Code)
	res, err = e.Expand(ctx, engine.ExpandRequest{Session: path, Indices: []int{0}})
	require.NoError(t, err)
	require.Nil(t, res.Error, "MaxChars 0 in Go is the default")
	assert.Equal(t, "hello wire", res.Entries[0].Text)

	// A given empty filter matches nothing; an empty Go field does not filter.
	r, eo := engine.DecodeRecall([]byte(`{"scope":"global","tool":""}`))
	require.Nil(t, eo)
	assert.Equal(t, 0, recall(t, e, r).Total)
	assert.Equal(t, 1, recall(t, e, engine.RecallRequest{Scope: "global"}).Total)
	// since 0 (1970) leaves out undated entries; a nil Since does not bound.
	r, eo = engine.DecodeRecall([]byte(`{"scope":"global","since":0}`))
	require.Nil(t, eo)
	require.NotNil(t, r.Since)
	assert.Zero(t, *r.Since)
}

// Call's result is typed; its JSON is the answer's own, and a follow
// token's arguments are a request a host can change.
func TestCallResultIsTyped(t *testing.T) {
	w := newWorld(t)
	path := w.write("s-call",
		msgLine("u1", "", ts, user("one")),
		msgLine("a1", "u1", ts, assistant("two okapi <b>&")),
		msgLine("u2", "a1", ts, user("three")),
	)
	e := w.engine()
	page := recall(t, e, engine.RecallRequest{Query: "okapi", Scope: "project"})
	require.Len(t, page.Hits, 1)
	follow := page.Hits[0].Follow()

	res, err := e.Call(ctx, follow)
	require.NoError(t, err)
	require.NotNil(t, res.Expand)
	assert.Nil(t, res.Recall)
	assert.Nil(t, res.Sessions)
	assert.NoError(t, res.Err())
	a, _ := json.Marshal(res)
	b, _ := json.Marshal(res.Expand)
	assert.Equal(t, string(b), string(a), "the wire form is the expansion's own")
	raw := func(v any) string {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		require.NoError(t, enc.Encode(v))
		return buf.String()
	}
	assert.Equal(t, raw(res.Expand), raw(res), "an encoder that keeps HTML characters keeps them")
	assert.Contains(t, raw(res), "<b>&")

	req, err := follow.ExpandArgs()
	require.NoError(t, err)
	assert.Equal(t, []int{1}, req.Indices)
	assert.NotEmpty(t, req.ExpectedSourceHash, "the bindings stay")
	req.Before, req.After = 1, 1
	x, err := e.Expand(ctx, req)
	require.NoError(t, err)
	require.Nil(t, x.Error)
	require.Len(t, x.Entries, 3)
	assert.True(t, *x.Entries[1].Anchor)

	_, err = follow.RecallArgs()
	assert.True(t, errors.Is(err, engine.ErrUnknownRef), "an expand token is no recall")

	res, err = e.Call(ctx, engine.FabricCall{Ref: "memory.recall", Args: json.RawMessage(`{"pageSize":"x"}`)})
	require.NoError(t, err)
	require.NotNil(t, res.Recall)
	assert.True(t, errors.Is(res.Err(), engine.ErrInvalidRequest))

	res, err = e.Call(ctx, engine.FabricCall{Ref: "memory.sessions", Args: json.RawMessage(`{"scope":"project","limit":1}`)})
	require.NoError(t, err)
	require.NotNil(t, res.Sessions)
	assert.Equal(t, path, res.Sessions.Sessions[0].File)

	res, err = e.Call(ctx, engine.FabricCall{Ref: "memory.forget"})
	require.NoError(t, err)
	require.NotNil(t, res.Unknown)
	a, _ = json.Marshal(res)
	assert.JSONEq(t, `{"error":{"code":"unknown_ref","message":"memidx answers memory.recall, memory.expand, memory.sessions and memory.walk, not \"memory.forget\""}}`, string(a))
}

// A walk answers a request it cannot take as a result, as every domain
// failure is; a Go error means the engine failed.
func TestWalkRefusesAsResult(t *testing.T) {
	w := newWorld(t)
	path := w.write("s-walk", msgLine("u1", "", ts, user("one")))
	e := w.engine()
	visit := func(engine.ExpandedEntry) (bool, error) { return true, nil }
	for _, c := range []struct {
		req  engine.ExpandRequest
		code string
	}{
		{engine.ExpandRequest{Session: path, Indices: []int{0}, TextOffset: 3}, coverage.InvalidRequest},
		{engine.ExpandRequest{Session: path, Before: 1}, coverage.InvalidRequest},
		{engine.ExpandRequest{Session: path, MaxChars: -1}, coverage.InvalidRequest},
		{engine.ExpandRequest{Session: path, Indices: []int{9}}, coverage.IndexOutOfBounds},
		{engine.ExpandRequest{Session: "nope"}, coverage.SessionNotFound},
	} {
		res, err := e.Walk(ctx, c.req, visit)
		require.NoError(t, err, "%+v", c.req)
		require.NotNil(t, res)
		require.NotNil(t, res.Error, "%+v", c.req)
		assert.Equal(t, c.code, res.Error.Code)
		assert.False(t, res.Complete)
		assert.Equal(t, []string{c.code}, res.Reasons)
		assert.True(t, errors.Is(res.Err(), engine.ErrorCode(c.code)))
		assert.Zero(t, res.Visited)
	}
}

// A host opens an engine with engine's own types.
func TestOptionsNeedOnlyEngine(t *testing.T) {
	w := newWorld(t)
	w.write("s-opt", msgLine("u1", "", ts, user("zqoptions")))
	cfg := engine.DefaultConfig()
	cfg.IndexDir = filepath.Join(w.root, "index-opt")
	env := engine.Env{Home: w.env.Home, Cwd: w.project, TmpDir: w.root, LookupEnv: engine.EnvMap(nil)}
	e, err := engine.Open(engine.Options{AgentDir: w.agent, Memory: &cfg, Env: &env})
	require.NoError(t, err)
	var c engine.Config = e.Config()
	assert.Equal(t, cfg.IndexDir, c.IndexDir)
	var d engine.Dirs = e.Dirs()
	assert.Equal(t, w.agent, d.AgentDir)
	var n []engine.Notice = e.Notices()
	assert.Empty(t, n)
	assert.Equal(t, 1, recall(t, e, engine.RecallRequest{Query: "zqoptions", Scope: engine.ScopeProject}).Total)
}

// A host opens an engine with its own capability catalog without importing
// the catalog package: engine names the type and its constructors.
func TestCatalogThroughEngine(t *testing.T) {
	def := engine.DefaultCatalog()
	require.Len(t, def.Providers(), 1)
	assert.Equal(t, "memory", def.Providers()[0].Name)
	assert.Equal(t, "memory", engine.MemoryCatalogProvider().Name)

	c, err := engine.LoadCatalog("../internal/catalog/testdata/catalog.json")
	require.NoError(t, err)
	var p engine.CatalogProvider = engine.CatalogProvider{Name: "host", Description: "the host's own actions",
		Actions: []engine.CatalogAction{{Name: "ping", Description: "answer pong", Risk: "read"}}}
	require.NoError(t, c.Register(p))
	root := t.TempDir()
	cfg := engine.DefaultConfig()
	cfg.IndexDir = filepath.Join(root, "index")
	env := engine.Env{Home: root, Cwd: root, TmpDir: root}
	e, err := engine.Open(engine.Options{AgentDir: root, Memory: &cfg, Env: &env, Catalog: c})
	require.NoError(t, err)
	defer e.Close()
	var got *engine.Catalog = e.Catalog()
	assert.Same(t, c, got)
	require.NoError(t, c.SetQuarantined("host.ping", true))
	err = c.SetQuarantined("host.nope", true)
	var eo *engine.ErrorObject
	require.ErrorAs(t, err, &eo)
	assert.True(t, errors.Is(err, engine.ErrActionNotFound))
	assert.True(t, c.Unregister("host"))
	assert.False(t, c.Unregister("host"))
	err = c.Register(engine.CatalogProvider{Name: "bad.name"})
	assert.ErrorIs(t, err, engine.ErrInvalidCatalog)

	_, err = engine.LoadCatalog(filepath.Join(root, "nope.json"))
	assert.Error(t, err)
}

// The zero Catalog is an empty one, ready to use: an engine opened with it
// serves its memory provider, and a host may register its own.
func TestZeroCatalog(t *testing.T) {
	var c engine.Catalog
	assert.Empty(t, c.Providers())
	require.NoError(t, c.Register(engine.CatalogProvider{Name: "host",
		Actions: []engine.CatalogAction{{Name: "ping", Risk: "read"}}}))
	root := t.TempDir()
	cfg := engine.DefaultConfig()
	cfg.IndexDir = filepath.Join(root, "index")
	env := engine.Env{Home: root, Cwd: root, TmpDir: root}
	e, err := engine.Open(engine.Options{AgentDir: root, Memory: &cfg, Env: &env, Catalog: &engine.Catalog{}})
	require.NoError(t, err)
	defer e.Close()
	var names []string
	for _, p := range e.Catalog().Providers() {
		names = append(names, p.Name)
	}
	assert.Equal(t, []string{"memory"}, names)
}

// TestTypedRequestConstants: modes, matches, branch modes and scopes are
// typed, and a typed request encodes as the wire spells it.
func TestTypedRequestConstants(t *testing.T) {
	req := engine.RecallRequest{Query: "x", QueryMode: engine.ModePhrase, QueryMatch: engine.MatchAll,
		Branches: engine.BranchesAll, Scope: engine.ScopeOf("0190abcd")}
	b, err := json.Marshal(req)
	require.NoError(t, err)
	var wire map[string]any
	require.NoError(t, json.Unmarshal(b, &wire))
	assert.Equal(t, "phrase", wire["queryMode"])
	assert.Equal(t, "all", wire["queryMatch"])
	assert.Equal(t, "all", wire["branches"])
	assert.Equal(t, "session:0190abcd", wire["scope"])
	var back engine.RecallRequest
	require.NoError(t, json.Unmarshal(b, &back))
	assert.Equal(t, engine.ScopeOf("0190abcd"), back.Scope)
	assert.Equal(t, engine.ModePhrase, back.QueryMode)
}
