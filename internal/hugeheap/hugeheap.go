package hugeheap

import (
	"runtime"
	"unsafe"
)

// hugePage is the size of a huge page under 4 KiB base pages (x86-64,
// arm64).
const hugePage = 2 << 20

// Prepare advises about n bytes of the heap the process will fill next to
// be backed by huge pages (see the package doc), and reports whether the
// kernel took the advice. It runs a collection to free the block: call it
// first thing, while the heap is small.
func Prepare(n int) bool {
	if n < 2*hugePage || !supported() {
		return false
	}
	block := make([]byte, n)
	lo, hi := inner(uintptr(unsafe.Pointer(unsafe.SliceData(block))), n)
	ok := lo < hi && advise(block[lo:hi])
	block = nil
	runtime.GC()
	return ok
}

// inner is the part of n bytes at address p that whole huge pages cover,
// as offsets from p.
func inner(p uintptr, n int) (lo, hi int) {
	start := (p + hugePage - 1) &^ (hugePage - 1)
	end := (p + uintptr(n)) &^ (hugePage - 1)
	if end <= start {
		return 0, 0
	}
	return int(start - p), int(end - p)
}
