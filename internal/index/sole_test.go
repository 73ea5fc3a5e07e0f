package index

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"github.com/memidx/memidx/internal/lineage"
)

// Every write of the index tests checks what a sole write skips
// (storedOf): a wrong writer.sole fails the write.
func init() { verifySole = true }

// twoIndexes is a fixture of n sessions and two indexes of its file, as
// two processes hold them.
func twoIndexes(t *testing.T, n int) (f *fixture, ix, other *Index) {
	f = newFixture(t, n)
	ix, other = f.index(), f.index()
	t.Cleanup(func() { ix.Close(); other.Close() })
	return f, ix, other
}

// atCommit runs fn before the run's commit number n (from 1) while the
// test runs; it returns how many commits the test saw by then.
func atCommit(t *testing.T, n int, fn func()) (commits func() int) {
	c := 0
	beforeCommit = func() {
		if c++; c == n {
			fn()
		}
	}
	t.Cleanup(func() { beforeCommit = nil })
	return func() int { beforeCommit = nil; return c }
}

// A write that follows on from the run's own load skips the lookups of
// the sessions the run found no record for: every session of a new file
// (a rebuild, batch after batch), then only the new session of a later
// refresh, not the one that grew.
func TestSoleWriteSkipsOnlyNewSessions(t *testing.T) {
	f := newFixture(t, 5)
	ix := f.index()
	defer ix.Close()
	before := soleSkips.Load()
	rep := f.rebuild(ix)
	require.Equal(t, 5, rep.Rebuilt)
	require.Equal(t, int64(5), soleSkips.Load()-before, "a new file's sessions")

	// Batch after batch: each write follows on from the one before.
	g := newFixture(t, 2*batchSessions+6)
	gx := g.index()
	defer gx.Close()
	before = soleSkips.Load()
	commits := atCommit(t, 0, nil)
	rep = g.rebuild(gx)
	n := commits()
	require.Greater(t, n, 1)
	require.Equal(t, 2*batchSessions+6, rep.Rebuilt)
	require.Equal(t, int64(2*batchSessions+6), soleSkips.Load()-before, "a new file's sessions, in %d writes", n)

	grow(t, f.paths[0], 1)
	p := filepath.Join(f.dir, "new.jsonl")
	require.NoError(t, os.WriteFile(p, []byte(sessionText("new", "delta")), 0o600))
	f.paths = append(f.paths, p)
	before = soleSkips.Load()
	rep = f.refresh(ix, lineage.Active)
	require.GreaterOrEqual(t, rep.Rebuilt, 2) // re-tiered ones too
	require.Equal(t, int64(1), soleSkips.Load()-before, "only the new session")
}

// A session another process indexed between this run's load and its write
// is looked up (and replaced as any stored one): the write does not follow
// on from the load.
func TestSoleWriteNotAfterAnotherWrite(t *testing.T) {
	f, ix, other := twoIndexes(t, 3)
	f.refresh(ix, lineage.Active)

	p := filepath.Join(f.dir, "new.jsonl")
	require.NoError(t, os.WriteFile(p, []byte(sessionText("new", "delta")), 0o600))
	f.paths = append(f.paths, p)
	var otherDoc uint32
	var before int64
	done := atCommit(t, 1, func() {
		beforeCommit = nil
		rep := f.refresh(other, lineage.Active)
		st := rep.States[len(rep.States)-1]
		require.True(t, st.Rebuilt(), "the other index built the new session")
		otherDoc = st.Record.Doc
		before = soleSkips.Load() // the other's own write skipped it
	})
	rep := f.refresh(ix, lineage.Active)
	done()
	require.Empty(t, rep.WriteError)
	require.Equal(t, int64(0), soleSkips.Load()-before)
	require.NotZero(t, otherDoc)

	fresh := f.index()
	defer fresh.Close()
	got, err := fresh.loadRecordsAt(ctx, lineage.Active)
	require.NoError(t, err)
	rec := got.stored[p]
	require.NotNil(t, rec)
	require.Equal(t, rep.States[len(rep.States)-1].Record.Doc, rec.Doc, "this run's write stands")
	require.NotEqual(t, otherDoc, rec.Doc)
}

