package index

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// RecordsOnly with Single (a single-session recall whose pattern does not
// compile): fn gets the refresh's record, and the cold session is not
// read from its source, which the refresh's coverage does not count and
// which can be large.
func TestAcquireRecordsOnlyReadsNoSingleSession(t *testing.T) {
	f := newAcquireFixture(t, 3)
	_, _, err := f.ix.Acquire(context.Background(), f.need(), nil)
	require.NoError(t, err)

	need := f.need(f.paths[2])
	need.Single, need.RecordsOnly = true, true
	var refreshed *Record
	need.refresh = func(ctx context.Context) (*Report, error) {
		rep, err := f.ix.Refresh(ctx, need.Targets, need.Refresh)
		if err == nil {
			refreshed = rep.States[0].Record
		}
		return rep, err
	}
	_, _, err = f.ix.Acquire(context.Background(), need, func(v *View) error {
		require.NotNil(t, refreshed)
		require.Equal(t, Cold, refreshed.Tier)
		assert.Same(t, refreshed, v.Record(0), "the refresh's record, not a read of the source")
		_, inMemory := v.Memory(refreshed)
		assert.False(t, inMemory)
		return nil
	})
	require.NoError(t, err)
}
