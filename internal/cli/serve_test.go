package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/engine"
)

// A malformed message gets an error and the server goes on.
func TestServeMalformed(t *testing.T) {
	w := newServeWorld(t)
	for _, tc := range []struct {
		name  string
		input string
		code  int
		id    string
	}{
		{"not JSON", `{"jsonrpc":`, rpcParseError, "null"},
		{"not an object", `42`, rpcInvalidRequest, "null"},
		{"no jsonrpc", `{"id":1,"method":"tools.catalog"}`, rpcInvalidRequest, "1"},
		{"no method", `{"jsonrpc":"2.0","id":"a"}`, rpcInvalidRequest, `"a"`},
		{"method not a string", `{"jsonrpc":"2.0","id":2,"method":5}`, rpcInvalidRequest, "2"},
		{"object id", `{"jsonrpc":"2.0","id":{},"method":"tools.catalog"}`, rpcInvalidRequest, "null"},
		{"unknown method", req(3, "memory.nope", nil), rpcMethodNotFound, "3"},
		{"unknown $/ request", req(4, "$/nope", nil), rpcMethodNotFound, "4"},
		{"cancel without id", req(5, "$/cancelRequest", map[string]any{}), rpcInvalidParams, "5"},
		{"tools.call without ref", req(6, "tools.call", map[string]any{"args": map[string]any{}}), rpcInvalidParams, "6"},
		{"setLive with a stray field", req(7, "host.setLive", map[string]any{"file": "x"}), rpcInvalidParams, "7"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ms := roundTripMessages(t, w.server(), tc.input, req("after", "tools.catalog", nil))
			require.Len(t, ms, 2)
			got := byID(ms)
			m, ok := got[tc.id]
			require.True(t, ok, "no answer with id %s: %s", tc.id, ms[0].raw)
			require.NotNil(t, m.Error, "%s", m.raw)
			assert.Equal(t, tc.code, m.Error.Code, "%s", m.raw)
			assert.Nil(t, got[`"after"`].Error, "serve goes on after a bad message")
		})
	}
}

