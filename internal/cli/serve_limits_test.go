package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// bigHandler answers with n bytes of text, and counts its calls.
func bigHandler(n int, calls *atomic.Int64) handler {
	text := strings.Repeat("x", n)
	return func(ctx context.Context, s *server, c *call) (any, error) {
		calls.Add(1)
		return text, nil
	}
}

// batchOf is a batch of n requests of method, with ids 0…n-1.
func batchOf(n int, method string) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = req(i, method, nil)
	}
	return "[" + strings.Join(parts, ",") + "]"
}

// A batch of more requests than maxBatch is one invalid-request error that
// names the limit, and none of its requests runs; a batch at the limit is
// answered in full. The answer's bytes are counted: a refused batch of a
// million elements costs a line, not a million answers.
func TestServeBatchRequestLimit(t *testing.T) {
	w := newServeWorld(t)
	million := "[" + strings.Repeat("1,", 1<<20) + "1]"
	for _, tc := range []struct {
		name        string
		input       string
		wantRefused bool
		wantCalls   int64
	}{
		{"at the limit", batchOf(10, "test.big"), false, 10},
		{"one over", batchOf(11, "test.big"), true, 0},
		{"a million tiny elements", million, true, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := w.server()
			l := defaultServeLimits()
			l.maxBatch = 10
			s.setLimits(l)
			var calls atomic.Int64
			s.extra = map[string]handler{"test.big": bigHandler(10, &calls)}
			lines := roundTrip(t, s, tc.input)
			require.Len(t, lines, 1, "one answer for one batch")
			assert.Equal(t, tc.wantCalls, calls.Load(), "requests run")
			if !tc.wantRefused {
				var arr []message
				require.NoError(t, json.Unmarshal([]byte(lines[0]), &arr))
				assert.Len(t, arr, 10)
				return
			}
			assert.Less(t, len(lines[0]), 1024, "the refusal is one short line")
			m := decodeMessage(t, []byte(lines[0]))
			require.NotNil(t, m.Error, lines[0])
			assert.Equal(t, rpcInvalidRequest, m.Error.Code)
			assert.Equal(t, "null", m.id())
			assert.Contains(t, m.Error.Message, "10")
			assert.Contains(t, m.Error.Message, "--max-batch")
		})
	}
}

// The answers a batch holds stay within maxBatchBytes: every request is
// answered exactly once, those past the bound with a limit error naming
// it, and the answer line is counted against the bound.
func TestServeBatchAnswerBytes(t *testing.T) {
	w := newServeWorld(t)
	const limit, answer, n = 64 << 10, 8 << 10, 40
	for _, tc := range []struct {
		name     string
		framing  func(string) string
		maxBytes int64
		errors   bool
	}{
		{"under the bound", func(s string) string { return s }, 1 << 20, false},
		{"over the bound", func(s string) string { return s }, limit, true},
		{"over the bound, content-length", frame, limit, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := w.server()
			l := defaultServeLimits()
			l.maxBatchBytes = tc.maxBytes
			s.setLimits(l)
			var calls atomic.Int64
			s.extra = map[string]handler{"test.big": bigHandler(answer, &calls)}
			var out strings.Builder
			require.NoError(t, s.serveStream(strings.NewReader(tc.framing(batchOf(n, "test.big"))+"\n"), &out))
			body := out.String()
			if i := strings.Index(body, "\r\n\r\n"); strings.HasPrefix(body, "Content-Length:") && i > 0 {
				var length int
				fmt.Sscanf(body, "Content-Length: %d", &length)
				body = body[i+4:]
				require.Equal(t, length, len(body), "Content-Length is the body's")
			}
			var arr []message
			require.NoError(t, json.Unmarshal([]byte(body), &arr))
			require.Len(t, arr, n, "every request answered once")
			seen, refused := map[string]bool{}, 0
			for _, m := range arr {
				assert.False(t, seen[m.id()], "id %s answered twice", m.id())
				seen[m.id()] = true
				if m.Error != nil {
					refused++
					assert.Equal(t, rpcLimitExceeded, m.Error.Code)
					assert.Contains(t, m.Error.Message, "--max-batch-bytes")
					assert.Contains(t, m.Error.Message, fmt.Sprint(tc.maxBytes))
				}
			}
			if !tc.errors {
				assert.Zero(t, refused)
				return
			}
			assert.Positive(t, refused, "some answers are over the bound")
			assert.Less(t, refused, n, "the answers within the bound are given")
			// What the answers hold is the bound, plus the short errors.
			assert.LessOrEqual(t, len(body), limit+refused*512)
			assert.Zero(t, s.batchBytes.held(), "the batch's bytes are released once written")
		})
	}
}

