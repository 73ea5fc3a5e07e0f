package search_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/internal/index"
	"github.com/memidx/memidx/internal/lineage"
	"github.com/memidx/memidx/internal/memtest"
	"github.com/memidx/memidx/internal/search"
)

// openBytes is the fewest bytes one of tries searches of plan, back to
// back in one view, allocated while opening the world's sources and
// ranking a page of need.
func (w *lexWorld) openBytes(t *testing.T, plan search.Plan, need, tries int) uint64 {
	t.Helper()
	ctx := context.Background()
	want := index.Need{Targets: w.targets, Refresh: index.RefreshOptions{Mode: lineage.Active, Searched: []string{w.dir}}}
	var least uint64
	_, _, err := w.ix.Acquire(ctx, want, func(v *index.View) error {
		least = memtest.FewestBytes(tries, func() {
			s := search.New(ctx, plan, search.Filters{}, &w.docs)
			s.Open(v)
			search.SortByState(v, s.Cold)
			s.Run(need)
			require.True(t, s.LexiconAnswered)
			s.Release()
		})
		return nil
	})
	require.NoError(t, err)
	return least
}

// The lexicon's pass over the cold records of a common term, which names
// nearly all of them, allocates no table by record: a server's call after
// call reuses them, whatever the archive's size. (What grows is the
// lexicon's segments, a few per write batch: well under an int32 a
// record.)
func TestCommonTermAllocatesNothingPerColdRecord(t *testing.T) {
	if search.RaceDetector {
		// The tables by record are pooled, and the race detector's
		// sync.Pool drops a quarter of its puts: 8 tries of three pools
		// all missing at least once failed CI once (+10 KB at 1,600).
		t.Skip("the race detector's sync.Pool drops what is put back at random")
	}
	plans := map[string]search.Plan{
		"one common term":         search.LiteralPlan("deploy", false),
		"a rare and a common one": search.LiteralPlan("solo deploy", false),
	}
	small, large := newLexWorld(t, 100, 1), newLexWorld(t, 1600, 1)
	for name, plan := range plans {
		a, b := small.openBytes(t, plan, 10, 8), large.openBytes(t, plan, 10, 8)
		grown := int64(b) - int64(a)
		t.Logf("%s: %d bytes at 100 sessions, %d at 1600", name, a, b)
		assert.Less(t, grown, int64(4*1500), "%s: bytes grown over 1500 more cold records", name)
	}
}