func TestServeBatch(t *testing.T) {
	w := newServeWorld(t)
	w.write("s1", "the deploy timeout is thirty seconds", "raise it")
	for _, tc := range []struct {
		name  string
		input string
		// want is the answer line: "" for none; a batch answer is the list
		// of its ids and error codes.
		want string
	}{
		{"requests and a notification", "[" + req(1, "tools.catalog", nil) + "," + req(nil, "tools.catalog", nil) + "," +
			req("two", "memory.recall", map[string]any{"query": "deploy", "scope": "global"}) + "]", `[1 "two"]`},
		{"empty", `[]`, "single -32600"},
		{"only notifications", "[" + req(nil, "tools.catalog", nil) + "," + req(nil, "memory.sessions", nil) + "]", ""},
		{"bad elements", `[1,{"jsonrpc":"2.0"},` + req(9, "tools.catalog", nil) + `]`, `[null:-32600 null:-32600 9]`},
		{"invalid params inside", "[" + req(1, "memory.recall", map[string]any{"bogus": 1}) + "," + req(2, "memory.nope", nil) + "]", `[1:-32602 2:-32601]`},
		{"not JSON", `[{"jsonrpc":"2.0",`, "single -32700"},
		{"setLive then a call", "[" + req(1, "host.setLive", map[string]any{"sessionFile": "/x"}) + "," + req(2, "test.live", nil) + "]", `[1 2]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := w.server()
			s.extra = map[string]handler{"test.live": func(ctx context.Context, s *server, c *call) (any, error) { return s.conn.get().File, nil }}
			lines := roundTrip(t, s, tc.input)
			if tc.want == "" {
				assert.Empty(t, lines)
				return
			}
			require.Len(t, lines, 1, "one answer for one batch")
			if strings.HasPrefix(tc.want, "single ") {
				m := decodeMessage(t, []byte(lines[0]))
				require.NotNil(t, m.Error, lines[0])
				assert.Equal(t, tc.want, fmt.Sprintf("single %d", m.Error.Code))
				assert.Equal(t, "null", m.id())
				return
			}
			var arr []message
			require.NoError(t, json.Unmarshal([]byte(lines[0]), &arr), lines[0])
			var got []string
			for _, m := range arr {
				s := m.id()
				if m.Error != nil {
					s += fmt.Sprintf(":%d", m.Error.Code)
				}
				got = append(got, s)
			}
			assert.Equal(t, tc.want, "["+strings.Join(got, " ")+"]", lines[0])
			if tc.name == "setLive then a call" {
				assert.Equal(t, `"/x"`, string(arr[1].Result), "a call after host.setLive in a batch sees it")
			}
		})
	}
}

// host.setLive takes effect before the next message is read: a call read
// after it sees it, or a live session set later still (calls run
// concurrently and read the live session when they run).
func TestServeSetLiveOrdering(t *testing.T) {
	w := newServeWorld(t)
	s := w.server()
	s.extra = map[string]handler{"test.live": func(ctx context.Context, s *server, c *call) (any, error) { return s.conn.get().File, nil }}
	var input []string
	for i := 0; i < 50; i++ {
		input = append(input, req(nil, "host.setLive", map[string]any{"sessionFile": fmt.Sprint("/f", i)}), req(i, "test.live", nil))
	}
	input = append(input, req(nil, "host.setLive", nil), req("cleared", "test.live", nil))
	got := byID(roundTripMessages(t, s, input...))
	require.Len(t, got, 51)
	for i := 0; i < 50; i++ {
		var seen string
		require.NoError(t, json.Unmarshal(got[fmt.Sprint(i)].Result, &seen))
		if seen == "" {
			continue // the clearing host.setLive, read after it
		}
		var j int
		_, err := fmt.Sscanf(seen, "/f%d", &j)
		require.NoError(t, err)
		assert.GreaterOrEqual(t, j, i, "call %d saw a live session set before its own", i)
	}
	assert.Equal(t, `""`, string(got[`"cleared"`].Result))
}

func TestServeCancel(t *testing.T) {
	w := newServeWorld(t)
	for _, tc := range []struct {
		name string
		run  func(t *testing.T, l *live, started <-chan struct{})
	}{
		{"a running call", func(t *testing.T, l *live, started <-chan struct{}) {
			l.send(req(7, "test.block", nil))
			l.none(50 * time.Millisecond)
			l.send(req(nil, "$/cancelRequest", map[string]any{"id": 7}))
			m := l.next()
			assert.Equal(t, "7", m.id())
			require.NotNil(t, m.Error, "%s", m.raw)
			assert.Equal(t, rpcRequestCancelled, m.Error.Code)
		}},
		{"a string id, answered when asked", func(t *testing.T, l *live, started <-chan struct{}) {
			l.send(req("a b", "test.block", nil), req("c", "$/cancelRequest", map[string]any{"id": "a b"}))
			got := byID([]message{l.next(), l.next()})
			assert.JSONEq(t, `{"cancelled":true}`, string(got[`"c"`].Result))
			require.NotNil(t, got[`"a b"`].Error)
			assert.Equal(t, rpcRequestCancelled, got[`"a b"`].Error.Code)
		}},
		{"an unknown id changes nothing", func(t *testing.T, l *live, started <-chan struct{}) {
			l.send(req(1, "$/cancelRequest", map[string]any{"id": 99}), req(2, "tools.catalog", nil))
			got := byID([]message{l.next(), l.next()})
			assert.JSONEq(t, `{"cancelled":false}`, string(got["1"].Result))
			assert.Nil(t, got["2"].Error)
		}},
		{"a queued call, while every slot is busy", func(t *testing.T, l *live, started <-chan struct{}) {
			for i := 0; i < serveRunning; i++ {
				l.send(req(fmt.Sprint("busy", i), "test.block", nil))
			}
			for i := 0; i < serveRunning; i++ {
				<-started // every busy call holds its slot
			}
			l.send(req("queued", "tools.catalog", nil))
			l.none(50 * time.Millisecond)
			l.send(req(nil, "$/cancelRequest", map[string]any{"id": "queued"}))
			m := l.next()
			assert.Equal(t, `"queued"`, m.id())
			require.NotNil(t, m.Error, "%s", m.raw)
			assert.Equal(t, rpcRequestCancelled, m.Error.Code)
			for i := 0; i < serveRunning; i++ {
				l.send(req(nil, "$/cancelRequest", map[string]any{"id": fmt.Sprint("busy", i)}))
			}
			for i := 0; i < serveRunning; i++ {
				assert.Equal(t, rpcRequestCancelled, l.next().Error.Code)
			}
		}},
		{"one element of a batch", func(t *testing.T, l *live, started <-chan struct{}) {
			l.send("[" + req(1, "test.block", nil) + "," + req(2, "tools.catalog", nil) + "]")
			l.none(50 * time.Millisecond)
			l.send(req(nil, "$/cancelRequest", map[string]any{"id": 1}))
			var arr []message
			require.NoError(t, json.Unmarshal([]byte(l.next().raw), &arr))
			require.Len(t, arr, 2)
			assert.Equal(t, rpcRequestCancelled, arr[0].Error.Code)
			assert.Nil(t, arr[1].Error)
		}},
		{"other calls answer while one blocks", func(t *testing.T, l *live, started <-chan struct{}) {
			l.send(req(1, "test.block", nil), req(2, "tools.catalog", nil))
			assert.Equal(t, "2", l.next().id())
			l.send(req(nil, "$/cancelRequest", map[string]any{"id": 1}))
			assert.Equal(t, "1", l.next().id())
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := w.server()
			started := make(chan struct{}, 100)
			s.extra = map[string]handler{"test.block": func(ctx context.Context, s *server, c *call) (any, error) {
				started <- struct{}{}
				return blockHandler(ctx, s, c)
			}}
			l := startLive(t, s)
			tc.run(t, l, started)
			assert.Empty(t, l.close())
		})
	}
}

// The engine's own calls stop on cancellation too.
func TestServeCancelEngineCall(t *testing.T) {
	w := newServeWorld(t)
	for i := 0; i < 30; i++ {
		w.write(fmt.Sprint("s", i), strings.Repeat("lorem ipsum dolor sit amet ", 2000), "reply")
	}
	s := w.server()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	c := &call{req: rpcRequest{JSONRPC: "2.0", ID: json.RawMessage("1"), Method: "memory.rebuild"}, ctx: ctx, cancelFn: cancel}
	s.out = &frameWriter{w: bufio.NewWriter(io.Discard)}
	resp := s.dispatch(c)
	require.NotNil(t, resp.Error)
	assert.Equal(t, rpcRequestCancelled, resp.Error.Code)
}

func TestServeFraming(t *testing.T) {
	w := newServeWorld(t)
	frame := func(body string) string { return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body) }
	for _, tc := range []struct {
		name  string
		input string
		want  string // the whole output, with "«N»" for a body's length
	}{
		{"lines", req(1, "host.setLive", nil) + "\n" + req(2, "host.setLive", nil) + "\n",
			`{"jsonrpc":"2.0","id":1,"result":{"ok":true}}` + "\n" + `{"jsonrpc":"2.0","id":2,"result":{"ok":true}}` + "\n"},
		{"last line without newline", req(1, "host.setLive", nil), `{"jsonrpc":"2.0","id":1,"result":{"ok":true}}` + "\n"},
		{"content-length", frame(req(1, "host.setLive", nil)) + frame(req(2, "host.setLive", nil)),
			frame(`{"jsonrpc":"2.0","id":1,"result":{"ok":true}}`) + frame(`{"jsonrpc":"2.0","id":2,"result":{"ok":true}}`)},
		{"content-length, any case, other headers, a body over lines", "content-length: 50\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n" +
			"{\"jsonrpc\":\"2.0\",\n\"id\":1,\n\"method\":\"host.setLive\"}",
			frame(`{"jsonrpc":"2.0","id":1,"result":{"ok":true}}`)},
		{"content-length, a header without length, then a good one", frame(req(1, "host.setLive", nil)) + "Content-Type: x\r\n\r\n" + frame(req(2, "host.setLive", nil)),
			frame(`{"jsonrpc":"2.0","id":1,"result":{"ok":true}}`) + frame(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"a message needs a Content-Length header"}}`) +
				frame(`{"jsonrpc":"2.0","id":2,"result":{"ok":true}}`)},
		{"content-length, a batch", frame("[" + req(1, "host.setLive", nil) + "]"), frame(`[{"jsonrpc":"2.0","id":1,"result":{"ok":true}}]`)},
		{"a line stream that starts like a header", "Content\n" + req(1, "host.setLive", nil) + "\n",
			`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: invalid character 'C' looking for beginning of value"}}` + "\n" +
				`{"jsonrpc":"2.0","id":1,"result":{"ok":true}}` + "\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out bytes.Buffer
			require.NoError(t, w.server().serveStream(strings.NewReader(tc.input), &out))
			assert.Equal(t, tc.want, out.String())
		})
	}
}