// countingWriter is the write end of the client's request stream: it
// counts the lines serve has taken.
type countingWriter struct {
	w     io.Writer
	lines atomic.Int64
}

func (c *countingWriter) send(line string) error {
	_, err := io.WriteString(c.w, line+"\n")
	if err == nil {
		c.lines.Add(1)
	}
	return err
}

// readAnswers reads answers until the stream ends, none an error, and
// counts them by id.
func readAnswers(t *testing.T, r io.Reader) map[string]int {
	seen := map[string]int{}
	dec := json.NewDecoder(r)
	for {
		var m message
		if err := dec.Decode(&m); err != nil {
			return seen
		}
		require.Nil(t, m.Error)
		seen[m.id()]++
	}
}

// requireEachOnce checks that n requests were each answered exactly once.
func requireEachOnce(t *testing.T, seen map[string]int, n int) {
	require.Len(t, seen, n)
	for id, k := range seen {
		assert.Equal(t, 1, k, "id %s", id)
	}
}

// A client that does not read its answers gets back-pressure: once the
// answers waiting for it reach maxQueuedBytes, serve starts no more calls
// and reads no more requests, instead of holding a thousand answers; when
// the client reads, every request is answered exactly once.
func TestServeSlowReaderBackpressure(t *testing.T) {
	w := newServeWorld(t)
	const limit, answer = 64 << 10, 16 << 10
	s := w.server()
	l := defaultServeLimits()
	l.maxQueuedBytes = limit
	s.setLimits(l)
	var calls atomic.Int64
	s.extra = map[string]handler{"test.big": bigHandler(answer, &calls)}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- s.serveStream(inR, outW); outW.Close() }()

	client := &countingWriter{w: inW}
	const first, more = 40, 200
	goOn, sent := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(sent)
		defer inW.Close()
		for i := 0; i < first+more; i++ {
			if i == first {
				<-goOn
			}
			if client.send(req(i, "test.big", nil)) != nil {
				return
			}
		}
	}()
	// Nobody reads: the answers queue up to the bound, and stop there.
	require.Eventually(t, func() bool { return s.queuedBytes.held() >= limit }, 10*time.Second, time.Millisecond)
	close(goOn)
	time.Sleep(300 * time.Millisecond)
	// Past the bound: the answers queued when it was reached (a few calls
	// were running then) and one message read meanwhile.
	maxCalls := int64(limit/answer + serveRunning + 2)
	assert.LessOrEqual(t, calls.Load(), maxCalls, "calls started while the client did not read")
	assert.LessOrEqual(t, client.lines.Load(), int64(first+2), "requests read while the client did not read")
	assert.LessOrEqual(t, s.queuedBytes.held(), int64(limit+(serveRunning+2)*(answer+100)), "answer bytes queued")

	// The client reads: everything is answered, each once.
	seen := readAnswers(t, outR)
	<-sent
	require.NoError(t, <-done)
	requireEachOnce(t, seen, first+more)
}

