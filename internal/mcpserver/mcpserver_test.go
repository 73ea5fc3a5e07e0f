package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/engine"
	"github.com/memidx/memidx/internal/mcpopts"
)

var ctx = context.Background()

// world is a directory of OMP sessions and an index.
type world struct {
	t                            *testing.T
	agent, sessions, index, proj string
	n                            int
}

func newWorld(t *testing.T) *world {
	root := t.TempDir()
	w := &world{t: t, agent: filepath.Join(root, "agent"), sessions: filepath.Join(root, "sessions"),
		index: filepath.Join(root, "index"), proj: filepath.Join(root, "proj")}
	for _, d := range []string{w.agent, w.sessions, w.proj} {
		require.NoError(t, os.MkdirAll(d, 0o755))
	}
	return w
}

// write writes a session of one user message per text, each the child of
// the one before.
func (w *world) write(id string, texts ...string) string {
	w.n++
	p := filepath.Join(w.sessions, fmt.Sprintf("2026-09-01T10-00-%02d-000Z_%s.jsonl", w.n, id))
	var b strings.Builder
	fmt.Fprintf(&b, `{"type":"session","version":3,"id":%q,"timestamp":"2026-09-01T10:00:00.000Z","cwd":%q}`+"\n", id, w.proj)
	parent := "null"
	for i, text := range texts {
		eid := fmt.Sprintf("%s-%d", id, i)
		msg, _ := json.Marshal(map[string]any{"role": "user", "content": text})
		fmt.Fprintf(&b, `{"type":"message","id":%q,"parentId":%s,"timestamp":"2026-09-01T10:%02d:00.000Z","message":%s}`+"\n", eid, parent, i%60, msg)
		parent = fmt.Sprintf("%q", eid)
	}
	require.NoError(w.t, os.WriteFile(p, []byte(b.String()), 0o600))
	return p
}

func (w *world) engine(opts Options) *engine.Engine {
	e, err := engine.Open(engine.Options{AgentDir: w.agent, IndexDir: w.index, SessionDir: w.sessions, Cwd: w.proj,
		LockTimeout: time.Second, WalkPageBytes: mcpopts.WalkPageBytes(opts.MaxResultBytes)})
	require.NoError(w.t, err)
	w.t.Cleanup(func() { e.Close() })
	return e
}

// session is a client connected to a server over e through the SDK's
// in-memory transport; every result it gets is checked against its tool's
// outputSchema and the result bound.
type session struct {
	t       *testing.T
	cs      *mcp.ClientSession
	opts    Options
	schemas map[string]*jsonschema.Resolved
}

func connect(t *testing.T, e *engine.Engine, opts Options) *session {
	st, ct := mcp.NewInMemoryTransports()
	srv := New(e, opts)
	ss, err := srv.Connect(ctx, st, nil)
	require.NoError(t, err)
	t.Cleanup(func() { ss.Close() })
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := client.Connect(ctx, ct, nil)
	require.NoError(t, err)
	t.Cleanup(func() { cs.Close() })
	opts = opts.Filled()
	s := &session{t: t, cs: cs, opts: opts, schemas: map[string]*jsonschema.Resolved{}}
	tools, err := cs.ListTools(ctx, nil)
	require.NoError(t, err)
	for _, tl := range tools.Tools {
		b, err := json.Marshal(tl.OutputSchema)
		require.NoError(t, err)
		var sch jsonschema.Schema
		require.NoError(t, json.Unmarshal(b, &sch), tl.Name)
		r, err := sch.Resolve(nil)
		require.NoError(t, err, tl.Name)
		s.schemas[tl.Name] = r
	}
	return s
}

