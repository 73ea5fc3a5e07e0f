package indexfile

import (
	"bytes"
	"os"
	"strconv"
)

// residentFile reads the process's file-backed resident size from
// /proc/self/statm (its third field, in pages: the file and shared
// pages), kept open: one pread a read.
type residentFile struct {
	f   *os.File
	bad bool
	buf [128]byte
}

// bytes returns the resident file-backed size; false when it cannot be
// read.
func (r *residentFile) bytes() (int64, bool) {
	if r.bad {
		return 0, false
	}
	if r.f == nil {
		f, err := os.Open("/proc/self/statm")
		if err != nil {
			r.bad = true
			return 0, false
		}
		r.f = f
	}
	n, err := r.f.ReadAt(r.buf[:], 0)
	if n == 0 {
		r.bad = err != nil
		return 0, false
	}
	pages, ok := statmField(r.buf[:n], 2)
	if !ok {
		r.bad = true
		return 0, false
	}
	return pages * int64(os.Getpagesize()), true
}

// statmField is the i-th space-separated number of a statm line, read in
// place: a server reads statm on every call, and splitting the line into
// fields was a slice of them each time.
func statmField(line []byte, i int) (int64, bool) {
	for ; i > 0; i-- {
		at := bytes.IndexByte(line, ' ')
		if at < 0 {
			return 0, false
		}
		line = bytes.TrimLeft(line[at:], " ")
	}
	if end := bytes.IndexAny(line, " \n"); end >= 0 {
		line = line[:end]
	}
	n, err := strconv.ParseInt(string(line), 10, 64)
	if err != nil || n < 0 {
		return 0, false
	}
	return n, true
}

// close closes the file, if open.
func (r *residentFile) close() {
	if r.f != nil {
		_ = r.f.Close()
		r.f = nil
	}
}
