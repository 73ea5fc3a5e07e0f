package index

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/internal/lineage"
)

// TestRebuildWriterStopsWithTheContext: a rebuild writes its batches from
// a goroutine of its own; a rebuild cancelled halfway returns the
// context's error and leaves no goroutine behind, and a later one
// completes the index.
func TestRebuildWriterStopsWithTheContext(t *testing.T) {
	f := newFixture(t, 150)
	ix := f.index()
	var targets []Target
	for _, p := range f.paths {
		targets = append(targets, Target{Path: p})
	}
	before := runtime.NumGoroutine()
	cctx, cancel := context.WithCancel(ctx)
	_, err := ix.Refresh(cctx, targets, RefreshOptions{Mode: lineage.Active, NoBudgets: true,
		Progress: func(done, total int, _ int64) {
			if done == 70 {
				cancel()
			}
		}})
	require.ErrorIs(t, err, context.Canceled)
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		buf := make([]byte, 1<<20)
		t.Fatalf("goroutines left: %d (before %d)\n%s", n, before, buf[:runtime.Stack(buf, true)])
	}

	rep, err := ix.Refresh(ctx, targets, RefreshOptions{Mode: lineage.Active, NoBudgets: true})
	require.NoError(t, err)
	assert.Equal(t, len(targets), rep.Indexed)
	assert.Equal(t, len(targets), rep.Unchanged+rep.Rebuilt)
}

// The results ahead of their taker are bounded by their sources' bytes:
// a result takes its source's size (at least 1, at most the whole
// budget), and one that does not fit waits until taken ones give theirs
// back.
func TestAheadBudget(t *testing.T) {
	a := newAheadBudget(resultsAheadBytes)
	assert.Equal(t, int64(1), a.acquire(0), "an empty source still counts")
	a.release(1)
	assert.Equal(t, int64(resultsAheadBytes), a.acquire(1<<40), "a huge one takes the whole budget")
	got := make(chan int64)
	go func() { got <- a.acquire(10) }()
	select {
	case n := <-got:
		t.Fatalf("took %d while the budget was spent", n)
	case <-time.After(50 * time.Millisecond):
	}
	a.release(resultsAheadBytes)
	select {
	case n := <-got:
		assert.Equal(t, int64(10), n)
	case <-time.After(5 * time.Second):
		t.Fatal("a waiting result was not woken when the budget came back")
	}
	assert.Equal(t, int64(resultsAheadBytes-10), a.free)
}
