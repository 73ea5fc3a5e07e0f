package indexfile

import (
	"bytes"
	"os"
	"strconv"
	"unsafe"

	bolt "go.etcd.io/bbolt"
	"golang.org/x/sys/unix"
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
	fields := bytes.Fields(r.buf[:n])
	if len(fields) < 3 {
		r.bad = true
		return 0, false
	}
	pages, err := strconv.ParseInt(string(fields[2]), 10, 64)
	if err != nil {
		r.bad = true
		return 0, false
	}
	return pages * int64(os.Getpagesize()), true
}

// close closes the file, if open.
func (r *residentFile) close() {
	if r.f != nil {
		_ = r.f.Close()
		r.f = nil
	}
}

// DropRange gives back the pages of b, a value tx read in place from its
// file's map, widened to the folios around it, within the map: a lookup
// that reads a few bytes of a large value (a lexicon segment) has the
// page cache's whole folios mapped, beyond the bytes it read. Pages
// another read of tx needs later are mapped again from the page cache.
// A b outside the map (a value bbolt copied) is left alone.
func DropRange(tx *bolt.Tx, b []byte) {
	area := Mapped(tx)
	if len(b) == 0 || !area.Holds(b) {
		return
	}
	// Folios are aligned in the file, so the widening is from the map's
	// start (file offset 0), not the address.
	off := uintptr(unsafe.Pointer(unsafe.SliceData(b))) - area.Start
	end := off + uintptr(len(b))
	from := off - off%folioMax
	to := min(area.Len, end+(folioMax-end%folioMax)%folioMax)
	if to <= from {
		return
	}
	_, _, _ = unix.Syscall(unix.SYS_MADVISE, area.Start+from, to-from, unix.MADV_DONTNEED)
}