// A line client that sends one short message and waits is answered: the
// framing is detected without waiting for more bytes than it sent.
func TestServeFramingDetectionDoesNotWait(t *testing.T) {
	w := newServeWorld(t)
	for _, first := range []string{req(1, "host.setLive", nil), "{}", "C"} {
		l := startLive(t, w.server())
		l.send(first)
		m := l.next()
		assert.NotEqual(t, "", string(m.raw))
		l.close()
	}
}

func TestServeInvalidParams(t *testing.T) {
	w := newServeWorld(t)
	p := w.write("s1", "the deploy timeout is thirty seconds", "raise it", "ok")
	for _, tc := range []struct {
		name   string
		method string
		params any
		// code is the memidx code; rpc is -32602 for a request error, 0
		// for a result that carries it.
		code string
		rpc  int
	}{
		{"recall: unknown argument", "memory.recall", map[string]any{"bogus": 1}, "invalid_request", rpcInvalidParams},
		{"recall: wrong type", "memory.recall", map[string]any{"query": 5}, "invalid_request", rpcInvalidParams},
		{"recall: bad scope", "memory.recall", map[string]any{"query": "x", "scope": "galaxy"}, "invalid_scope", rpcInvalidParams},
		{"recall: bad regex", "memory.recall", map[string]any{"query": "(", "queryMode": "regex", "scope": "global"}, "invalid_regex", rpcInvalidParams},
		{"recall: unknown session", "memory.recall", map[string]any{"query": "x", "scope": "session:nope"}, "session_not_found", 0},
		{"expand: no session", "memory.expand", map[string]any{}, "invalid_request", rpcInvalidParams},
		{"expand: stale pointer", "memory.expand", map[string]any{"session": p, "expectedSourceHash": strings.Repeat("0", 64), "indices": []int{0}}, "stale_pointer", 0},
		{"expand: out of bounds", "memory.expand", map[string]any{"session": p, "indices": []int{99}}, "index_out_of_bounds", 0},
		{"expand: address not found", "memory.expand", map[string]any{"session": p, "entryIds": []string{"nope"}}, "address_not_found", 0},
		{"sessions: bad scope", "memory.sessions", map[string]any{"scope": "galaxy"}, "invalid_scope", rpcInvalidParams},
		{"tools.call: unknown ref", "tools.call", map[string]any{"ref": "memory.nope", "args": map[string]any{}}, "unknown_ref", rpcInvalidParams},
		{"tools.call: bad args", "tools.call", map[string]any{"ref": "memory.recall", "args": map[string]any{"bogus": 1}}, "invalid_request", rpcInvalidParams},
		{"tools.describe: unknown action", "tools.describe", map[string]any{"ref": "memory.nope"}, "action_not_found", 0},
		{"tools.search: empty query", "tools.search", map[string]any{"query": ""}, "invalid_request", rpcInvalidParams},
		{"walk: unknown argument", "memory.walk", map[string]any{"session": p, "bogus": 1}, "invalid_request", rpcInvalidParams},
		{"walk: bad page size", "memory.walk", map[string]any{"session": p, "pageSize": 0}, "invalid_request", rpcInvalidParams},
		{"walk: negative text offset", "memory.walk", map[string]any{"session": p, "indices": []int{0}, "textOffset": -1}, "invalid_request", rpcInvalidParams},
		{"walk: unknown session", "memory.walk", map[string]any{"session": "nope"}, "session_not_found", 0},
		{"rebuild: unknown argument", "memory.rebuild", map[string]any{"bogus": 1}, "invalid_request", rpcInvalidParams},
		{"rebuild: bad branches", "memory.rebuild", map[string]any{"branches": "some"}, "invalid_request", rpcInvalidParams},
		{"rebuild: unknown session", "memory.rebuild", map[string]any{"scope": "session:nope"}, "session_not_found", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ms := roundTripMessages(t, w.server(), req(1, tc.method, tc.params))
			require.Len(t, ms, 1)
			m := ms[0]
			var eo struct{ Code, Message string }
			if tc.rpc != 0 {
				require.NotNil(t, m.Error, "%s", m.raw)
				assert.Equal(t, tc.rpc, m.Error.Code)
				require.NoError(t, json.Unmarshal(m.Error.Data, &eo), "%s", m.raw)
				assert.Equal(t, eo.Message, m.Error.Message, "the message is memidx's")
			} else {
				require.Nil(t, m.Error, "%s", m.raw)
				var r struct {
					Error    *struct{ Code, Message string }
					Coverage struct {
						Error *struct{ Code, Message string }
					}
				}
				require.NoError(t, json.Unmarshal(m.Result, &r))
				switch {
				case r.Error != nil:
					eo = *r.Error
				case r.Coverage.Error != nil:
					eo = *r.Coverage.Error
				}
			}
			assert.Equal(t, tc.code, eo.Code, "%s", m.raw)
			assert.NotEmpty(t, eo.Message)
		})
	}
}

