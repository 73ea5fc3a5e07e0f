package memtest

import "testing"

var keep [][]byte

// TestPeakHeapSeesAnAllocation: 64 MiB held while f runs is seen.
func TestPeakHeapSeesAnAllocation(t *testing.T) {
	p := PeakHeap(func() {
		for range 64 {
			keep = append(keep, make([]byte, 1<<20))
		}
	})
	keep = nil
	if p < 60<<20 {
		t.Fatalf("peak %d bytes, want at least 60 MiB", p)
	}
	if q := PeakHeap(func() {}); q > 8<<20 {
		t.Fatalf("an empty function peaked at %d bytes", q)
	}
}

// TestFewestBytesSeesAnAllocation: a 1 MiB allocation a run is counted,
// and a function that allocates nothing counts next to nothing.
func TestFewestBytesSeesAnAllocation(t *testing.T) {
	if n := FewestBytes(3, func() { keep = append(keep[:0], make([]byte, 1<<20)) }); n < 1<<20 {
		t.Fatalf("%d bytes, want at least 1 MiB", n)
	}
	keep = nil
	if n := FewestBytes(3, func() {}); n > 4<<10 {
		t.Fatalf("an empty function allocated %d bytes", n)
	}
}
