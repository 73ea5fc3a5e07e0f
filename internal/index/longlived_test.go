package index

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/internal/lineage"
)

// A long-lived Index (a server's) decodes the full records from its first
// Preload on: the manifest's partial records would be garbage at its
// second call, beside the full ones, at the host's peak. A one-shot
// Index reads the manifest first.
func TestLongLivedIndexPreloadsFullRecords(t *testing.T) {
	f := newAcquireFixture(t, 5)
	f.indexAll()
	for _, long := range []bool{false, true} {
		ix := Open(f.ix.Config(), time.Second)
		if long {
			ix.LongLived()
		}
		pre := ix.Preload(context.Background(), lineage.Active)
		got, err := ix.records(context.Background(), lineage.Active, pre)
		require.NoError(t, err)
		require.Len(t, got.stored, 5)
		assert.Equal(t, !long, got.partial, "long-lived %v", long)
		for _, rec := range got.stored {
			assert.Equal(t, !long, rec.partial, rec.Path)
		}
		ix.Close()
	}
}