func TestServeInitialize(t *testing.T) {
	w := newServeWorld(t)
	for _, method := range []string{"initialize", "rpc.discover"} {
		t.Run(method, func(t *testing.T) {
			ms := byID(roundTripMessages(t, w.server(),
				req(1, method, map[string]any{"processId": 1, "capabilities": map[string]any{}}),
				req(2, "tools.describe", map[string]any{"ref": "memory.recall"})))
			var r initializeResult
			require.NoError(t, json.Unmarshal(ms["1"].Result, &r), "%s", ms["1"].raw)
			assert.Equal(t, "memidx", r.ServerInfo.Name)
			assert.NotEmpty(t, r.ServerInfo.Version)
			assert.Equal(t, "line", r.Framing)
			var d struct {
				InputSchema, OutputSchema json.RawMessage
			}
			require.NoError(t, json.Unmarshal(ms["2"].Result, &d))
			methods := map[string]methodInfo{}
			for _, m := range r.Methods {
				methods[m.Name] = m
			}
			for _, name := range []string{"initialize", "rpc.discover", "memory.recall", "memory.expand", "memory.sessions", "memory.walk",
				"memory.rebuild", "tools.call", "tools.catalog", "tools.search", "tools.describe", "host.setLive"} {
				assert.Contains(t, methods, name)
			}
			assert.JSONEq(t, string(d.InputSchema), string(methods["memory.recall"].InputSchema), "tools.describe's schema")
			assert.JSONEq(t, string(d.OutputSchema), string(methods["memory.recall"].OutputSchema))
			for _, name := range []string{"memory.expand", "memory.sessions", "memory.walk", "memory.rebuild"} {
				assert.True(t, json.Valid(methods[name].InputSchema), name)
				assert.True(t, json.Valid(methods[name].OutputSchema), name)
			}
			assert.Contains(t, string(methods["memory.walk"].InputSchema), `"pageSize"`)
			assert.Len(t, r.Notifications, 2)
			assert.Contains(t, r.Errors, "-32800")
		})
	}
}

