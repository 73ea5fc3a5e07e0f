package indexfile

import (
	"sync"
	"sync/atomic"
	"unsafe"

	bolt "go.etcd.io/bbolt"
)

// A page cache that holds a file in large folios (ext4 and others since
// Linux 6.x) maps a whole folio, up to 2 MiB, into the process on a fault
// of any of its pages. A lookup that touches a few bytes of each lexicon
// segment then leaves megabytes of the file counted in the process's
// resident size: at 100k sessions, a server's first calls held 40-50 MB
// of the map for a few hundred KB read. The pages are the page cache's
// either way; what a long-lived reader keeps mapped is bounded by its map
// budget, and a short one gives back what each lookup mapped
// (DropRange).

// folioMax is the largest folio a page cache maps at once (PMD size with
// 4 KiB pages): a range given back is widened to it, since the folios at
// its ends may reach past it.
const folioMax = 2 << 20

// SetMapBudget bounds the file's pages that the read handle the Store
// keeps between reads (see held) holds mapped: at the end of a read on
// it, when the process's file-backed resident size has grown by more
// than n since the map was last trimmed, the map's pages are given back
// (DropPages). A long-lived reader sets it: the pages its calls read
// again are mapped again from the page cache, a fault per folio. 0 (the
// default) sets no bound. Only Linux can tell the size; elsewhere it does
// nothing.
func (s *Store) SetMapBudget(n int64) { s.trim.budget.Store(n) }

// mapTrim is the state of a Store's map budget.
type mapTrim struct {
	budget atomic.Int64
	mu     sync.Mutex
	// base is the file-backed resident size after the last trim (0:
	// none yet); statm reads it (residentFile).
	base  int64
	statm residentFile
}

// close lets go of the size's file; a later read opens it again.
func (t *mapTrim) close() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.statm.close()
}

// after trims tx's map when it holds more than the budget; tx is a read
// on the kept handle, whose map stays in place while tx is open.
func (t *mapTrim) after(tx *bolt.Tx) {
	budget := t.budget.Load()
	if budget <= 0 {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	n, ok := t.statm.bytes()
	switch {
	case !ok:
		return
	case t.base != 0 && n < t.base:
		t.base = n // the kernel took some back, or another map closed
		return
	case t.base != 0 && n-t.base <= budget:
		return
	}
	DropPages(tx)
	if n, ok = t.statm.bytes(); ok {
		t.base = n
	}
}

// DropRange gives back the pages of b, a value tx read in place from its
// file's map, widened to the folios around it, within the map: a lookup
// that reads a few bytes of a large value (a lexicon segment) has the
// page cache's whole folios mapped, beyond the bytes it read. Pages
// another read of tx needs later are mapped again from the page cache.
// A b outside the map (a value bbolt copied) is left alone; it does
// nothing where the pages cannot be given back (dontNeed).
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
	if to > from {
		area.GiveBack(area.Start+from, to-from)
	}
}
