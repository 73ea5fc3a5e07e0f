package engine_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/engine"
)

// wholeReadSession writes a session of n messages of size bytes each that
// expansion reads whole: a message without a role makes its entries depend
// on more than their own records, so the slim reader does not take it.
func wholeReadSession(w *world, id string, n, size int) string {
	lines := []string{msgLine(id+"-r", "", "2026-09-01T10:00:00.000Z", `{"content":"no role"}`)}
	parent := id + "-r"
	for i := 0; i < n; i++ {
		mid := fmt.Sprintf("%s-%d", id, i)
		lines = append(lines, msgLine(mid, parent, "2026-09-01T10:00:01.000Z", user(fmt.Sprintf("%d %s", i, strings.Repeat("y", size)))))
		parent = mid
	}
	return w.write(id, lines...)
}

// The cache of session reads is charged against the build memory bound: it
// holds at most a share of maxBuildBytes (counted in estimated bytes), and
// entries unused for the idle time are dropped. Four sessions of about 1
// MB each are read.
func TestSnapCacheBounded(t *testing.T) {
	for _, tc := range []struct {
		name          string
		maxBuildBytes int
		age           time.Duration
		wantMax       int // entries at most
		wantMin       int // entries at least
	}{
		{"all fit", 64 << 20, 0, 4, 4},
		{"a budget for two", 10 << 20, 0, 2, 1},
		{"idle entries dropped", 64 << 20, time.Minute, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t)
			w.cfg.MaxBuildBytes = tc.maxBuildBytes
			var paths []string
			for i := 0; i < 4; i++ {
				paths = append(paths, wholeReadSession(w, fmt.Sprintf("big%d", i), 50, 10_000))
			}
			e := w.engine()
			defer e.Close()
			for _, p := range paths {
				x, err := e.Expand(ctx, engine.ExpandRequest{Session: p, Indices: []int{10}})
				require.NoError(t, err)
				require.Nil(t, x.Error)
				require.Len(t, x.Entries, 1)
				assert.True(t, strings.HasPrefix(x.Entries[0].Text, "10 yyy"), x.Entries[0].Text[:20])
			}
			if tc.age > 0 {
				engine.AgeSnapCache(e, tc.age)
			}
			held, entries := engine.SnapCacheHeld(e)
			budget := engine.SnapCacheBudget(e)
			assert.Equal(t, int64(tc.maxBuildBytes/4), budget, "a quarter of maxBuildBytes")
			assert.LessOrEqual(t, held, budget, "bytes held")
			assert.LessOrEqual(t, entries, tc.wantMax, "entries held")
			assert.GreaterOrEqual(t, entries, tc.wantMin, "entries held")
			if entries > 0 {
				assert.Greater(t, held/int64(entries), int64(500_000), "a whole read is charged at least its text")
			}
			// What the cache kept still answers, and what it dropped is read again.
			x, err := e.Expand(ctx, engine.ExpandRequest{Session: paths[0], Indices: []int{49}})
			require.NoError(t, err)
			require.Len(t, x.Entries, 1)
			assert.True(t, strings.HasPrefix(x.Entries[0].Text, "49 yyy"))
			e.Close()
			held, entries = engine.SnapCacheHeld(e)
			assert.Zero(t, held, "Close drops the cache")
			assert.Zero(t, entries)
		})
	}
}

// A whole read is bounded by maxBuildBytes as a build is: a session over
// it is refused with a message that names the bound, and nothing is kept.
func TestSnapReadOverBuildBound(t *testing.T) {
	w := newWorld(t)
	w.cfg.MaxBuildBytes = 2 << 20 // the session is ~500 KB, ~5 MB to build
	p := wholeReadSession(w, "big", 50, 10_000)
	e := w.engine()
	defer e.Close()
	x, err := e.Expand(ctx, engine.ExpandRequest{Session: p, Indices: []int{10}})
	require.NoError(t, err)
	require.NotNil(t, x.Error)
	assert.Equal(t, "source_unavailable", x.Error.Code)
	assert.Contains(t, x.Error.Message, "maxBuildBytes")
	held, entries := engine.SnapCacheHeld(e)
	assert.Zero(t, held)
	assert.Zero(t, entries)
}
