package index

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"github.com/memidx/memidx/internal/lineage"
)

// oneShot is a fresh Index over f's index file, as a one-shot command
// opens it, and a Need whose records it preloads.
func (f *acquireFixture) oneShot() (*Index, Need) {
	ix := Open(f.ix.Config(), time.Second)
	ix.RacyWindow = f.ix.RacyWindow
	f.t.Cleanup(func() { ix.Close() })
	need := f.need()
	need.Refresh.Preloaded = ix.Preload(context.Background(), lineage.Active)
	return ix, need
}

// indexAll builds f's sessions into its index.
func (f *acquireFixture) indexAll() {
	_, _, err := f.ix.Acquire(context.Background(), f.need(), nil)
	require.NoError(f.t, err)
}

// A one-shot recall reads the manifest, and decodes the full record of
// the one session whose data it reads: the bytes of full records decoded
// do not grow with the sessions it does not touch.
func TestOneShotRecallDecodesOnlyTheRecordsItReads(t *testing.T) {
	for _, n := range []int{4, 40, 400} {
		t.Run(fmt.Sprint(n, " sessions"), func(t *testing.T) {
			f := newAcquireFixture(t, n)
			f.indexAll()
			ix, need := f.oneShot()
			before := recordBytesDecoded.Load()
			var opened *Record
			_, _, err := ix.Acquire(context.Background(), need, func(v *View) error {
				st := v.State(2) // cold: one session is hot
				require.Equal(t, Cold, st.Record.Tier)
				_, d, err := v.Reader().Digest(st.Record)
				require.NoError(t, err)
				has, err := v.Reader().Holds(st.Record, d, "word2")
				require.NoError(t, err)
				assert.True(t, has)
				opened = st.Record
				return nil
			})
			require.NoError(t, err)
			decoded := recordBytesDecoded.Load() - before
			assert.Positive(t, decoded)
			assert.Less(t, decoded, int64(1024), "full records decoded: %d bytes", decoded)
			// The record read is whole, as a full load has it.
			full, _, err := f.ix.loadRecords(context.Background(), lineage.Active)
			require.NoError(t, err)
			want := *full[opened.Path]
			assert.Equal(t, want, *opened)
			assert.Equal(t, "s2", opened.SessionID())
		})
	}
}

// A single session's record is whole before anything is read: its
// bindings are compared with a pointer's.
func TestOneShotSingleSessionRecordIsWhole(t *testing.T) {
	f := newAcquireFixture(t, 3)
	f.indexAll()
	ix := Open(f.ix.Config(), time.Second)
	t.Cleanup(func() { ix.Close() })
	need := f.need(f.paths[1])
	need.Refresh.Preloaded = ix.Preload(context.Background(), lineage.Active)
	v, _, err := ix.Acquire(context.Background(), need, nil)
	require.NoError(t, err)
	rec := v.Record(0)
	require.NotNil(t, rec)
	assert.Equal(t, "s1", rec.SessionID())
	assert.Equal(t, "/p", rec.Cwd())
	assert.NotEmpty(t, rec.LineageFingerprint())
}

// A racy record re-verified by a one-shot call (whose records are partial)
// keeps its whole record in the index.
func TestReverifiedPartialRecordStaysWhole(t *testing.T) {
	f := newAcquireFixture(t, 3)
	f.ix.RacyWindow = time.Hour // every record racy: each call re-verifies
	f.indexAll()
	ix, need := f.oneShot()
	_, _, err := ix.Acquire(context.Background(), need, nil)
	require.NoError(t, err)
	recs, _, err := f.ix.loadRecords(context.Background(), lineage.Active)
	require.NoError(t, err)
	require.Len(t, recs, 3)
	for _, p := range f.paths {
		assert.NotZero(t, recs[p].VerifiedAtNs, p)
		assert.NotEmpty(t, recs[p].SessionID(), p)
		assert.NotEmpty(t, recs[p].LineageFingerprint(), p)
	}
}