// A record found where a sole write skips the lookup fails the write
// under the tests' check: the check itself can fail.
func TestVerifySoleFindsAStoredRecord(t *testing.T) {
	f := newFixture(t, 2)
	ix := f.index()
	defer ix.Close()
	f.refresh(ix, lineage.Active)
	require.NoError(t, ix.store.View(ctx, func(tx *bolt.Tx) error {
		key := recordKey(lineage.Active, f.paths[0])
		_, _, err := storedOf(tx, tx.Bucket(recordsBucket), lineage.Active, key, true)
		require.ErrorContains(t, err, "a sole write found")
		stored, _, err := storedOf(tx, tx.Bucket(recordsBucket), lineage.Active, key, false)
		require.NoError(t, err)
		require.NotNil(t, stored)
		_, _, err = storedOf(tx, tx.Bucket(recordsBucket), lineage.Active, recordKey(lineage.Active, fmt.Sprint(f.dir, "/none.jsonl")), true)
		require.NoError(t, err)
		return nil
	}))
}

// A write after one that was not sole is not either, though it follows
// on from it: what the other process wrote is still there.
func TestSoleWriteNotAfterAWriteThatWasNot(t *testing.T) {
	f, ix, other := twoIndexes(t, batchSessions+6)
	f.refreshOf(other, lineage.Active, f.paths[:1], []string{f.dir}, false)
	// Newest first: the oldest sessions fill the second write.
	commits := atCommit(t, 1, func() {
		f.refreshOf(other, lineage.Active, f.paths[1:2], []string{f.dir}, false)
	})
	rep := f.refresh(ix, lineage.Active)
	require.Greater(t, commits(), 2, "the run wrote in more than one batch")
	require.Empty(t, rep.WriteError)
	for _, st := range rep.States {
		require.NotNil(t, st.Record, "%s: %s", st.Path, st.Reason())
	}
}

// A Summary rebuild's report counts what a full one does, and its states
// of written complete sessions share one empty stand-in: the records
// themselves are let go.
func TestSummaryRebuildLetsGoOfRecords(t *testing.T) {
	f := newFixture(t, batchSessions+6)
	targets := func() []Target {
		var out []Target
		for _, p := range f.paths {
			out = append(out, Target{Path: p})
		}
		return out
	}
	var reps []*Report
	for _, summary := range []bool{false, true} {
		f.cfg.IndexDir = filepath.Join(t.TempDir(), "index")
		ix := f.index()
		rep, err := ix.Refresh(ctx, targets(), RefreshOptions{Mode: lineage.Active, Searched: []string{f.dir}, NoBudgets: true, Summary: summary})
		require.NoError(t, err)
		ix.Close()
		reps = append(reps, rep)
	}
	full, sum := reps[0], reps[1]
	require.Equal(t, full.Coverage, sum.Coverage)
	require.Equal(t, full.Rebuilt, sum.Rebuilt)
	require.Equal(t, len(f.paths), sum.Indexed)
	standIn := sum.States[0].Record
	for i, st := range sum.States {
		require.Equal(t, full.States[i].Path, st.Path)
		require.Same(t, standIn, st.Record, "%s", st.Path)
		require.NotSame(t, full.States[i].Record, full.States[(i+1)%len(f.paths)].Record)
	}
	require.Empty(t, standIn.Path, "the stand-in holds nothing")
}

