package index

import (
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

var pageSize = os.Getpagesize()

// drop gives the pages back: they leave the process's resident set and
// stay in the page cache, and a later read of one faults it back in. It
// must run while the map is valid (inside the read transaction).
func (m *mappedPages) drop() {
	for _, r := range m.runs {
		if p, n := m.within(r); n > 0 {
			_ = unix.Madvise(unsafe.Slice((*byte)(p), n), unix.MADV_DONTNEED)
		}
	}
	m.runs, m.n = m.runs[:0], 0
}
