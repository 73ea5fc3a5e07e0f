package index

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"github.com/memidx/memidx/internal/indexfile"
	"github.com/memidx/memidx/internal/lineage"
)

// A rebuild writes a few large batches, not one transaction per 64
// sessions: each write costs a transaction, a sync and a lexicon segment.
// The batches start at 64 sessions and double.
func TestRebuild_WritesLargeBatches(t *testing.T) {
	const sessions = 2000
	f := newFixture(t, sessions)
	ix := f.index()
	var targets []Target
	for _, p := range f.paths {
		targets = append(targets, Target{Path: p})
	}
	rep, err := ix.Refresh(ctx, targets, RefreshOptions{Mode: lineage.Active, Searched: []string{f.dir}, NoBudgets: true})
	require.NoError(t, err)
	require.Equal(t, sessions, rep.Rebuilt)
	var txid int
	require.NoError(t, ix.store.View(ctx, func(tx *bolt.Tx) error { txid = tx.ID(); return nil }))
	// The file's creation and stamp, then 64+128+256+512+1024 sessions
	// and the last 16.
	require.LessOrEqual(t, txid, 2+6)
}

// A merge lets go of the file pages it read (every record for the live
// docs, then its input segments) before the transaction goes on, so that
// they do not add up in the process's RSS.
func TestMerge_DropsWhatItMapped(t *testing.T) {
	f := newFixture(t, (mergeFanIn+1)*batchSessions)
	ix := f.index()
	var drops int
	dropMapped = func(tx *bolt.Tx) { drops++; indexfile.DropPages(tx) }
	defer func() { dropMapped = indexfile.DropPages }()
	rep := f.refresh(ix, lineage.Active)
	require.Equal(t, len(f.paths), rep.Rebuilt)
	require.GreaterOrEqual(t, drops, 2, "after reading the live docs and after the merge")
}

// A rebuild's batch grows past batchSessions only while its sessions are
// small: its segment, and the merges it takes part in, stay the size
// rebuildBatchSource of sessions makes.
func TestWriter_BatchFull(t *testing.T) {
	for _, tc := range []struct {
		name     string
		rebuild  bool
		sessions int
		source   int64
		tierData int64
		queued   int // batches written before
		want     bool
	}{
		{"refresh, under 64", false, 63, 1 << 10, 0, 0, false},
		{"refresh, 64 small", false, 64, 64 << 10, 0, 5, true},
		{"rebuild, 64 small", true, 64, 64 << 10, 0, 1, false},
		{"rebuild, first batch", true, 64, 64 << 10, 0, 0, true},
		{"rebuild, second batch", true, 100, 100 << 10, 0, 1, false},
		{"rebuild, second batch full", true, 128, 128 << 10, 0, 1, true},
		{"rebuild, 1000 small", true, 1000, rebuildBatchSource - 1, 0, 9, false},
		{"rebuild, source bound", true, 300, rebuildBatchSource, 0, 9, true},
		{"rebuild, 64 large", true, 64, rebuildBatchSource, 0, 9, true},
		{"rebuild, 63 large", true, 63, 2 * rebuildBatchSource, 0, 9, false},
		{"rebuild, session bound", true, rebuildBatchSessions, 1 << 20, 0, 9, true},
		{"rebuild, tier data bound", true, 10, 1 << 20, 32 << 20, 9, true},
		{"refresh, tier data bound", false, 10, 1 << 20, 64 << 20, 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := &writer{batch: make([]*built, tc.sessions), batchSource: tc.source, batchBytes: tc.tierData, queued: tc.queued}
			if tc.rebuild {
				w.queue = make(chan pendingWrite)
			}
			require.Equal(t, tc.want, w.batchFull())
		})
	}
}

// A write lets go of the file pages its lookups mapped every dropEvery
// sessions, and once more before its commit, which faults in again only
// the pages it copies: at 100k sessions each session's lookups map some
// 400-650 KB of the file (the kernel maps 64 KB around a fault), and a
// write of 128 sessions between drops kept up to 70 MB mapped.
func TestWrite_DropsWhatItMappedAsItGoes(t *testing.T) {
	f := newFixture(t, batchSessions) // one batch, too few segments to merge
	ix := f.index()
	var drops int
	dropMapped = func(tx *bolt.Tx) { drops++; indexfile.DropPages(tx) }
	defer func() { dropMapped = indexfile.DropPages }()
	rep := f.refresh(ix, lineage.Active)
	require.Equal(t, batchSessions, rep.Rebuilt)
	require.GreaterOrEqual(t, drops, batchSessions/dropEvery+1)
}

// liveDocs reads every record (50 MB of the file at 100k sessions) and
// lets go of their pages every liveDropRecords records.
func TestLiveDocs_DropsWhatItMappedAsItGoes(t *testing.T) {
	db, err := bolt.Open(filepath.Join(t.TempDir(), "x.db"), 0o600, nil)
	require.NoError(t, err)
	defer db.Close()
	const n = 2*liveDropRecords + 10
	require.NoError(t, db.Update(func(tx *bolt.Tx) error {
		b, err := tx.CreateBucket(recordsBucket)
		require.NoError(t, err)
		for i := range n {
			// Only the count matters here: the values need not decode.
			require.NoError(t, b.Put(recordKey(lineage.Active, fmt.Sprintf("/s/%06d.jsonl", i)), []byte("r")))
		}
		return nil
	}))
	var drops int
	dropMapped = func(tx *bolt.Tx) { drops++; indexfile.DropPages(tx) }
	defer func() { dropMapped = indexfile.DropPages }()
	require.NoError(t, db.View(func(tx *bolt.Tx) error {
		liveDocs(tx, lineage.Active)
		return nil
	}))
	assert.Equal(t, 2, drops)
}

// A run without budgets builds and writes its sessions in record-key
// order, so that each batch's records follow the last batch's in the
// records bucket (in any other order bbolt rewrites a page for each
// record): with one worker, the lexicon docs, numbered in write order,
// increase with the keys.
func TestRebuild_WritesInKeyOrder(t *testing.T) {
	const sessions = 300
	f := newFixture(t, sessions)
	ix := f.index()
	ix.Workers = 1 // results come back in build order
	var targets []Target
	for _, p := range f.paths {
		targets = append(targets, Target{Path: p})
	}
	rep, err := ix.Refresh(ctx, targets, RefreshOptions{Mode: lineage.Active, NoBudgets: true})
	require.NoError(t, err)
	require.Equal(t, sessions, rep.Rebuilt)
	recs, _, err := ix.loadRecords(ctx, lineage.Active)
	require.NoError(t, err)
	byKey := make([]*Record, 0, len(recs))
	for _, rec := range recs {
		byKey = append(byKey, rec)
	}
	slices.SortFunc(byKey, func(a, b *Record) int {
		return bytes.Compare(recordKey(lineage.Active, a.Path), recordKey(lineage.Active, b.Path))
	})
	for i := 1; i < len(byKey); i++ {
		require.Less(t, byKey[i-1].Doc, byKey[i].Doc, "record %d of %d in key order", i, len(byKey))
	}
}
