package index

import (
	"testing"

	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"github.com/memidx/memidx/internal/lineage"
)

// checkEveryDoc counts the merges told that every doc is live
// (writer.docsStayLive), failing the test where a doc of the listed
// segments is named by no record.
func checkEveryDoc(t *testing.T) (told *int) {
	told = new(int)
	everyDocChecked = func(read docMap, listed []uint32) {
		*told++
		for _, d := range listed {
			if _, ok := read[d]; !ok {
				t.Fatalf("doc %d of a merge told every doc is live is named by no record", d)
			}
		}
	}
	t.Cleanup(func() { everyDocChecked = nil })
	return told
}

// requireListedDocsLive fails unless every doc of the mode's lexicon is
// named by a record.
func requireListedDocsLive(t *testing.T, ix *Index, mode lineage.Mode) {
	require.NoError(t, ix.store.View(ctx, func(tx *bolt.Tx) error {
		lb := tx.Bucket(lexiconBucket)
		keys, err := segmentList(lb, mode)
		require.NoError(t, err)
		m := &merger{tx: tx, lb: lb, mode: mode, keys: keys}
		read := liveDocs(tx, mode)
		for _, d := range m.listedDocs() {
			if _, ok := read[d]; !ok {
				t.Fatalf("dead doc %d left in the lexicon", d)
			}
		}
		return nil
	}))
}

// A run that starts a new lexicon and writes each session once leaves no
// doc dead: its merges are told so instead of reading every record.
func TestNewLexiconMergesKnowEveryDocLive(t *testing.T) {
	for _, noBudgets := range []bool{false, true} {
		f := newFixture(t, (mergeFanIn+1)*batchSessions)
		ix := f.index()
		ix.Workers = 1 // batches of one size, to merge (with budgets)
		told := checkEveryDoc(t)
		rep := f.refreshOf(ix, lineage.Active, f.paths, []string{f.dir}, noBudgets)
		require.Equal(t, len(f.paths), rep.Rebuilt)
		if !noBudgets {
			require.Positive(t, *told, "a merge told every doc is live")
		}
		requireListedDocsLive(t, ix, lineage.Active)
		ix.Close()
	}
}

// A session listed twice in the first batch leaves the earlier build's
// doc named by no record: such a run's writes are not sole
// (distinctUnstored), its merges read the records, and the merge of the
// first segment drops that doc (told every doc is live, it would keep
// it).
func TestDeadDocEndsTheProof(t *testing.T) {
	f := newFixture(t, (mergeFanIn+1)*batchSessions)
	ix := f.index()
	defer ix.Close()
	ix.Workers = 1
	told := checkEveryDoc(t)
	newest := f.paths[len(f.paths)-1] // newest first: in the first batch
	targets := []Target{{Path: newest}}
	for _, p := range f.paths {
		targets = append(targets, Target{Path: p})
	}
	merged := 0
	rep, err := ix.Refresh(ctx, targets, RefreshOptions{Mode: lineage.Active, Searched: []string{f.dir}})
	require.NoError(t, err)
	require.Empty(t, rep.WriteError)
	require.Zero(t, *told)
	require.NoError(t, ix.store.View(ctx, func(tx *bolt.Tx) error {
		keys, err := segmentList(tx.Bucket(lexiconBucket), lineage.Active)
		merged = len(keys)
		return err
	}))
	require.Less(t, merged, mergeFanIn+1, "the first segments were merged")
	requireListedDocsLive(t, ix, lineage.Active)
}

// A run that finds a lexicon already written proves nothing of its docs,
// though it only adds new sessions in sole writes: the earlier run's dead
// docs (a session rewritten) are still listed, and its merges read the
// records.
func TestOldLexiconIsNotProven(t *testing.T) {
	f := newFixture(t, 4)
	ix := f.index()
	defer ix.Close()
	ix.Workers = 1
	f.refresh(ix, lineage.Active)
	f.rewriteOne(0, 1)
	f.refresh(ix, lineage.Active) // session 0's first doc is dead now
	g := newFixture(t, (mergeFanIn+1)*batchSessions)
	told := checkEveryDoc(t)
	rep := f.refreshOf(ix, lineage.Active, g.paths, []string{g.dir}, false)
	require.Equal(t, len(g.paths), rep.Rebuilt)
	require.Zero(t, *told)
}
