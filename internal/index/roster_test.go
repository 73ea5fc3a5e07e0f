package index

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"github.com/memidx/memidx/internal/lineage"
)

// TestRosterRanksNarrowRefreshes: after a refresh of the whole archive, a
// refresh of one older session knows the newer ones (the roster), and
// what happened to them since (a deleted one no longer counts); on a new
// index, SeedRoster gives the same answer before the first refresh.
func TestRosterRanksNarrowRefreshes(t *testing.T) {
	f := newFixture(t, 3) // s2 newest
	f.cfg.HotSessions = 1
	one := func(ix *Index, p string) *Report {
		rep, err := ix.Refresh(ctx, []Target{{Path: p}}, RefreshOptions{Mode: lineage.Active})
		require.NoError(t, err)
		return rep
	}
	archive := func(ix *Index) *Report {
		var targets []Target
		for _, p := range f.paths {
			targets = append(targets, Target{Path: p})
		}
		rep, err := ix.Refresh(ctx, targets, RefreshOptions{Mode: lineage.Active, Searched: []string{f.dir}, Archive: true})
		require.NoError(t, err)
		return rep
	}

	// Without a roster, a narrow refresh ranks only what it knows.
	ix := f.index()
	has, err := ix.HasRoster(ctx, lineage.Active, nil)
	require.NoError(t, err)
	assert.False(t, has)
	assert.Equal(t, []string{Hot.String()}, tiersOf(one(ix, f.paths[0])))

	assert.Equal(t, []string{Cold.String(), Cold.String(), Hot.String()}, tiersOf(archive(ix)))
	has, err = ix.HasRoster(ctx, lineage.Active, nil)
	require.NoError(t, err)
	assert.True(t, has)
	assert.Equal(t, []string{Cold.String()}, tiersOf(one(ix, f.paths[1])), "the roster knows s2 is newer")

	// The newest session is deleted: a narrow refresh stats the roster.
	require.NoError(t, os.Remove(f.paths[2]))
	assert.Equal(t, []string{Hot.String()}, tiersOf(one(ix, f.paths[1])))

	// A new index, seeded from a listing of the archive first.
	f.paths = f.paths[:2]
	f.cfg.IndexDir = t.TempDir()
	g := f.index()
	var all []Target
	for _, p := range f.paths {
		all = append(all, Target{Path: p})
	}
	require.NoError(t, g.SeedRoster(ctx, all))
	assert.Equal(t, []string{Cold.String()}, tiersOf(one(g, f.paths[0])))
	assert.Equal(t, []string{Hot.String()}, tiersOf(one(g, f.paths[1])))
}

// TestRosterDamageIsNoRoster: a roster that fails its checksum is as none.
func TestRosterDamageIsNoRoster(t *testing.T) {
	f := newFixture(t, 2)
	ix := f.index()
	want := []recentSession{{"/a/b.jsonl", 5}, {"/a/c.jsonl", -1}}
	require.NoError(t, ix.Store().Update(ctx, func(tx *bolt.Tx) error { return writeRoster(tx, want) }))
	require.NoError(t, ix.Store().View(ctx, func(tx *bolt.Tx) error {
		got, ok := readRoster(tx)
		assert.True(t, ok)
		assert.Equal(t, want, got)
		return nil
	}))
	require.NoError(t, ix.Store().Update(ctx, func(tx *bolt.Tx) error {
		b := tx.Bucket(rosterBucket)
		v := append([]byte(nil), b.Get(rosterKey)...)
		v[len(v)/2] ^= 1
		return b.Put(rosterKey, v)
	}))
	require.NoError(t, ix.Store().View(ctx, func(tx *bolt.Tx) error {
		_, ok := readRoster(tx)
		assert.False(t, ok)
		return nil
	}))
}
