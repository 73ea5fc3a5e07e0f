package index

import (
	"os"
	"unsafe"

	"github.com/memidx/memidx/internal/indexfile"
)

// mappedPages are the pages of the index file's map that a pass over a
// bucket read (bbolt hands out its values in place), so that the pass can
// give them back as it goes (drop): a one-shot call reads the whole
// manifest once, and its pages then counted in the process's resident
// memory to the end (27 MB at 100k sessions).
//
// Places are offsets from base, the first value read: the pages given
// back are cut to those between the lowest and highest read, inside the
// map, since what lies beside the map may be the Go heap.
type mappedPages struct {
	// area is the file's map (indexfile.Mapped): a value outside it (a
	// damaged page that points past the map) is not noted, and nothing
	// is given back before it is set.
	area   indexfile.MapArea
	base   unsafe.Pointer
	runs   []pageRun
	n      int // bytes in runs
	lo, hi int // the pages read so far, from base
}

var pageSize = os.Getpagesize()

// drop gives the pages back (indexfile.MapArea.GiveBack): they leave the
// process's resident set and stay in the page cache, and a later read of
// one faults it back in. It must run while the map is valid (inside the
// read transaction).
func (m *mappedPages) drop() {
	for _, r := range m.runs {
		if p, n := m.within(r); n > 0 {
			m.area.GiveBack(uintptr(p), uintptr(n))
		}
	}
	m.runs, m.n = m.runs[:0], 0
}

// pageRun is the bytes [from, to) of the map, from base.
type pageRun struct{ from, to int }

// mappedGap is the widest stretch of pages not read that a run takes in
// to join the next: each run costs a system call, and a page given back
// that another read needs is only read again from the page cache.
const mappedGap = 64 << 10

// faultAround is the block a run is widened to: a fault on a file's map
// maps the pages of the page cache around it too, the aligned 64 KiB
// (Linux's fault_around_bytes), which a run of the pages read alone
// would leave mapped.
const faultAround = 64 << 10

// mappedBatch is how many bytes of pages a pass holds before it gives
// them back: the whole manifest at once was its size on top of the heap
// the records grew meanwhile.
const mappedBatch = 4 << 20

// addDropping is add, then drop once a batch is held.
func (m *mappedPages) addDropping(b []byte) {
	m.add(b)
	if m.n >= mappedBatch {
		m.drop()
	}
}

// add notes the pages that b, a slice of the map, lies on.
func (m *mappedPages) add(b []byte) {
	if len(b) == 0 || !m.area.Holds(b) {
		return
	}
	p := unsafe.Pointer(unsafe.SliceData(b))
	fresh := m.base == nil
	if fresh {
		m.base = p
	}
	at := int(uintptr(p) - uintptr(m.base))
	first, last := m.align(at, pageSize, false), m.align(at+len(b), pageSize, true)
	if fresh {
		m.lo, m.hi = first, last
	}
	m.lo, m.hi = min(m.lo, first), max(m.hi, last)
	block := max(pageSize, faultAround)
	from, to := m.align(at, block, false), m.align(at+len(b), block, true)
	if k := len(m.runs) - 1; k >= 0 && from >= m.runs[k].from && from <= m.runs[k].to+mappedGap {
		if r := &m.runs[k]; to > r.to {
			m.n += to - r.to
			r.to = to
		}
		return
	}
	m.runs = append(m.runs, pageRun{from, to})
	m.n += to - from
}

// align rounds off, an offset from base, down (or up) to a multiple of
// unit in the address space.
func (m *mappedPages) align(off, unit int, up bool) int {
	addr, u := uintptr(m.base)+uintptr(off), uintptr(unit)
	if up {
		addr += u - 1
	}
	return int(addr - addr%u - uintptr(m.base))
}

// within is r cut to the pages read so far, as a place in the map and a
// length.
func (m *mappedPages) within(r pageRun) (unsafe.Pointer, int) {
	from, to := max(r.from, m.lo), min(r.to, m.hi)
	if from >= to {
		return nil, 0
	}
	return unsafe.Add(m.base, from), to - from
}