// A session that is the run's target twice is written twice, and its
// second write finds the first's record: no write of such a run is sole.
// Listed twice in one batch (verifySole fails a write that skips what it
// finds), and far apart, in two batches of a run of cold sessions (with
// budgets, newest first, so in the targets' order): the second write
// takes the first's digest out of its pack (a pack never holds a dead
// digest). A rebuild (no budgets) writes in key order, both builds in
// one batch: only the later one is packed.
func TestSoleWriteNotForATargetListedTwice(t *testing.T) {
	for _, noBudgets := range []bool{false, true} {
		f := newFixture(t, 3)
		ix := f.index()
		targets := []Target{{Path: f.paths[0]}, {Path: f.paths[1]}, {Path: f.paths[0]}}
		rep, err := ix.Refresh(ctx, targets, RefreshOptions{Mode: lineage.Active, Searched: []string{f.dir}, NoBudgets: noBudgets})
		require.NoError(t, err)
		require.Empty(t, rep.WriteError, "noBudgets %v", noBudgets)
		ix.Close()
	}

	verifySole = false // what a skipped lookup leaves behind
	defer func() { verifySole = true }()
	for _, noBudgets := range []bool{false, true} {
		f := newFixture(t, 0)
		f.cfg.HotSessions = 0
		mt := time.Now().Add(-time.Hour)
		for i := range batchSessions + 36 {
			p := filepath.Join(f.dir, fmt.Sprintf("s%03d.jsonl", i))
			var words []string
			for j := range 300 {
				words = append(words, fmt.Sprintf("k%dx%d", i, j))
			}
			require.NoError(t, os.WriteFile(p, []byte(sessionText(fmt.Sprintf("s%d", i), words...)), 0o600))
			require.NoError(t, os.Chtimes(p, mt, mt)) // one mtime: the builds keep the targets' order
			f.paths = append(f.paths, p)
		}
		ix := f.index()
		ix.Workers = 1
		var targets []Target
		for _, p := range append(f.paths, f.paths[0]) { // listed again, in another batch
			targets = append(targets, Target{Path: p})
		}
		rep, err := ix.Refresh(ctx, targets, RefreshOptions{Mode: lineage.Active, Searched: []string{f.dir}, NoBudgets: noBudgets})
		require.NoError(t, err)
		require.Empty(t, rep.WriteError)
		key := string(recordKey(lineage.Active, f.paths[0]))
		require.NoError(t, ix.store.View(ctx, func(tx *bolt.Tx) error {
			in, packs := 0, 0
			require.NoError(t, tx.Bucket(packBucket).ForEach(func(_, v []byte) error {
				members, err := decodePack(v)
				require.NoError(t, err)
				packs++
				for _, m := range members {
					if string(m.key) == key {
						in++
					}
				}
				return nil
			}))
			require.Greater(t, packs, 1, "the session's two writes went to two packs")
			require.Equal(t, 1, in, "the packs that hold the session's digest (noBudgets %v)", noBudgets)
			return nil
		}))
		ix.Close()
	}
}

// An index file removed between two writes of a rebuild (rm of the index
// directory, as its errors advise) and made again by another process that
// writes a session into it: on ext4 the new file gets the old one's inode
// back, and its one commit puts its transaction id right after the
// rebuild's. Only the file's whole identity tells it from the one the
// rebuild wrote. Whether the inode comes back is the file system's
// choice: on this project's test VM it did in 37 of 40 runs; where it
// does not, the test cannot fail.
func TestSoleWriteNotToAFileInTheOldOnesPlace(t *testing.T) {
	f, ix, other := twoIndexes(t, batchSessions+6)
	commits := atCommit(t, 2, func() {
		require.NoError(t, os.Remove(ix.store.Path()))
		f.refreshOf(other, lineage.Active, f.paths[:1], []string{f.dir}, false) // the oldest: the rebuild's second batch
	})
	rep := f.rebuild(ix)
	require.Greater(t, commits(), 1)
	require.Empty(t, rep.WriteError)
}

// A cold session in the last pack, changed, then listed twice in one
// refresh: both builds land in one batch, and the record the write leaves
// still finds its digest (the earlier build, written first, took the
// later one's new digest out of the pack it had just been put in).
// Found by review.
func TestListedTwiceInTheLastPack(t *testing.T) {
	for _, noBudgets := range []bool{false, true} {
		f := newFixture(t, 4)
		f.cfg.HotSessions = 0
		ix := f.index()
		ix.Workers = 1
		f.refresh(ix, lineage.Active)
		key := recordKey(lineage.Active, f.paths[0])
		require.NoError(t, ix.store.View(ctx, func(tx *bolt.Tx) error {
			pack := storedPack(tx, lineage.Active, key)
			require.NotZero(t, pack, "packed at first")
			require.Equal(t, tx.Bucket(packBucket).Sequence(), pack, "in the last pack")
			return nil
		}))
		f.rewriteOne(0, 1)
		rep, err := ix.Refresh(ctx, []Target{{Path: f.paths[0]}, {Path: f.paths[0]}}, RefreshOptions{Mode: lineage.Active, Searched: []string{f.dir}, NoBudgets: noBudgets})
		require.NoError(t, err)
		require.Empty(t, rep.WriteError)
		require.NoError(t, ix.store.View(ctx, func(tx *bolt.Tx) error {
			pack := storedPack(tx, lineage.Active, key)
			var blob []byte
			if pack != 0 {
				blob = packedDigest(tx, lineage.Active, pack, key)
			} else {
				blob = tx.Bucket(coldBucket).Get(key)
			}
			require.NotNil(t, blob, "noBudgets %v: record names pack %d, digest found nowhere", noBudgets, pack)
			return nil
		}))
		ix.Close()
		// And a later refresh answers from it, unchanged.
		ix = f.index()
		rep = f.refresh(ix, lineage.Active)
		require.Equal(t, 4, rep.Unchanged, "noBudgets %v", noBudgets)
		ix.Close()
	}
}