// A manifest entry that does not decode, or names a policy of another
// configuration, has its session rebuilt; one that is missing too.
func TestManifestEntryThatCannotVouchIsRebuilt(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(mb *bolt.Bucket, key []byte) error
	}{
		{"damaged", func(mb *bolt.Bucket, key []byte) error {
			v := append([]byte(nil), mb.Get(key)...)
			v[len(v)/2] ^= 0xff
			return mb.Put(key, v)
		}},
		{"another policy", func(mb *bolt.Bucket, key []byte) error {
			rec, err := (&recordArena{}).decodeGate(lineage.Active, key, mb.Get(key))
			if err != nil {
				return err
			}
			rec.SetPolicy("vocab:1")
			enc, err := encodeGate(rec)
			if err != nil {
				return err
			}
			return mb.Put(key, enc)
		}},
		{"missing", func(mb *bolt.Bucket, key []byte) error { return mb.Delete(key) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newAcquireFixture(t, 3)
			f.indexAll()
			key := recordKey(lineage.Active, f.paths[1])
			require.NoError(t, f.ix.store.Update(context.Background(), func(tx *bolt.Tx) error {
				return tc.edit(tx.Bucket(manifestBucket), key)
			}))
			ix, need := f.oneShot()
			v, _, err := ix.Acquire(context.Background(), need, nil)
			require.NoError(t, err)
			assert.True(t, v.Coverage().Complete)
			assert.True(t, v.State(1).Rebuilt())
			assert.False(t, v.State(0).Rebuilt())
			assert.False(t, v.State(2).Rebuilt())
		})
	}
}

// A one-shot call holds each path once: the partial records, and the
// keys they are stored under, take the listing's string instead of the
// manifest's copy, which is then garbage.
func TestOneShotRecordsShareTheListingsPaths(t *testing.T) {
	for _, n := range []int{4, 40} {
		t.Run(fmt.Sprint(n, " sessions"), func(t *testing.T) {
			f := newAcquireFixture(t, n)
			f.indexAll()
			ix, need := f.oneShot()
			// The listing's strings: copies, so none is the manifest's
			// or the fixture's.
			for i := range need.Targets {
				need.Targets[i].Path = strings.Clone(need.Targets[i].Path)
			}
			v, _, err := ix.Acquire(context.Background(), need, nil)
			require.NoError(t, err)
			for i, target := range need.Targets {
				rec := v.Record(i)
				require.NotNil(t, rec, target.Path)
				assert.Same(t, unsafe.StringData(target.Path), unsafe.StringData(rec.Path), "record of %s", target.Path)
			}
		})
	}
}

// sharePaths re-keys the stored map by the targets' strings, so that the
// map holds no path of the manifest either.
func TestSharePathsRekeysTheStoredRecords(t *testing.T) {
	var arena recordArena
	stored := map[string]*Record{}
	var targets []Target
	for i := range 3 {
		p := fmt.Sprintf("/s/%d.jsonl", i)
		rec := arena.gate()
		rec.Path = arena.path([]byte(p))
		stored[rec.Path] = rec
		targets = append(targets, Target{Path: strings.Clone(p)})
	}
	gone := &Record{Path: "/s/gone.jsonl"} // no target: keeps its own path
	stored[gone.Path] = gone
	known, _ := matchTargets(stored, targets, nil)
	sharePaths(known)
	own := map[*byte]bool{}
	for _, tg := range targets {
		own[unsafe.StringData(tg.Path)] = true
	}
	for key, rec := range stored {
		if rec == gone {
			continue
		}
		assert.True(t, own[unsafe.StringData(key)], "key %s", key)
		assert.True(t, own[unsafe.StringData(rec.Path)], "path %s", rec.Path)
	}
	assert.Len(t, stored, 4)
}

// oneShotIndex indexes f's sessions and opens their index again, as the
// next one-shot process would.
func oneShotIndex(t *testing.T, f *acquireFixture) *Index {
	t.Helper()
	f.indexAll()
	ix := Open(f.ix.Config(), time.Second)
	ix.RacyWindow = f.ix.RacyWindow
	t.Cleanup(func() { ix.Close() })
	return ix
}

