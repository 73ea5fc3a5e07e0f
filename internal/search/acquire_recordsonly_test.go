package search_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/internal/index"
	"github.com/memidx/memidx/internal/search"
)

// RecordsOnly with Single (a single-session recall whose pattern does not
// compile): use gets the refresh's record, and the cold session is not
// read from its source, which the refresh's coverage does not count and
// which can be large.
func TestAcquireRecordsOnlyReadsNoSingleSession(t *testing.T) {
	f := newAcquireFixture(t, 3)
	_, _, err := search.Acquire(context.Background(), f.ix, f.need(), func(*search.Acquired) ([]*index.Record, error) { return nil, nil })
	require.NoError(t, err)

	need := f.need(f.paths[2])
	need.Single, need.RecordsOnly = true, true
	refresh := need.Refresh
	var refreshed *index.Record
	need.Refresh = func(ctx context.Context, first bool) (*index.Report, error) {
		rep, err := refresh(ctx, first)
		if err == nil {
			refreshed = rep.States[0].Record
		}
		return rep, err
	}
	_, _, err = search.Acquire(context.Background(), f.ix, need, func(a *search.Acquired) ([]*index.Record, error) {
		require.NotNil(t, refreshed)
		require.Equal(t, index.Cold, refreshed.Tier)
		assert.Same(t, refreshed, a.Report.States[0].Record, "the refresh's record, not a read of the source")
		return nil, nil
	})
	require.NoError(t, err)
}
