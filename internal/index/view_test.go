package index

import (
	"context"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/internal/session/listing"
)

// A View is read-only to its users: what it hands out are copies, and a
// change it makes itself (a re-read of a rewritten session) lands on a
// copy of its own, never on the states a kept quiet refresh shares with
// later calls.
func TestViewIsReadOnly(t *testing.T) {
	f := newAcquireFixture(t, 2)
	need := f.need()
	for i := range need.Targets { // listed stats: a quiet refresh is kept
		fi, err := os.Stat(need.Targets[i].Path)
		require.NoError(t, err)
		st := listing.StatOf(fi)
		need.Targets[i].Stat = &st
	}
	var kept *Record
	for range 2 { // the second refresh finds nothing to do, and is kept
		_, _, err := f.ix.Acquire(context.Background(), need, func(v *View) error {
			kept = v.Record(0)
			return nil
		})
		require.NoError(t, err)
	}
	_, _, err := f.ix.Acquire(context.Background(), need, func(v *View) error {
		require.Same(t, kept, v.Record(0), "answered from the kept refresh")
		st := v.State(0)
		st.answer(nil, "changed by a caller")
		cov := v.Coverage()
		cov.Reasons = append(cov.Reasons, "changed by a caller")
		assert.Same(t, kept, v.Record(0), "a State is a copy")
		assert.Empty(t, v.State(0).Reason(), "a copy's reason is its own note")
		assert.NotContains(t, v.Coverage().Reasons, "changed by a caller", "the coverage is a copy")

		read := v.Reread([]int{0})
		require.Len(t, read, 1)
		assert.NotSame(t, kept, v.Record(0), "the view answers with its re-read")
		assert.Same(t, read[0].Record, v.Record(0))
		return nil
	})
	require.NoError(t, err)
	_, _, err = f.ix.Acquire(context.Background(), need, func(v *View) error {
		assert.Same(t, kept, v.Record(0), "the kept refresh's states are unchanged")
		return nil
	})
	require.NoError(t, err)
}
