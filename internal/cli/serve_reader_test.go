package cli

import (
	"context"
	"encoding/json"
	"io"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A call that is one message runs on the goroutine that read it, which
// hands the reading on first (readLoop): a call held open does not keep
// the next message from being read and answered, and the held one is
// answered once let go.
func TestServeRunsACallOnItsReader(t *testing.T) {
	w := newServeWorld(t)
	s := w.server()
	gate := make(chan struct{})
	var onReader, heldStarted atomic.Bool
	s.extra = map[string]handler{
		"test.hold": func(ctx context.Context, s *server, c *call) (any, error) {
			buf := make([]byte, 64<<10)
			onReader.Store(strings.Contains(string(buf[:runtime.Stack(buf, false)]), ".readLoop("))
			heldStarted.Store(true)
			<-gate
			return "held", nil
		},
		"test.quick": func(ctx context.Context, s *server, c *call) (any, error) { return "quick", nil },
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- s.serveStream(inR, outW); outW.Close() }()
	dec := json.NewDecoder(outR)
	next := func() message {
		var m message
		require.NoError(t, dec.Decode(&m))
		return m
	}

	_, err := io.WriteString(inW, req(1, "test.hold", nil)+"\n"+req(2, "test.quick", nil)+"\n")
	require.NoError(t, err)
	first := next()
	assert.JSONEq(t, `2`, string(first.ID), "the quick call is answered while the first is held")
	require.Eventually(t, heldStarted.Load, 10*time.Second, time.Millisecond)
	assert.True(t, onReader.Load(), "the held call runs on the goroutine that read it")

	close(gate)
	second := next()
	assert.JSONEq(t, `1`, string(second.ID))
	require.NoError(t, inW.Close())
	require.NoError(t, <-done)
}

// panicReader gives its text, then panics on the next read.
type panicReader struct{ r io.Reader }

func (p *panicReader) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	if err == io.EOF {
		panic("reader broke")
	}
	return n, err
}

// A reader that panics after the reading was handed on (a call ran on
// the first reader) ends serve with an error, once every call is
// answered, rather than taking the process down; and a call in the
// stream's last, unterminated line is still run and answered.
func TestServeHandedOnReaderPanicEndsServe(t *testing.T) {
	w := newServeWorld(t)
	s := w.server()
	s.extra = map[string]handler{"test.quick": func(ctx context.Context, s *server, c *call) (any, error) { return "quick", nil }}
	var out strings.Builder
	err := s.serveStream(&panicReader{strings.NewReader(req(1, "test.quick", nil) + "\n")}, &out)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "reader broke")
	assert.Contains(t, out.String(), `"id":1`)

	s = w.server()
	s.extra = map[string]handler{"test.quick": func(ctx context.Context, s *server, c *call) (any, error) { return "quick", nil }}
	out.Reset()
	require.NoError(t, s.serveStream(strings.NewReader(req(1, "test.quick", nil)+"\n"+req(2, "test.quick", nil)), &out))
	assert.Contains(t, out.String(), `"id":1`)
	assert.Contains(t, out.String(), `"id":2`, "the last line, without its newline")
}
