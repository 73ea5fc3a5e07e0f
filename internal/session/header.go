package session

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/memidx/memidx/internal/jsjson"
)

// ErrNoHeader is returned by ReadHeader for a file whose first value is not
// a session header (OMP refuses such a file) or that has no value at all.
var ErrNoHeader = errors.New("session: no valid session header")

// ReadHeader reads just enough of the file at path to parse its header, as
// ReadFile would: BOM, title slot, then the first JSON value. It reads
// 4 KiB first and more only when the header is longer.
func ReadHeader(path string) (*Header, error) {
	f, st, err := OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return HeaderOf(f, st, path)
}

// HeaderOf is ReadHeader of a file its caller opened with OpenRegular (st
// is its stat), read from its start; path names it in errors.
func HeaderOf(f *os.File, st os.FileInfo, path string) (*Header, error) {
	// Nearly every header fits in 4 KiB; a longer one is read in growing
	// steps.
	size := int64(4 << 10)
	for {
		buf := make([]byte, size)
		n, err := io.ReadFull(f, buf)
		// A read that fills the buffer holds the whole file when the file
		// is exactly that long.
		whole := err == io.EOF || err == io.ErrUnexpectedEOF || int64(n) >= st.Size()
		if err != nil && !whole {
			return nil, err
		}
		buf = buf[:n]
		h, ok := headerFromPrefix(buf, whole, st.Size() >= StreamThreshold)
		if ok {
			if h == nil {
				return nil, fmt.Errorf("%w: %s", ErrNoHeader, path)
			}
			return h, nil
		}
		if size >= st.Size() || size >= MaxFileBytes {
			return nil, fmt.Errorf("%w: %s", ErrNoHeader, path)
		}
		size *= 4
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return nil, err
		}
	}
}

// headerFromPrefix parses the header from the first bytes of a file. ok is
// false when the prefix is too short to decide.
func headerFromPrefix(data []byte, whole, stream bool) (h *Header, ok bool) {
	if !whole {
		// Parse only up to the last complete line, so that a value cut by
		// the prefix is not mistaken for a torn one.
		if nl := bytes.LastIndexByte(data, '\n'); nl >= 0 {
			data = data[:nl+1]
		} else {
			return nil, false
		}
	}
	pos, line := 0, 1
	if bytes.HasPrefix(data, bom) {
		pos = 3
	}
	slot, next, isSlot := titleSlot(data, pos, stream)
	if isSlot {
		pos, line = next, 2
	}
	// The first value, found exactly as ReadFile finds it.
	first := parseBody(&File{stream: stream}, data, pos, line, 1, nil)
	if len(first) == 0 {
		return nil, whole
	}
	h, valid := header(first[0].Value, slot)
	if !valid {
		return nil, true
	}
	h.Value = jsjson.Value{} // do not pin the buffer
	return h, true
}