// heldReports indexes f's sessions, then acquires them as a one-shot
// call does and returns what it told RecordsHeld, in order.
func heldReports(t *testing.T, f *acquireFixture) []int64 {
	t.Helper()
	ix := oneShotIndex(t, f)
	var told []int64
	ix.RecordsHeld = func(held int64) { told = append(told, held) }
	need := f.need()
	need.Refresh.Preloaded = ix.Preload(context.Background(), lineage.Active)
	_, _, err := ix.Acquire(context.Background(), need, nil)
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(told), 2)
	return told
}

// A one-shot call tells RecordsHeld what its partial records take, so
// that a batch program's heap limit does not sit under them.
func TestOneShotRecordsAreHeldAgainstTheHeapLimit(t *testing.T) {
	for _, n := range []int{4, 400} {
		t.Run(fmt.Sprint(n, " sessions"), func(t *testing.T) {
			f := newAcquireFixture(t, n)
			told := heldReports(t, f)
			// Grows as the manifest is read; the last report lets go of
			// the paths (see the test below).
			read := told[:len(told)-1]
			assert.GreaterOrEqual(t, read[len(read)-1], int64(n)*int64(unsafe.Sizeof(Record{})))
			assert.True(t, slices.IsSorted(read), "told %v", told)
		})
	}
}

// What a one-shot call tells RecordsHeld is what it holds: the partial
// records' slabs, and a map entry for each only when they go into a map
// by path; read by key, the gate table's chunks and directory instead
// (a map entry charged for each was 4.8 MB of a 100k call's heap limit
// that nothing used).
func TestHeldRecordsAreWhatTheGateHolds(t *testing.T) {
	ix := oneShotIndex(t, newAcquireFixture(t, 400))
	var told int64
	ix.RecordsHeld = func(held int64) { told = held }
	slabs := int64((400 + perSlab(unsafe.Sizeof(Record{})) - 1) / perSlab(unsafe.Sizeof(Record{})))
	slab := int64(perSlab(unsafe.Sizeof(Record{}))) * int64(unsafe.Sizeof(Record{}))

	keyed, err := ix.loadGate(context.Background(), lineage.Active, true)
	require.NoError(t, err)
	require.NotNil(t, keyed.gate)
	assert.Equal(t, slabs*slab+keyed.gate.bytes(), keyed.held)
	assert.Equal(t, keyed.held, told)

	byPath, err := ix.loadGate(context.Background(), lineage.Active, false)
	require.NoError(t, err)
	require.Nil(t, byPath.gate)
	entries := slabs * int64(perSlab(unsafe.Sizeof(Record{}))) * mapEntryBytes
	assert.Greater(t, byPath.held, slabs*slab+entries, "the slabs, a map entry each and the paths")
}

// Once the partial records take the listing's paths, the heap limit stops
// counting the manifest's copies, which are garbage: the collector takes
// them back instead of the heap growing past them (13 MB at 100k).
func TestSharedPathsLeaveTheHeldRecords(t *testing.T) {
	for _, n := range []int{4, 400} {
		t.Run(fmt.Sprint(n, " sessions"), func(t *testing.T) {
			f := newAcquireFixture(t, n)
			told := heldReports(t, f)
			var paths int64
			for _, p := range f.paths {
				paths += int64(len(p))
			}
			read, last := told[len(told)-2], told[len(told)-1]
			assert.Equal(t, read-paths, last, "told %v", told)
		})
	}
}

