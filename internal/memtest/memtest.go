package memtest

import (
	"runtime"
	"sync"
	"sync/atomic"
	"time"
)

// PeakHeap runs f and returns how far the heap in use (HeapInuse) rose
// above what it was before, in bytes, sampled every millisecond while f
// runs and once when it returns.
func PeakHeap(f func()) uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapInuse
	var peak atomic.Uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > peak.Load() {
				peak.Store(ms.HeapInuse)
			}
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	})
	f()
	close(done)
	wg.Wait()
	// And once more at the end: a quick f may finish between two samples.
	runtime.ReadMemStats(&ms)
	if ms.HeapInuse > peak.Load() {
		peak.Store(ms.HeapInuse)
	}
	if p := peak.Load(); p > base {
		return p - base
	}
	return 0
}

// FewestBytes runs f tries times and returns the fewest bytes it
// allocated in a run (TotalAlloc): other goroutines of a test process
// may allocate meanwhile, and the fewest is the closest to f's own.
func FewestBytes(tries int, f func()) uint64 {
	least := ^uint64(0)
	for range tries {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		f()
		runtime.ReadMemStats(&after)
		least = min(least, after.TotalAlloc-before.TotalAlloc)
	}
	return least
}