// call calls a tool and checks its result: structuredContent an object
// valid against the tool's outputSchema, text content, the byte bound.
func (s *session) call(name string, args any) (*mcp.CallToolResult, map[string]any) {
	s.t.Helper()
	res, err := s.cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	require.NoError(s.t, err)
	raw, err := json.Marshal(res)
	require.NoError(s.t, err)
	require.LessOrEqual(s.t, len(raw), s.opts.MaxResultBytes+4096, "%s: the result exceeds the bound", name)
	require.Len(s.t, res.Content, 1)
	require.IsType(s.t, &mcp.TextContent{}, res.Content[0])
	b, err := json.Marshal(res.StructuredContent)
	require.NoError(s.t, err)
	var v map[string]any
	require.NoError(s.t, json.Unmarshal(b, &v), "structuredContent is an object: %s", b)
	require.NoError(s.t, s.schemas[name].Validate(v), "%s: structuredContent does not validate: %.2000s", name, b)
	return res, v
}

func text(r *mcp.CallToolResult) string { return r.Content[0].(*mcp.TextContent).Text }

func errCode(v map[string]any) string {
	if e, ok := v["error"].(map[string]any); ok {
		return e["code"].(string)
	}
	return ""
}

func TestToolsList(t *testing.T) {
	w := newWorld(t)
	s := connect(t, w.engine(Options{}), Options{})
	tools, err := s.cs.ListTools(ctx, nil)
	require.NoError(t, err)
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
		in := tl.InputSchema.(map[string]any)
		assert.Equal(t, "object", in["type"], tl.Name)
		assert.Equal(t, "object", tl.OutputSchema.(map[string]any)["type"], tl.Name)
		assert.NotEmpty(t, tl.Description)
		assert.True(t, tl.Annotations.ReadOnlyHint)
	}
	assert.ElementsMatch(t, []string{"memory_recall", "memory_expand", "memory_sessions", "memory_walk", "memory_call"}, names)
}

// A recall finds a planted fact; its follow, passed to memory_call,
// expands it; expand with context; sessions; every failure an isError
// result with its code.
func TestRecallFollowExpand(t *testing.T) {
	w := newWorld(t)
	p := w.write("planted", "the deploy timeout is thirty seconds", "because the zorblax health check is slow", "we raised it", "done")
	s := connect(t, w.engine(Options{}), Options{})

	res, page := s.call("memory_recall", map[string]any{"query": "zorblax", "scope": "global"})
	require.False(t, res.IsError, text(res))
	hits := page["hits"].([]any)
	require.Len(t, hits, 1)
	hit := hits[0].(map[string]any)
	assert.Contains(t, text(res), "zorblax")
	assert.Contains(t, text(res), `follow: {"ref":"memory.expand"`)

	res, exp := s.call("memory_call", hit["follow"])
	require.False(t, res.IsError, text(res))
	entries := exp["entries"].([]any)
	require.Len(t, entries, 1)
	assert.Equal(t, "because the zorblax health check is slow", entries[0].(map[string]any)["text"])

	args := hit["follow"].(map[string]any)["args"].(map[string]any)
	args["before"], args["after"] = 1, 2
	res, exp = s.call("memory_expand", args)
	require.False(t, res.IsError, text(res))
	assert.Len(t, exp["entries"].([]any), 4)
	assert.Contains(t, text(res), "we raised it")

	res, list := s.call("memory_sessions", map[string]any{"scope": "global"})
	require.False(t, res.IsError, text(res))
	assert.Len(t, list["sessions"].([]any), 1)

	for _, c := range []struct {
		name, tool string
		args       any
		code       string
	}{
		{"invalid regex", "memory_recall", map[string]any{"query": "(", "queryMode": "regex", "scope": "global"}, "invalid_regex"},
		{"unknown argument", "memory_recall", map[string]any{"query": "x", "bogus": true}, "invalid_request"},
		{"a role the engine refuses", "memory_recall", map[string]any{"role": "wizard"}, "invalid_request"},
		{"invalid scope", "memory_sessions", map[string]any{"scope": "galaxy"}, "invalid_scope"},
		{"no such session", "memory_expand", map[string]any{"session": "nope", "indices": []int{0}}, "session_not_found"},
		{"stale pointer", "memory_expand", map[string]any{"session": p, "indices": []int{0}, "expectedSourceHash": strings.Repeat("0", 64)}, "stale_pointer"},
		{"walk: bad page size", "memory_walk", map[string]any{"session": p, "pageSize": 0}, "invalid_request"},
		{"call: unknown ref", "memory_call", map[string]any{"ref": "memory.forget", "args": map[string]any{}}, "unknown_ref"},
		{"call: not a token", "memory_call", map[string]any{"follow": 1}, "invalid_request"},
		{"call: bad args", "memory_call", map[string]any{"ref": "memory.recall", "args": map[string]any{"pageSize": "ten"}}, "invalid_request"},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, v := s.call(c.tool, c.args)
			assert.True(t, res.IsError, text(res))
			assert.Equal(t, c.code, errCode(v))
			assert.Contains(t, text(res), c.code)
		})
	}

	t.Run("an unknown tool is a protocol error", func(t *testing.T) {
		_, err := s.cs.CallTool(ctx, &mcp.CallToolParams{Name: "memory_forget", Arguments: map[string]any{}})
		require.Error(t, err)
	})
}