// Whole records read together share one copy of each working directory:
// every fixture session runs in /p. An arena that does not share copies
// it, and past maxSharedCwds directories the others are copies too.
func TestWholeRecordsShareTheirCwd(t *testing.T) {
	f := newAcquireFixture(t, 20)
	f.indexAll()
	ix := Open(f.ix.Config(), time.Second)
	t.Cleanup(func() { ix.Close() })
	got, err := ix.loadRecordsAt(context.Background(), lineage.Active)
	require.NoError(t, err)
	require.Len(t, got.stored, 20)
	var first *byte
	for p, r := range got.stored {
		require.Equal(t, "/p", r.Cwd(), p)
		if first == nil {
			first = unsafe.StringData(r.Cwd())
		}
		assert.Same(t, first, unsafe.StringData(r.Cwd()), p)
	}

	var copying recordArena
	a, b := copying.cwd([]byte("/p")), copying.cwd([]byte("/p"))
	assert.Equal(t, a, b)
	assert.NotSame(t, unsafe.StringData(a), unsafe.StringData(b))
	sharing := recordArena{cwds: map[string]string{}}
	for i := range maxSharedCwds + 10 {
		d := fmt.Sprintf("/d%d", i)
		assert.Equal(t, d, sharing.cwd([]byte(d)))
	}
	assert.Len(t, sharing.cwds, maxSharedCwds)
	assert.Same(t, unsafe.StringData(sharing.cwd([]byte("/d1"))), unsafe.StringData(sharing.cwd([]byte("/d1"))))
	assert.Equal(t, "/d9999", sharing.cwd([]byte("/d9999")))
	assert.Empty(t, sharing.cwd(nil))
}

// Completing a partial record allocates about the strings it adds (a
// session id, a cwd, a lineage fingerprint): not a whole record decoded
// and copied, nor a key or a bucket of its own.
func TestCompletingARecordAllocatesAboutItsStrings(t *testing.T) {
	const n = 300
	f := newAcquireFixture(t, n)
	f.indexAll()
	ix := Open(f.ix.Config(), time.Second)
	t.Cleanup(func() { ix.Close() })
	got, err := ix.loadGateAt(context.Background(), lineage.Active)
	require.NoError(t, err)
	recs := make([]*Record, 0, n)
	for _, r := range got.stored {
		recs = append(recs, r)
	}
	var strs int
	var allocated uint64
	require.NoError(t, ix.store.View(context.Background(), func(tx *bolt.Tx) error {
		// The first completion pays one-time setup (tables, pools): run
		// alone, the test counted it and failed by a few KB.
		complete(tx, lineage.Active, recs[0])
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for _, r := range recs[1:] {
			complete(tx, lineage.Active, r)
		}
		runtime.ReadMemStats(&after)
		allocated = after.TotalAlloc - before.TotalAlloc
		return nil
	}))
	for _, r := range recs {
		require.False(t, r.partial, r.Path)
		strs += len(r.SessionID()) + len(r.Cwd())
	}
	assert.LessOrEqual(t, allocated, uint64(strs+n*16+64<<10), "%d records: %d bytes (their strings %d)", n, allocated, strs)
}

// A call over the whole archive reads the manifest by key (gateTable):
// its records take the targets' paths and copy none, and a record whose
// session is gone still gets its path, for the orphans sweep to remove
// it; the report is the one a read by path gives.
func TestArchivePreloadHoldsRecordsByKey(t *testing.T) {
	ctx := context.Background()
	refresh := func(keyed bool) (*Report, *acquireFixture, []Target) {
		f := newAcquireFixture(t, 40)
		f.indexAll()
		require.NoError(t, os.Remove(f.paths[7]))
		need := f.need(slices.Delete(slices.Clone(f.paths), 7, 8)...)
		ix := Open(f.ix.Config(), time.Second)
		ix.RacyWindow = f.ix.RacyWindow
		t.Cleanup(func() { ix.Close() })
		opt := need.Refresh
		opt.Archive = true
		if keyed {
			opt.Preloaded = ix.PreloadArchive(ctx, lineage.Active)
		} else {
			opt.Preloaded = ix.Preload(ctx, lineage.Active)
		}
		rep, err := ix.Refresh(ctx, need.Targets, opt)
		require.NoError(t, err)
		recs, _, err := ix.loadRecords(ctx, lineage.Active)
		require.NoError(t, err)
		assert.NotContains(t, recs, f.paths[7], "the gone session's record")
		assert.Len(t, recs, 39)
		return rep, f, need.Targets
	}
	byPath, _, _ := refresh(false)
	byKey, _, targets := refresh(true)
	assert.Equal(t, 1, byKey.Removed)
	assert.Equal(t, byPath.Removed, byKey.Removed)
	assert.Equal(t, byPath.Unchanged, byKey.Unchanged)
	assert.Equal(t, byPath.Coverage, byKey.Coverage)
	require.Len(t, byKey.States, len(targets))
	for i, st := range byKey.States {
		require.NotNil(t, st.Record, targets[i].Path)
		assert.Equal(t, targets[i].Path, st.Record.Path)
		assert.Same(t, unsafe.StringData(targets[i].Path), unsafe.StringData(st.Record.Path), "a copy of %s", targets[i].Path)
		assert.Equal(t, byPath.States[i].Record.SourceHash, st.Record.SourceHash)
	}
}

