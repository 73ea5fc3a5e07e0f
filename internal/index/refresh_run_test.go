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
