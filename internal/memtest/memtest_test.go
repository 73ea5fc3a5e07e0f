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
