package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/memidx/memidx/internal/session/locate"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/engine"
	"github.com/memidx/memidx/internal/jsjson"
)

// serveWorld is an agent directory with one project, and an engine over
// it as serve opens one.
type serveWorld struct {
	t       *testing.T
	root    string
	agent   string
	project string
	bucket  string
	index   string
	env     locate.Env
	n       int
}

func newServeWorld(t *testing.T) *serveWorld {
	root := t.TempDir()
	w := &serveWorld{t: t, root: root, agent: filepath.Join(root, "home", ".omp", "agent"),
		project: filepath.Join(root, "proj"), index: filepath.Join(root, "index")}
	require.NoError(t, os.MkdirAll(w.project, 0o755))
	w.env = locate.Env{Home: filepath.Join(root, "home"), Cwd: w.project, TmpDir: filepath.Join(root, "tmp"), LookupEnv: locate.EnvMap(nil)}
	w.bucket = filepath.Join(w.agent, "sessions", locate.BucketNames(w.project, w.env)[0])
	require.NoError(t, os.MkdirAll(w.bucket, 0o755))
	return w
}

func (w *serveWorld) engine(conn *connLive) *engine.Engine {
	cfg := engine.DefaultConfig()
	cfg.IndexDir = w.index
	env := engine.Env(w.env)
	opt := engine.Options{AgentDir: w.agent, Cwd: w.project, Env: &env, Memory: &cfg, LockTimeout: time.Second}
	if conn != nil {
		opt.Live = conn
	}
	e, err := engine.Open(opt)
	require.NoError(w.t, err)
	return e
}

// server is a serve connection over the world, as cmdServe builds it,
// without the wait progress notifications (a slow machine would send them
// for any call; TestServeWaitProgress turns them on).
func (w *serveWorld) server() *server {
	conn := &connLive{}
	s := newServer(context.Background(), w.engine(conn), conn)
	s.progressAfter = 0
	return s
}

func jsString(s string) string { return string(jsjson.AppendString(nil, s)) }

// write writes a session file: a header, then one user or assistant
// message per text, each the child of the one before.
func (w *serveWorld) write(id string, texts ...string) string {
	w.n++
	p := filepath.Join(w.bucket, fmt.Sprintf("2026-09-01T10-00-%02d-000Z_%s.jsonl", w.n, id))
	var b strings.Builder
	fmt.Fprintf(&b, `{"type":"session","version":3,"id":%q,"timestamp":"2026-09-01T10:00:00.000Z","cwd":%q}`+"\n", id, w.project)
	for i, text := range texts {
		parent := "null"
		if i > 0 {
			parent = fmt.Sprintf(`"%s-%d"`, id, i-1)
		}
		msg := fmt.Sprintf(`{"role":"user","content":%s}`, jsString(text))
		if i%2 == 1 {
			msg = fmt.Sprintf(`{"role":"assistant","content":[{"type":"text","text":%s}],"stopReason":"stop","usage":{"cost":{"total":0}}}`, jsString(text))
		}
		fmt.Fprintf(&b, `{"type":"message","id":"%s-%d","parentId":%s,"timestamp":"2026-09-01T10:01:%02d.000Z","message":%s}`+"\n", id, i, parent, i%60, msg)
	}
	require.NoError(w.t, os.WriteFile(p, []byte(b.String()), 0o600))
	mt := time.Now().Add(-time.Hour + time.Duration(w.n)*time.Minute)
	require.NoError(w.t, os.Chtimes(p, mt, mt))
	return p
}

// message is one message serve wrote, decoded loosely.
type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int             `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	} `json:"error"`
	raw string
}

func (m message) id() string { return string(m.ID) }

// roundTrip serves the lines of input (one message a line) to the end and
// returns every line written.
func roundTrip(t *testing.T, s *server, input ...string) []string {
	t.Helper()
	var out bytes.Buffer
	require.NoError(t, s.serveStream(strings.NewReader(strings.Join(input, "\n")+"\n"), &out))
	text := strings.TrimRight(out.String(), "\n")
	if text == "" {
		return nil
	}
	return strings.Split(text, "\n")
}

// roundTripMessages is roundTrip with each line decoded; a line that is
// a batch answer fails the test.
func roundTripMessages(t *testing.T, s *server, input ...string) []message {
	t.Helper()
	var out []message
	for _, l := range roundTrip(t, s, input...) {
		out = append(out, decodeMessage(t, []byte(l)))
	}
	return out
}

func decodeMessage(t *testing.T, b []byte) message {
	t.Helper()
	var m message
	require.NoError(t, json.Unmarshal(b, &m), "%s", b)
	m.raw = string(b)
	return m
}

// byID indexes answers by id; notifications are left out.
func byID(ms []message) map[string]message {
	out := map[string]message{}
	for _, m := range ms {
		if m.Method == "" {
			out[m.id()] = m
		}
	}
	return out
}

// live is a serve connection driven message by message through pipes.
type live struct {
	t    *testing.T
	in   *io.PipeWriter
	out  *bufio.Reader
	msgs chan message
	done chan error
}

func startLive(t *testing.T, s *server) *live {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	l := &live{t: t, in: inW, out: bufio.NewReader(outR), msgs: make(chan message, 100), done: make(chan error, 1)}
	go func() {
		err := s.serveStream(inR, outW)
		outW.Close()
		l.done <- err
	}()
	go func() {
		defer close(l.msgs)
		for {
			line, err := l.out.ReadBytes('\n')
			if len(bytes.TrimSpace(line)) > 0 {
				var m message
				json.Unmarshal(line, &m) // a batch answer keeps only raw
				m.raw = string(line)
				l.msgs <- m
			}
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() { inW.Close() })
	return l
}

func (l *live) send(lines ...string) {
	for _, s := range lines {
		_, err := io.WriteString(l.in, s+"\n")
		require.NoError(l.t, err)
	}
}

// next returns the next message, failing after a while.
func (l *live) next() message {
	l.t.Helper()
	select {
	case m, ok := <-l.msgs:
		require.True(l.t, ok, "serve ended")
		return m
	case <-time.After(10 * time.Second):
		l.t.Fatal("no message from serve")
	}
	return message{}
}

// none checks that nothing is written for a while.
func (l *live) none(d time.Duration) {
	l.t.Helper()
	select {
	case m := <-l.msgs:
		l.t.Fatalf("unexpected message %s", m.raw)
	case <-time.After(d):
	}
}

// close ends the input and waits for serve to return.
func (l *live) close() []message {
	l.t.Helper()
	l.in.Close()
	var rest []message
	for m := range l.msgs {
		rest = append(rest, m)
	}
	require.NoError(l.t, <-l.done)
	return rest
}

// blockHandler is a method that waits for its context: a call that only a
// cancellation ends.
func blockHandler(ctx context.Context, s *server, c *call) (any, error) {
	<-ctx.Done()
	return nil, ctx.Err()
}

func req(id any, method string, params any) string {
	m := map[string]any{"jsonrpc": "2.0", "method": method}
	if id != nil {
		m["id"] = id
	}
	if params != nil {
		m["params"] = params
	}
	b, _ := json.Marshal(m)
	return string(b)
}
