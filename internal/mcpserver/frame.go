package mcpserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/memidx/memidx/engine"
)

// The SDK ends the connection on a message longer than its line limit or
// one that is not JSON; a host that sent one would lose the server.
// limitedLines keeps such a message from the SDK: it drops the line
// (without holding an overlong one) and answers it with a JSON-RPC error,
// invalid request or parse error, on the shared writer. A batch, which
// MCP no longer has, and a message the SDK's decoder refuses (no
// "jsonrpc":"2.0", an id of another type), on which the SDK ends the
// connection too, are refused alike.

// drainTimeout bounds how long the end of the input waits for the answers
// of the calls read: a walk's own budget, engine.DefaultWalkTimeout.
const drainTimeout = engine.DefaultWalkTimeout

// lockedWriter writes each message whole (the SDK writes one message a
// Write, and so does limitedLines) and counts the answers to calls.
type lockedWriter struct {
	mu      sync.Mutex
	w       io.WriteCloser
	pending *pending
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if isAnswer(p) {
		defer l.pending.done()
	}
	return l.w.Write(p)
}

// isAnswer tells a response from a request or notification by its first
// keys, without reading the rest (a result may be a megabyte).
func isAnswer(msg []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(msg))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return false
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return false
		}
		switch key {
		case "result", "error":
			return true
		case "method":
			return false
		}
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return false
		}
	}
	return false
}

// pending counts the calls read and not yet answered, so that the input
// ending waits for their answers.
type pending struct {
	mu   sync.Mutex
	cond *sync.Cond
	n    int
}

func newPending() *pending {
	p := &pending{}
	p.cond = sync.NewCond(&p.mu)
	return p
}

func (p *pending) add() {
	p.mu.Lock()
	p.n++
	p.mu.Unlock()
}

func (p *pending) done() {
	p.mu.Lock()
	if p.n > 0 {
		p.n--
	}
	p.mu.Unlock()
	p.cond.Broadcast()
}

// wait waits for every call read to be answered, at most d: a call the
// SDK never answers must not keep the process alive.
func (p *pending) wait(d time.Duration) {
	t := time.AfterFunc(d, func() {
		p.mu.Lock()
		p.n = 0
		p.mu.Unlock()
		p.cond.Broadcast()
	})
	defer t.Stop()
	p.mu.Lock()
	for p.n > 0 {
		p.cond.Wait()
	}
	p.mu.Unlock()
}

func (l *lockedWriter) Close() error { return l.w.Close() }

// limitedLines passes the lines of r of at most max bytes; a longer one is
// dropped and answered on out.
type limitedLines struct {
	r      *bufio.Reader
	closer io.Closer
	out    *lockedWriter
	max    int
	rest   []byte // what the SDK has not read yet of the current line
}

func newLimitedLines(in io.ReadCloser, out *lockedWriter, max int) *limitedLines {
	return &limitedLines{r: bufio.NewReaderSize(in, 64<<10), closer: in, out: out, max: max}
}

// Read passes the next lines; at the end of the input it first waits for
// the answers of the calls read, as serve does.
func (l *limitedLines) Read(p []byte) (int, error) {
	for len(l.rest) == 0 {
		line, err := l.line()
		if len(line) > 0 {
			l.rest = line
			break
		}
		if err != nil {
			l.out.pending.wait(drainTimeout)
			return 0, err
		}
	}
	n := copy(p, l.rest)
	l.rest = l.rest[n:]
	return n, nil
}

// line reads the next line (with its newline) of at most max bytes,
// answering and skipping longer ones.
func (l *limitedLines) line() ([]byte, error) {
	var buf []byte
	for {
		chunk, err := l.r.ReadSlice('\n')
		if len(buf)+len(chunk) > l.max+1 { // +1: the newline
			if err = l.skip(chunk, err); err == nil {
				return nil, nil // the reader goes on with the next line
			}
			return nil, err
		}
		buf = append(buf, chunk...)
		if err != bufio.ErrBufferFull {
			switch msg := bytes.TrimSpace(buf); {
			case len(msg) == 0:
			case !json.Valid(msg):
				l.answer(-32700, "parse error: a message is one JSON object on one line")
				return nil, err
			case msg[0] != '{':
				l.answer(-32600, "invalid request: a message is one JSON object (MCP has no batches)")
				return nil, err
			default:
				m, derr := jsonrpc.DecodeMessage(msg)
				if derr != nil {
					l.answer(-32600, "invalid request: "+derr.Error())
					return nil, err
				}
				if r, ok := m.(*jsonrpc.Request); ok && r.ID.IsValid() {
					l.out.pending.add()
				}
			}
			return buf, err
		}
	}
}

// skip drops the rest of an overlong line and answers it; its error is
// the input's (nil when a newline ended the line).
func (l *limitedLines) skip(last []byte, err error) error {
	for err == bufio.ErrBufferFull && !bytes.HasSuffix(last, []byte{'\n'}) {
		last, err = l.r.ReadSlice('\n')
	}
	l.answer(-32600, fmt.Sprintf("a message holds at most %d bytes (--max-message-bytes); this one was dropped", l.max))
	if err == bufio.ErrBufferFull {
		return nil
	}
	return err
}

// answer writes an error answer with no id, for a message the SDK never
// sees.
func (l *limitedLines) answer(code int, message string) {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": nil, "error": map[string]any{"code": code, "message": message}})
	_, _ = l.out.Write(append(b, '\n'))
}

func (l *limitedLines) Close() error { return l.closer.Close() }