// A call that takes long sends "indexing" progress, then "done", then its
// answer; a quick one sends none.
func TestServeWaitProgress(t *testing.T) {
	w := newServeWorld(t)
	for _, tc := range []struct {
		name         string
		after, sleep time.Duration
		want         bool
	}{
		{"slow", 30 * time.Millisecond, 150 * time.Millisecond, true},
		{"quick", time.Second, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := w.server()
			s.progressAfter, s.progressEvery = tc.after, 30*time.Millisecond
			s.extra = map[string]handler{"test.sleep": func(ctx context.Context, s *server, c *call) (any, error) {
				time.Sleep(tc.sleep)
				return "slept", nil
			}}
			ms := roundTripMessages(t, s, req("x", "test.sleep", nil), req(nil, "test.sleep", nil))
			last := ms[len(ms)-1]
			assert.Equal(t, `"x"`, last.id(), "the answer comes last")
			assert.Equal(t, `"slept"`, string(last.Result))
			var msgs []string
			for _, m := range ms[:len(ms)-1] {
				require.Equal(t, "memory.progress", m.Method, "%s", m.raw)
				var p progressParams
				require.NoError(t, json.Unmarshal(m.Params, &p))
				assert.Equal(t, `"x"`, string(p.ID), "progress names the request (a notification has none)")
				msgs = append(msgs, p.Message)
			}
			if !tc.want {
				assert.Empty(t, msgs)
				return
			}
			require.GreaterOrEqual(t, len(msgs), 2, "%v", msgs)
			assert.Equal(t, "done", msgs[len(msgs)-1])
			for _, m := range msgs[:len(msgs)-1] {
				assert.Equal(t, "indexing", m)
			}
		})
	}
}