// A walk goes to the end through memory_call with every result within
// the bound, an entry of megabytes arriving in chunks with its textRange.
func TestWalkToTheEnd(t *testing.T) {
	w := newWorld(t)
	big := strings.Repeat("a line of a very long tool output <b>&amp; \"quoted\" é 😀\n", 30000) // ~1.8 MB
	texts := []string{"first", big, "middle", big + "tail", "last"}
	w.write("huge", texts...)
	opts := Options{MaxResultBytes: mcpopts.MinMaxResultBytes}
	s := connect(t, w.engine(opts), opts)

	var got []string
	var idx []float64
	res, page := s.call("memory_walk", map[string]any{"session": "huge"})
	pages := 1
	for {
		require.False(t, res.IsError, text(res))
		for i, raw := range page["entries"].([]any) {
			en := raw.(map[string]any)
			tr := en["textRange"].(map[string]any)
			if tr["start"].(float64) > 0 {
				require.Zero(t, i)
				got[len(got)-1] += en["text"].(string)
			} else {
				got = append(got, en["text"].(string))
				idx = append(idx, en["index"].(float64))
			}
		}
		if page["next"] == nil {
			break
		}
		next := page["next"].(map[string]any)
		require.Equal(t, "memory.walk", next["ref"])
		res, page = s.call("memory_call", next)
		pages++
	}
	assert.Equal(t, []float64{0, 1, 2, 3, 4}, idx)
	require.Equal(t, len(texts), len(got))
	for i := range texts {
		require.Equal(t, texts[i], got[i], "entry %d reassembled", i)
	}
	assert.Greater(t, pages, 2*len(big)/mcpopts.MinMaxResultBytes, "megabyte entries take many bounded pages")
}

// The result bound is an error result, never a dead server: a bound the
// structured content alone cannot meet is result_too_large.
func TestResultBound(t *testing.T) {
	s := &server{opts: Options{MaxResultBytes: mcpopts.MinMaxResultBytes}}
	body, _ := json.Marshal(map[string]any{"session": "s", "entries": []any{}, "next": nil, "pad": strings.Repeat("x", mcpopts.MinMaxResultBytes)})
	r := s.bounded("memory.walk", &mcp.CallToolResult{StructuredContent: json.RawMessage(body)}, body, "text")
	require.True(t, r.IsError)
	assert.Contains(t, text(r), codeTooLarge)

	small, _ := json.Marshal(map[string]any{"session": "s", "entries": []any{}, "next": nil})
	long := strings.Repeat("y", mcpopts.MinMaxResultBytes)
	r = s.bounded("memory.walk", &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: long}}, StructuredContent: json.RawMessage(small)}, small, long)
	require.False(t, r.IsError)
	assert.Less(t, len(text(r)), 1000, "a text past the bound becomes a summary")
}