// A gate table grows a chunk at a time: what it allocates is what it
// holds, not the copies of a slice grown by append (13 MB allocated for
// 2.4 MB at 100k records).
func TestGateTableAllocatesWhatItHolds(t *testing.T) {
	if raceEnabled {
		t.Skip("allocations differ under the race detector")
	}
	const n = 100_000
	sums := make([][]byte, n)
	for i := range sums {
		sums[i] = binary.BigEndian.AppendUint64(make([]byte, 0, gateSumLen), uint64(i+1)<<20)
		sums[i] = sums[i][:gateSumLen]
	}
	rec := &Record{}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	g := &gateTable{}
	for _, s := range sums {
		require.True(t, g.add(rec, s))
	}
	g.seal()
	runtime.ReadMemStats(&after)
	held := int64(n*unsafe.Sizeof(gateEntry{})) + int64(len(g.dir)*4)
	assert.Less(t, int64(after.TotalAlloc-before.TotalAlloc), held+held/10, "bytes allocated for %d held", held)
	assert.Same(t, rec, g.lookup([gateSumLen]byte(sums[n/2])))
}

// A gate table finds a record by its path's sum, through its directory,
// at every size (empty, one, sums sharing a directory entry, many), and
// refuses a sum that does not come after the last (the manifest is then
// read again by path, loadGateKeyed).
func TestGateTableFindsByPathSum(t *testing.T) {
	sumOf := func(p string) []byte { s := sha256.Sum256([]byte(p)); return s[:gateSumLen] }
	for _, n := range []int{0, 1, 2, 7, 100, gateChunk, gateChunk + 1, 5000} {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			paths := make([]string, n)
			for i := range paths {
				paths[i] = fmt.Sprintf("/s/%d.jsonl", i)
			}
			slices.SortFunc(paths, func(a, b string) int { return bytes.Compare(sumOf(a), sumOf(b)) })
			g := &gateTable{}
			for i, p := range paths {
				require.True(t, g.add(&Record{Doc: uint32(i + 1)}, sumOf(p)), p)
			}
			if n > 0 {
				assert.False(t, g.add(&Record{}, sumOf(paths[n-1])), "the last sum again")
				assert.False(t, g.add(&Record{}, make([]byte, gateSumLen)), "a smaller sum")
			}
			require.Equal(t, n, g.len(), "a refused sum adds no record")
			g.seal()
			require.Len(t, g.dir, 1<<(64-g.shift)+1)
			for i, p := range paths {
				require.NotNil(t, g.find(p), p)
				assert.Same(t, g.at(i).rec, g.find(p), p)
				assert.Equal(t, uint32(i+1), g.find(p).Doc, p)
			}
			for _, p := range []string{"", "/s/gone.jsonl", fmt.Sprintf("/s/%d.jsonl", n)} {
				assert.Nil(t, g.find(p), p)
			}
		})
	}
	// Sums crowded under one directory entry (same first bytes) are all
	// found: the entry's run is scanned to its end.
	g := &gateTable{}
	var want []*Record
	for i := range 50 {
		sum := make([]byte, gateSumLen)
		sum[0], sum[15] = 0x80, byte(i)
		rec := &Record{Doc: uint32(i + 1)}
		require.True(t, g.add(rec, sum))
		want = append(want, rec)
	}
	g.seal()
	b := binary.BigEndian.Uint64([]byte{0x80, 0, 0, 0, 0, 0, 0, 0}) >> g.shift
	assert.Equal(t, int32(50), g.dir[b+1]-g.dir[b], "one entry holds them all")
	for i, rec := range want {
		assert.Same(t, rec, g.lookup([gateSumLen]byte{0: 0x80, 15: byte(i)}), "sum %d", i)
	}
	assert.Nil(t, g.lookup([gateSumLen]byte{0: 0x80, 15: 50}))
	assert.Nil(t, g.lookup([gateSumLen]byte{0: 0x7f, 15: 1}))
}

