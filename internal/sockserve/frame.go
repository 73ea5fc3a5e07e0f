package sockserve

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// Socket and lock file names in the index directory.
const (
	SocketName = "memidx.sock"
	LockName   = "memidx.sock.lock"
)

// ErrUnsupported: this platform has no memidx socket.
var ErrUnsupported = errors.New("sockserve: no memidx socket on this platform")

// ErrBusy: another server listens on the index directory's socket.
var ErrBusy = errors.New("sockserve: another memidx server listens on this index directory")

// ForeignFileError is a file at the socket's or the lock's name that is
// not a socket (or lock file) of this user: it is left alone.
type ForeignFileError struct{ Path string }

func (e *ForeignFileError) Error() string {
	return fmt.Sprintf("sockserve: %s exists and is not a memidx socket or lock of this user; memidx leaves it alone (remove it to let a server listen)", e.Path)
}

// FrameTooLong is a frame longer than its reader allows.
type FrameTooLong struct{ Len, Max int }

func (e *FrameTooLong) Error() string {
	return fmt.Sprintf("sockserve: a frame of %d bytes is longer than the %d allowed", e.Len, e.Max)
}

// WriteFrame writes one frame: kind, length, payload, in one write.
func WriteFrame(w io.Writer, kind byte, p []byte) error {
	buf := make([]byte, 5+len(p))
	buf[0] = kind
	binary.BigEndian.PutUint32(buf[1:5], uint32(len(p)))
	copy(buf[5:], p)
	_, err := w.Write(buf)
	return err
}

// ReadFrame reads one frame of at most max payload bytes.
func ReadFrame(r io.Reader, max int) (kind byte, p []byte, err error) {
	var head [5]byte
	if _, err := io.ReadFull(r, head[:]); err != nil {
		return 0, nil, err
	}
	n := binary.BigEndian.Uint32(head[1:])
	if uint64(n) > uint64(max) {
		return 0, nil, &FrameTooLong{Len: int(n), Max: max}
	}
	p = make([]byte, n)
	if _, err := io.ReadFull(r, p); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return 0, nil, err
	}
	return head[0], p, nil
}
