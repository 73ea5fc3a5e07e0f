package mcpserver

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// stream is a server on pipes, as on stdio: the test writes lines and
// reads every line the server writes.
type stream struct {
	t    *testing.T
	in   *io.PipeWriter
	out  chan map[string]any
	done chan error
}

func serveStream(t *testing.T, w *world, opts Options) *stream {
	e := w.engine(opts)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	s := &stream{t: t, in: inW, out: make(chan map[string]any, 100), done: make(chan error, 1)}
	go func() {
		s.done <- Serve(context.Background(), e, opts, inR, outW)
		outW.Close()
	}()
	go func() {
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 32<<20)
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				m = map[string]any{"notJSON": sc.Text()}
			}
			s.out <- m
		}
		close(s.out)
	}()
	return s
}

func (s *stream) send(msg string) {
	_, err := io.WriteString(s.in, msg+"\n")
	require.NoError(s.t, err)
}

func (s *stream) next() map[string]any {
	s.t.Helper()
	select {
	case m, ok := <-s.out:
		require.True(s.t, ok, "the server ended its output")
		return m
	case <-time.After(20 * time.Second):
		s.t.Fatal("no message from the server")
	}
	return nil
}

func (s *stream) initialize(version string) map[string]any {
	s.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"` + version + `","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	m := s.next()
	s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return m
}

// The server answers the version a client asks for, writes nothing but
// MCP messages, and ends with nil when its input closes.
func TestStreamNegotiatesAndEnds(t *testing.T) {
	for _, version := range []string{"2025-11-25", "2025-06-18", "2024-11-05"} {
		t.Run(version, func(t *testing.T) {
			w := newWorld(t)
			s := serveStream(t, w, Options{})
			m := s.initialize(version)
			require.Equal(t, float64(0), m["id"])
			assert.Equal(t, version, m["result"].(map[string]any)["protocolVersion"])
			s.send(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
			m = s.next()
			assert.Len(t, m["result"].(map[string]any)["tools"], 5)
			require.NoError(t, s.in.Close())
			select {
			case err := <-s.done:
				assert.NoError(t, err, "stdin closed: exit 0")
			case <-time.After(10 * time.Second):
				t.Fatal("the server does not end when its input closes")
			}
			for m := range s.out {
				t.Errorf("a message after the input closed: %v", m)
			}
		})
	}
}

// A call with a progress token that waits gets notifications/progress
// with the token and an increasing progress, all before its answer; a
// cancelled call stops its work and answers no success.
func TestStreamProgressAndCancel(t *testing.T) {
	w := newWorld(t)
	w.write("s", "one", "two")
	s := serveStream(t, w, Options{ProgressAfter: 10 * time.Millisecond, ProgressEvery: 20 * time.Millisecond})
	s.initialize("2025-11-25")

	release := make(chan struct{})
	cancelled := make(chan bool, 1)
	beforeCall = func(ctx context.Context) {
		select {
		case <-release:
		case <-ctx.Done():
			cancelled <- true
		}
	}
	t.Cleanup(func() { beforeCall = nil })

	s.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"memory_recall","arguments":{"query":"one","scope":"global"},"_meta":{"progressToken":"tok"}}}`)
	var progress []float64
	for len(progress) < 3 {
		m := s.next()
		require.Equal(t, "notifications/progress", m["method"], "%v", m)
		p := m["params"].(map[string]any)
		assert.Equal(t, "tok", p["progressToken"])
		progress = append(progress, p["progress"].(float64))
	}
	close(release)
	for {
		m := s.next()
		if m["method"] == "notifications/progress" {
			continue // sent before the answer
		}
		require.Equal(t, float64(2), m["id"], "%v", m)
		assert.False(t, m["result"].(map[string]any)["isError"] == true)
		break
	}
	for i := 1; i < len(progress); i++ {
		assert.Greater(t, progress[i], progress[i-1], "progress increases")
	}
	// Nothing after the answer: a ping's answer is the next message.
	s.send(`{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	assert.Equal(t, float64(3), s.next()["id"], "no progress after the answer")

	beforeCall = func(ctx context.Context) {
		<-ctx.Done()
		cancelled <- true
	}
	s.send(`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"memory_recall","arguments":{"query":"one","scope":"global"}}}`)
	time.Sleep(50 * time.Millisecond)
	s.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":4,"reason":"test"}}`)
	select {
	case <-cancelled:
	case <-time.After(10 * time.Second):
		t.Fatal("the cancelled call's work did not stop")
	}
	s.send(`{"jsonrpc":"2.0","id":5,"method":"ping"}`)
	for {
		m := s.next()
		if m["id"] == float64(5) {
			break
		}
		if m["method"] == "notifications/progress" {
			continue
		}
		require.Equal(t, float64(4), m["id"], "%v", m)
		assert.Nil(t, m["result"], "no successful answer after a cancel: %v", m)
		assert.Equal(t, float64(codeRequestCancelled), m["error"].(map[string]any)["code"])
	}
}

// A hostile or malformed message is answered with a JSON-RPC error and the
// server goes on (the SDK alone ends the connection on each); the end of
// the input waits for the answers of the calls already read.
func TestStreamSurvivesMalformedMessages(t *testing.T) {
	w := newWorld(t)
	w.write("s", "one", "two")
	s := serveStream(t, w, Options{MaxMessageBytes: 4096})
	s.initialize("2025-11-25")
	for _, c := range []struct {
		name, line string
		code       float64
	}{
		{"longer than the limit", `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"pad":"` + strings.Repeat("x", 100000) + `"}}`, -32600},
		{"not JSON", `{not json`, -32700},
		{"a batch", `[{"jsonrpc":"2.0","id":2,"method":"ping"}]`, -32600},
		{"no version", `{"id":3,"method":"ping"}`, -32600},
		{"an object id", `{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}`, -32600},
		{"a number method", `{"jsonrpc":"2.0","id":4,"method":7}`, -32600},
		{"a bare string", `"ping"`, -32600},
		{"params not an object", `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":7}`, -32602},
		{"an unknown method", `{"jsonrpc":"2.0","id":6,"method":"memory/forget"}`, -32601},
	} {
		t.Run(c.name, func(t *testing.T) {
			s.send(c.line)
			m := s.next()
			require.NotNil(t, m["error"], "%v", m)
			assert.Equal(t, c.code, m["error"].(map[string]any)["code"])
			s.send(`{"jsonrpc":"2.0","id":100,"method":"ping"}`)
			assert.Equal(t, float64(100), s.next()["id"], "the server goes on")
		})
	}

	release := make(chan struct{})
	beforeCall = func(context.Context) { <-release }
	t.Cleanup(func() { beforeCall = nil })
	s.send(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"memory_recall","arguments":{"query":"one","scope":"global"}}}`)
	require.NoError(t, s.in.Close())
	time.Sleep(50 * time.Millisecond)
	close(release)
	m := s.next()
	assert.Equal(t, float64(7), m["id"], "a call read before the input closed is answered")
	assert.NotNil(t, m["result"])
	require.NoError(t, <-s.done)
}