// A one-shot call whose session's stored record is missing or damaged
// (its manifest entry intact) is not answered from half a record: the
// session's data answers ErrNoData, which has it rebuilt (Forget), and
// the next call reads it whole.
func TestPartialRecordWithoutItsStoredRecordIsNoData(t *testing.T) {
	for name, edit := range map[string]func(rb *bolt.Bucket, key []byte) error{
		"missing": func(rb *bolt.Bucket, key []byte) error { return rb.Delete(key) },
		"damaged": func(rb *bolt.Bucket, key []byte) error {
			v := append([]byte(nil), rb.Get(key)...)
			v[len(v)/2] ^= 0xff
			return rb.Put(key, v)
		},
	} {
		t.Run(name, func(t *testing.T) {
			f := newAcquireFixture(t, 4)
			f.indexAll()
			key := recordKey(lineage.Active, f.paths[2])
			require.NoError(t, f.ix.store.Update(context.Background(), func(tx *bolt.Tx) error {
				return edit(tx.Bucket(recordsBucket), key)
			}))
			ix, need := f.oneShot()
			var broken *Record
			_, _, err := ix.Acquire(context.Background(), need, func(v *View) error {
				st := v.State(2)
				require.Equal(t, Cold, st.Record.Tier)
				_, _, err := v.Reader().Digest(st.Record)
				require.ErrorIs(t, err, ErrNoData)
				require.ErrorIs(t, v.Reader().Complete(st.Record), ErrNoData)
				broken = st.Record
				return nil
			})
			require.NoError(t, err)
			assert.True(t, ix.Forget(context.Background(), lineage.Active, []*Record{broken}))
			again, need := f.oneShot()
			_, _, err = again.Acquire(context.Background(), need, func(v *View) error {
				st := v.State(2)
				_, _, err := v.Reader().Digest(st.Record)
				require.NoError(t, err)
				assert.Equal(t, "s2", st.Record.SessionID())
				return nil
			})
			require.NoError(t, err)
		})
	}
}

// A one-shot call over the archive lets go of its preloaded gate table
// once its refresh has matched every record (the table stayed live
// through the search, 2.4 MB at 100k sessions); the preloaded records
// are then spent, and a later read of them reads the index again, whole.
func TestSpentPreloadReadsTheIndexAgain(t *testing.T) {
	f := newAcquireFixture(t, 40)
	ix := oneShotIndex(t, f)
	pre := ix.PreloadArchive(context.Background(), lineage.Active)
	<-pre.done
	require.NotNil(t, pre.got.gate, "read by key")
	need := f.need()
	need.Refresh.Preloaded = pre
	v, _, err := ix.Acquire(context.Background(), need, nil)
	require.NoError(t, err)
	require.NotNil(t, v)
	assert.True(t, pre.spent.Load())
	assert.Nil(t, pre.got.gate, "the table is let go")
	again, err := ix.records(context.Background(), lineage.Active, pre)
	require.NoError(t, err)
	assert.False(t, again.partial)
	assert.Len(t, again.stored, len(f.paths), "the records, read again")
}

// When some records have no target (sessions gone since), a one-shot
// call over the archive makes its map by path after all, and charges it
// to the heap limit: one entry a record.
func TestAMapByPathIsCharged(t *testing.T) {
	f := newAcquireFixture(t, 40)
	ix := oneShotIndex(t, f)
	var told []int64
	ix.RecordsHeld = func(held int64) { told = append(told, held) }
	pre := ix.PreloadArchive(context.Background(), lineage.Active)
	<-pre.done
	read := pre.got.held
	need := f.need(f.paths[:30]...)
	need.Refresh.Preloaded = pre
	_, _, err := ix.Acquire(context.Background(), need, nil)
	require.NoError(t, err)
	require.NotEmpty(t, told)
	assert.Equal(t, read+40*mapEntryBytes, told[len(told)-1])
}
