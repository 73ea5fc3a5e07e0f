package engine_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/engine"
)

// inspect index --storage says where the file's bytes go, and its sums
// agree with the records': the cold bucket's values are the digests (less
// what the lexicon and the records hold), the
// hot bucket's the three values of each shard, one value a record.
func TestInspectIndexStorage(t *testing.T) {
	w := newWorld(t)
	w.cfg.HotSessions = 2
	for i := range 5 {
		w.write(fmt.Sprintf("s%d", i), msgLine("u1", "", ts, user(strings.Repeat(fmt.Sprintf("walrus%d words ", i), 50))))
	}
	e := w.engine()
	_, err := e.Rebuild(ctx, engine.RebuildRequest{Scope: engine.ScopeGlobal})
	require.NoError(t, err)
	rep, err := e.InspectIndexStorage(ctx)
	require.NoError(t, err)
	require.NotNil(t, rep.Storage)
	by := map[string]int{}
	var pages int64
	for i, b := range rep.Storage.Buckets {
		by[b.Name] = i
		pages += b.PageBytes
		if b.PageBytes > 0 { // else inline: it lives in the root's page
			assert.LessOrEqual(t, b.InuseBytes, b.PageBytes, b.Name)
		}
	}
	for _, name := range []string{"records", "hot", "cold", "lexicon", "meta"} {
		require.Contains(t, by, name)
	}
	u := rep.Storage.Buckets
	assert.Equal(t, rep.Totals.Records, u[by["records"]].Values)
	assert.Equal(t, rep.Totals.Cold, u[by["cold"]].Values)
	// A digest's cacheBytes are its size as the reference writes it; the
	// index stores it without its vocabulary, which the lexicon holds,
	// and without the identity its record holds.
	assert.Less(t, u[by["cold"]].ValueBytes, rep.Totals.ColdCacheBytes, "stored digests are smaller than their cacheBytes")
	assert.Equal(t, 3*rep.Totals.Hot, u[by["hot"]].Values)
	assert.Equal(t, rep.Totals.Hot, u[by["hot"]].Buckets)
	assert.Positive(t, u[by["records"]].ChecksumBytes, "records are sealed")
	assert.Zero(t, u[by["meta"]].ChecksumBytes, "the meta bucket is not")
	assert.LessOrEqual(t, pages, rep.Storage.UsedBytes)

	plain, err := e.InspectIndex(ctx)
	require.NoError(t, err)
	assert.Nil(t, plain.Storage, "only when asked for")
}
