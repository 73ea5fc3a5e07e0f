package cli

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
)

// framing is how messages are delimited on the stream: one JSON message a
// line, or LSP's "Content-Length: N\r\n\r\n" headers before each body.
// serve detects it from the first bytes the client sends and answers in the
// same framing.
type framing int

const (
	lineFraming framing = iota
	headerFraming
)

func (f framing) String() string {
	if f == headerFraming {
		return "content-length"
	}
	return "line"
}

const contentLengthHeader = "content-length:"

// detectFraming peeks at the first bytes of the stream: a stream that starts
// with "Content-Length:" (any case) is header-framed, anything else is one
// message a line. It peeks one byte at a time, so a line client that sends
// a short message and waits is never blocked.
func detectFraming(r *bufio.Reader) framing {
	for i := 1; i <= len(contentLengthHeader); i++ {
		b, _ := r.Peek(i)
		if len(b) < i {
			return lineFraming // end of input (or an error the reader meets next)
		}
		c := b[i-1]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != contentLengthHeader[i-1] {
			return lineFraming
		}
	}
	return headerFraming
}

// errFrame is a message the reader could not delimit or that was too long;
// the stream goes on with the next message.
type errFrame struct{ msg string }

func (e *errFrame) Error() string { return e.msg }

// frameReader reads one message body at a time.
type frameReader struct {
	r   *bufio.Reader
	f   framing
	max int
}

// next returns the next message. A bad or oversized message comes back as
// *errFrame (answered with a parse error) and reading can go on; at the end
// of input it returns io.EOF, possibly with a last line-framed message.
func (fr *frameReader) next() ([]byte, error) {
	if fr.f == lineFraming {
		line, err := readLine(fr.r, fr.max)
		if errors.Is(err, errLineTooLong) {
			return nil, &errFrame{fmt.Sprintf("message over %d bytes", fr.max)}
		}
		return line, err
	}
	return fr.nextHeaderFramed()
}

// nextHeaderFramed reads "Name: value" header lines up to an empty line,
// then exactly Content-Length bytes of body. Other headers (Content-Type)
// are ignored.
func (fr *frameReader) nextHeaderFramed() ([]byte, error) {
	length := -1
	var bad string
	sawHeader := false
	for {
		line, err := readLine(fr.r, 8<<10)
		if errors.Is(err, errLineTooLong) {
			bad, sawHeader = "header line too long", true
			continue
		}
		if err != nil && len(line) == 0 {
			if err == io.EOF && sawHeader {
				return nil, io.ErrUnexpectedEOF
			}
			return nil, err
		}
		text := strings.TrimRight(string(line), "\r\n")
		if text == "" {
			if !sawHeader {
				continue // blank lines between messages
			}
			break
		}
		sawHeader = true
		name, val, ok := strings.Cut(text, ":")
		if !ok {
			bad = "bad header line " + strconv.Quote(text)
			continue
		}
		if strings.EqualFold(strings.TrimSpace(name), "content-length") {
			n, perr := strconv.Atoi(strings.TrimSpace(val))
			if perr != nil || n < 0 {
				bad = "bad Content-Length " + strconv.Quote(strings.TrimSpace(val))
				continue
			}
			length = n
		}
		if err != nil {
			return nil, io.ErrUnexpectedEOF
		}
	}
	switch {
	case length < 0 && bad == "":
		return nil, &errFrame{"a message needs a Content-Length header"}
	case length < 0:
		return nil, &errFrame{bad}
	case length > fr.max:
		if _, err := io.CopyN(io.Discard, fr.r, int64(length)); err != nil {
			return nil, io.ErrUnexpectedEOF
		}
		return nil, &errFrame{fmt.Sprintf("message over %d bytes", fr.max)}
	}
	body := make([]byte, length)
	if _, err := io.ReadFull(fr.r, body); err != nil {
		return nil, io.ErrUnexpectedEOF
	}
	if bad != "" {
		return nil, &errFrame{bad}
	}
	return body, nil
}

// frameWriter writes whole messages, one at a time, in the stream's
// framing. It is safe for concurrent use: the one place responses and
// notifications meet the stream. A message waiting for the stream (a
// client that reads slowly) is charged to queued until it is written.
type frameWriter struct {
	mu     sync.Mutex
	w      *bufio.Writer
	f      framing
	err    error
	queued *byteGate
}

func (fw *frameWriter) write(body []byte) {
	fw.writePieces([][]byte{bytes.TrimRight(body, "\n")})
}

// writePieces writes one message made of pieces, without joining them
// into one buffer first.
func (fw *frameWriter) writePieces(pieces [][]byte) {
	n := 0
	for _, p := range pieces {
		n += len(p)
	}
	if fw.queued != nil {
		fw.queued.add(int64(n))
		defer fw.queued.release(int64(n))
	}
	fw.mu.Lock()
	defer fw.mu.Unlock()
	if fw.err != nil {
		return
	}
	if fw.f == headerFraming {
		fmt.Fprintf(fw.w, "Content-Length: %d\r\n\r\n", n)
	}
	for _, p := range pieces {
		fw.w.Write(p)
	}
	if fw.f == lineFraming {
		fw.w.WriteByte('\n')
	}
	fw.err = fw.w.Flush()
}

var errLineTooLong = errors.New("line too long")

// readLine reads one line of at most max bytes; a longer line is skipped
// to its end and reported. At the end of input it returns the last line
// with io.EOF.
func readLine(r *bufio.Reader, max int) ([]byte, error) {
	var line []byte
	tooLong := false
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > max {
				tooLong = true
				line = nil
			} else {
				line = append(line, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if tooLong && err == nil {
			return nil, errLineTooLong
		}
		return line, err
	}
}
