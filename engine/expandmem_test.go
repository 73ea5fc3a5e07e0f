package engine_test

import (
	"runtime"
	"testing"

	"github.com/memidx/memidx/engine"
	"github.com/memidx/memidx/internal/memtest"
)

// Expanding one entry of a 200,000-record session (37 MB) keeps the
// records as spans and ids and normalizes only what it returns: at most
// 64 MiB allocated in all (so the live heap cannot exceed it either).
// Holding every record parsed and normalized cost 330 MiB of live heap
// and some 800 MB allocated.
func TestExpandOneLongMemoryBound(t *testing.T) {
	const n = 200_000
	const bound = 64 << 20
	w, path := longWorld(t, n)
	e := openLong(t, w)
	var total uint64
	peak := memtest.PeakHeap(func() {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		x, err := e.Expand(ctx, engine.ExpandRequest{Session: path, Indices: []int{123_455}})
		runtime.ReadMemStats(&after)
		total = after.TotalAlloc - before.TotalAlloc
		if err != nil || x.Error != nil || len(x.Entries) != 1 || x.Entries[0].Text != "entry 123455 says hi" || *x.EntryCount != n {
			t.Fatal(err, x)
		}
	})
	t.Logf("allocated %.1f MiB, peak live heap %.1f MiB", float64(total)/(1<<20), float64(peak)/(1<<20))
	if total > bound {
		t.Errorf("expand of one entry allocated %.1f MiB, over %d MiB", float64(total)/(1<<20), bound>>20)
	}
	if peak > bound {
		t.Errorf("expand of one entry peaked at %.1f MiB of heap, over %d MiB", float64(peak)/(1<<20), bound>>20)
	}

	// By entry id and with context: the same bound, the same answers.
	x, err := e.Expand(ctx, engine.ExpandRequest{Session: path, EntryIDs: []string{"e0150000"}, Before: 1, After: 1})
	if err != nil || x.Error != nil || len(x.Entries) != 3 || x.Entries[1].Text != "entry 150000 says hi" || !*x.Entries[1].Anchor {
		t.Fatal(err, x)
	}
}

func i64p(v int64) *int64 { return &v }