// An answer with the engine's result spliced in is byte for byte what the
// encoder writes for it.
func TestServeSplicedAnswerIsTheEncoders(t *testing.T) {
	role := "user"
	page := &engine.RecallPage{Total: 1, Hits: []engine.Hit{{Entry: &engine.EntryHit{
		SessionID: "s<1>", Role: &role, Snippet: "a & b \u2028 😀",
		Follow: engine.FabricCall{Ref: "memory.expand", Args: json.RawMessage(`{"sessionId": "s<1>"}`)}}}}}
	results := []*engine.CallResult{
		{Recall: page},
		{Recall: &engine.RecallPage{}},
		{Expand: &engine.ExpandResult{}},
		{Sessions: &engine.SessionsResult{}},
	}
	for _, id := range []string{`1`, ` 7 `, `"a<b>&"`, `null`, `-2.5e3`} {
		for i, cr := range results {
			want, err := marshalJSON(rpcResponse{JSONRPC: "2.0", ID: json.RawMessage(id), Result: cr})
			require.NoError(t, err)
			got := encodeResponse(&rpcResponse{ID: json.RawMessage(id), Result: cr})
			assert.Equal(t, string(want), string(got), "id %s, result %d", id, i)
			// Into a buffer that holds it (writeResponse's, kept from
			// the last answer): the same bytes, in that buffer.
			dst := make([]byte, 0, 4096)
			into := appendResponse(dst, &rpcResponse{ID: json.RawMessage(id), Result: cr})
			assert.Equal(t, string(want), string(into), "id %s, result %d, appended", id, i)
			assert.Same(t, &dst[:1][0], &into[0], "id %s, result %d: written elsewhere", id, i)
		}
	}
}

// memory.rebuild's summary carries the error `memidx rebuild` prints when
// a session is left out of the index.
func TestServeRebuildSaysWhatFailed(t *testing.T) {
	w := newServeWorld(t)
	w.write("good", "hello there", "reply")
	p := filepath.Join(w.bucket, "2026-09-02T10-00-00-000Z_sparse.jsonl")
	require.NoError(t, os.WriteFile(p, nil, 0o644))
	require.NoError(t, os.Truncate(p, 8<<20))
	out := roundTrip(t, w.server(), req(1, "memory.rebuild", nil))
	require.NotEmpty(t, out)
	out = out[len(out)-1:] // after the progress notifications
	var resp struct {
		Result struct {
			Failed int `json:"failed"`
			Error  *struct {
				Code string `json:"code"`
			} `json:"error"`
		} `json:"result"`
	}
	require.NoError(t, json.Unmarshal([]byte(out[0]), &resp), out[0])
	assert.Equal(t, 1, resp.Result.Failed)
	require.NotNil(t, resp.Result.Error, out[0])
	assert.Equal(t, "sessions_failed", resp.Result.Error.Code)
}