// An id that is not valid UTF-8 is refused, and every answer line is valid
// UTF-8 JSON, wherever the id appears.
func TestServeInvalidUTF8ID(t *testing.T) {
	w := newServeWorld(t)
	bad := "\"a\xff\xfeb\""
	for _, tc := range []struct {
		name  string
		input string
		code  int
	}{
		{"request", `{"jsonrpc":"2.0","id":` + bad + `,"method":"tools.catalog"}`, rpcInvalidRequest},
		{"unknown method", `{"jsonrpc":"2.0","id":` + bad + `,"method":"nope"}`, rpcInvalidRequest},
		{"request that does not decode", `{"jsonrpc":"2.0","id":` + bad + `,"method":5}`, rpcInvalidRequest},
		{"in a batch", `[{"jsonrpc":"2.0","id":` + bad + `,"method":"tools.catalog"}]`, rpcInvalidRequest},
		{"cancel of such an id", `{"jsonrpc":"2.0","id":1,"method":"$/cancelRequest","params":{"id":` + bad + `}}`, rpcInvalidParams},
		{"header-framed", frame(`{"jsonrpc":"2.0","id":` + bad + `,"method":"tools.catalog"}`), rpcInvalidRequest},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out strings.Builder
			require.NoError(t, w.server().serveStream(strings.NewReader(tc.input+"\n"), &out))
			require.NotEmpty(t, out.String())
			assert.True(t, utf8.ValidString(out.String()), "answer %q", out.String())
			assert.NotContains(t, out.String(), "\xff")
			assert.Contains(t, out.String(), fmt.Sprintf(`"code":%d`, tc.code), "refused")
		})
	}
}

// frame is body with a Content-Length header.
func frame(body string) string { return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body) }

// The limit flags take positive numbers.
func TestServeLimitFlags(t *testing.T) {
	for _, flag := range []string{"--max-batch", "--max-batch-bytes", "--max-queued-bytes"} {
		for _, v := range []string{"0", "-1", "x"} {
			r := runCLI(t, []string{"serve", "--stdio", flag, v}, "", false)
			assert.Equal(t, 2, r.code, "%s %s: %s%s", flag, v, r.stdout, r.stderr)
		}
	}
}

// Calls read and not yet answered hold their arguments: past
// maxPendingBytes serve stops reading requests until calls end, instead of
// holding up to serveQueued messages of 16 MiB; every request is still
// answered exactly once.
func TestServePendingRequestBytes(t *testing.T) {
	w := newServeWorld(t)
	const limit, arg = 64 << 10, 16 << 10
	s := w.server()
	l := defaultServeLimits()
	l.maxPendingBytes = limit
	s.setLimits(l)
	var started atomic.Int64
	gate := make(chan struct{})
	s.extra = map[string]handler{"test.hold": func(ctx context.Context, s *server, c *call) (any, error) {
		started.Add(1)
		<-gate
		return "ok", nil
	}}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- s.serveStream(inR, outW); outW.Close() }()
	client := &countingWriter{w: inW}
	const total = 40
	sent := make(chan struct{})
	go func() {
		defer close(sent)
		defer inW.Close()
		for i := 0; i < total; i++ {
			if client.send(req(i, "test.hold", map[string]string{"pad": strings.Repeat("p", arg)})) != nil {
				return
			}
		}
	}()
	require.Eventually(t, func() bool { return s.pendingBytes.held() >= limit-arg-200 }, 10*time.Second, time.Millisecond)
	time.Sleep(300 * time.Millisecond)
	// What fits under the bound, and one message read meanwhile.
	assert.LessOrEqual(t, client.lines.Load(), int64(limit/arg+2), "requests read while calls held their arguments")
	assert.LessOrEqual(t, s.pendingBytes.held(), int64(limit), "argument bytes held")

	close(gate)
	seen := readAnswers(t, outR)
	<-sent
	require.NoError(t, <-done)
	requireEachOnce(t, seen, total)
	assert.Zero(t, s.pendingBytes.held(), "every charge is released")
}
