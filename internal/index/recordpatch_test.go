package index

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"github.com/memidx/memidx/internal/lineage"
)

// The records a long-lived index keeps after its own writes (patched)
// are those a fresh index decodes from the same file: after appends, tier
// moves, new and deleted sessions, a session that stops being one, and
// writes by another index in between.
func TestPatchedRecordsEqualDecoded(t *testing.T) {
	f := newFixture(t, 12)
	ix := f.index()
	defer ix.Close()
	other := f.index() // another process on the same file
	defer other.Close()
	rng := rand.New(rand.NewPCG(7, 11))
	at := time.Now().Add(-30 * time.Minute)
	next := 100
	merges := 0
	liveChecked = func(kept docSet, read docMap) {
		merges++
		require.Equal(t, read, docsOf(kept), "a merge's live docs")
	}
	defer func() { liveChecked = nil }()
	f.refresh(ix, lineage.Active) // the first call builds; the second keeps what it decoded
	f.refresh(ix, lineage.Active)
	for round := range 60 {
		what := ""
		switch k := rng.IntN(10); {
		case k < 4: // an agent's session grows (and turns newest: hot)
			p := pick(rng, f.paths)
			grow(t, p, round)
			at = at.Add(time.Minute)
			require.NoError(t, os.Chtimes(p, at, at))
			what = "append " + filepath.Base(p)
		case k < 6: // a new session
			p := filepath.Join(f.dir, fmt.Sprintf("s%d.jsonl", next))
			require.NoError(t, os.WriteFile(p, []byte(sessionText(fmt.Sprintf("s%d", next), fmt.Sprintf("new%d beta", next))), 0o600))
			next++
			f.paths = append(f.paths, p)
			what = "new " + filepath.Base(p)
		case k < 8 && len(f.paths) > 4: // a session deleted: its record is an orphan
			i := slices.Index(f.paths, pick(rng, f.paths))
			require.NoError(t, os.Remove(f.paths[i]))
			what = "delete " + filepath.Base(f.paths[i])
			// Still a target now and then, as a listing made before the
			// delete would name it.
			if rng.IntN(2) == 0 {
				f.paths = slices.Delete(f.paths, i, i+1)
			}
		case k < 9: // no longer a session
			p := pick(rng, f.paths)
			require.NoError(t, os.WriteFile(p, []byte("not a session\n"), 0o600))
			what = "garbled " + filepath.Base(p)
		case k < 10 && round%2 == 0: // another process writes between two calls
			f.refresh(other, lineage.Active)
			what = "other index"
		default: // another process writes right after this one's write
			p := pick(rng, f.paths)
			beforePatch = func() {
				beforePatch = nil
				require.NoError(t, os.WriteFile(p, []byte(sessionText(fmt.Sprintf("o%d", round), "other")), 0o600))
				f.refresh(other, lineage.Active)
			}
			defer func() { beforePatch = nil }()
			grow(t, pick(rng, f.paths), round)
			what = "other index after this one's write"
		}
		f.refresh(ix, lineage.Active)
		kept, ok := ix.decoded.get(lineage.Active, ix.decoded.byMode[lineage.Active].at)
		require.True(t, ok, "round %d (%s): nothing kept", round, what)
		fresh := f.index()
		want, err := fresh.loadRecordsAt(ctx, lineage.Active)
		fresh.Close()
		require.NoError(t, err)
		if kept.at != want.at {
			// Not patched past another process's write: kept at an
			// older commit, which no call will take for the file's.
			require.Less(t, kept.at.txid, want.at.txid, "round %d (%s)", round, what)
			continue
		}
		require.Equal(t, want.stored, kept.stored, "round %d (%s)", round, what)
		require.Equal(t, want.bad, kept.bad, "round %d (%s)", round, what)
		require.Equal(t, want.epoch, kept.epoch, "round %d (%s)", round, what)
		require.Equal(t, want.roster, kept.roster, "round %d (%s)", round, what)
		require.Equal(t, want.clean, kept.clean, "round %d (%s)", round, what)
		require.Equal(t, want.docs, kept.docs, "round %d (%s)", round, what)
	}
	require.Greater(t, ix.decoded.patched, uint64(20), "the kept records were hardly ever patched")
	// Keyed by the targets' own strings.
	grow(t, pick(rng, f.paths), 1000)
	f.refresh(ix, lineage.Active)
	keys := map[*byte]bool{}
	for k := range ix.decoded.byMode[lineage.Active].stored {
		keys[unsafe.StringData(k)] = true
	}
	for _, p := range f.paths {
		if _, err := os.Stat(p); err == nil {
			require.True(t, keys[unsafe.StringData(p)], "%s is not keyed by the target's string", p)
		}
	}
	require.Greater(t, merges, 5, "merges hardly ever took the kept records' docs")
}

// A record stored under another path's key (a damaged manifest entry)
// leaves the records unclean: the next change decodes them all.
func TestPatchNeedsCleanRecords(t *testing.T) {
	f, ix := keeping(t, 3)
	got, err := ix.loadRecordsAt(ctx, lineage.Active)
	require.NoError(t, err)
	require.True(t, got.clean)

	// A manifest entry that names another path: the record is whole and
	// matches it, under the first path's key.
	require.NoError(t, ix.store.Update(ctx, func(tx *bolt.Tx) error {
		key := recordKey(lineage.Active, f.paths[0])
		rec, err := (*recordArena)(nil).decodeGate(lineage.Active, key, tx.Bucket(manifestBucket).Get(key))
		require.NoError(t, err)
		rec.Path = f.paths[1]
		return putGate(tx, key, rec)
	}))
	ix2 := f.index()
	defer ix2.Close()
	got, err = ix2.loadRecordsAt(ctx, lineage.Active)
	require.NoError(t, err)
	require.False(t, got.clean)
}

// pick is one of paths whose file is there.
func pick(rng *rand.Rand, paths []string) string {
	for {
		p := paths[rng.IntN(len(paths))]
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
}

// grow appends a turn to the session at p.
func grow(t *testing.T, p string, n int) {
	fh, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = fmt.Fprintf(fh, `{"type":"message","id":"r%d","parentId":null,"timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"user","content":"grown%d"}}`+"\n", n, n)
	require.NoError(t, err)
	require.NoError(t, fh.Close())
}

// A patch's records are allocated alone: a slab or text chunk of its own
// would be kept alive by the one record it holds, patch after patch.
func TestPatchedRecordsAllocatedAlone(t *testing.T) {
	f, ix := keeping(t, 3)
	base := ix.decoded.byMode[lineage.Active]
	grow(t, f.paths[0], 1)
	var touched []touch
	for _, p := range f.paths {
		touched = append(touched, touch{key: recordKey(lineage.Active, p), path: p})
	}
	require.NoError(t, ix.store.View(ctx, func(tx *bolt.Tx) error {
		next, ok := patchLoaded(tx, lineage.Active, base, touched[:1])
		require.True(t, ok)
		require.Len(t, next.stored, 3)
		res := testing.Benchmark(func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				patchLoaded(tx, lineage.Active, base, touched[:1])
			}
		})
		// A slab of 128 records alone is ~38 KB, a text chunk 64 KB.
		require.Less(t, res.AllocedBytesPerOp(), int64(16<<10), "bytes a patch of one record allocates")
		return nil
	}))
}

// docsOf is the docs s holds.
func docsOf(s docSet) docMap {
	out := docMap{}
	switch s := s.(type) {
	case docMap:
		return s
	case keptDocs:
		for d := range s.plus {
			out[d] = struct{}{}
		}
		for _, d := range s.sorted {
			if s.has(d) {
				out[d] = struct{}{}
			}
		}
	}
	return out
}

func TestPatchDocsAndKeptDocs(t *testing.T) {
	for _, c := range []struct {
		docs, gone, added, want []uint32
	}{
		{nil, nil, nil, []uint32{}},
		{[]uint32{1, 3, 5}, []uint32{3}, []uint32{9, 2}, []uint32{1, 2, 5, 9}},
		{[]uint32{1, 3, 3, 5}, []uint32{3}, nil, []uint32{1, 3, 5}}, // one of each gone
		{[]uint32{4}, []uint32{4}, []uint32{4}, []uint32{4}},        // a record kept its doc
		{[]uint32{2, 4}, []uint32{7}, []uint32{1}, []uint32{1, 2, 4}},
	} {
		require.Equal(t, c.want, patchDocs(c.docs, c.gone, c.added), "%v - %v + %v", c.docs, c.gone, c.added)
	}
	k := keptDocs{sorted: []uint32{1, 3, 3, 5, 8}, minus: map[uint32]int{3: 1, 5: 1, 8: 1}, plus: map[uint32]bool{8: true, 9: true}}
	for d, want := range map[uint32]bool{1: true, 2: false, 3: true, 5: false, 8: true, 9: true, 10: false} {
		require.Equal(t, want, k.has(d), "doc %d", d)
	}
}

// A change to the index file between this index's last write and its
// patch that is no commit (damage in place moves the file's ctime, as a
// chmod does here) keeps the records from being patched: the next call
// decodes them all.
func TestPatchRefusedAfterOutsideWrite(t *testing.T) {
	f, ix := keeping(t, 4)
	beforePatch = func() {
		beforePatch = nil
		st, err := os.Stat(ix.store.Path())
		require.NoError(t, err)
		time.Sleep(10 * time.Millisecond) // a ctime of its own, on coarse clocks too
		require.NoError(t, os.Chmod(ix.store.Path(), st.Mode()))
	}
	defer func() { beforePatch = nil }()
	before := ix.decoded.patched
	grow(t, f.paths[0], 1)
	f.refresh(ix, lineage.Active)
	require.Equal(t, before, ix.decoded.patched, "patched after the file changed outside")
	fresh := f.index()
	now, err := fresh.loadRecordsAt(ctx, lineage.Active)
	fresh.Close()
	require.NoError(t, err)
	_, hit := ix.decoded.get(lineage.Active, now.at)
	require.False(t, hit, "records kept for the file as it is now, which no decode read")
	// The next call decodes them all, and patches after its own write.
	grow(t, f.paths[1], 2)
	f.refresh(ix, lineage.Active)
	require.Equal(t, before+1, ix.decoded.patched)
}

// keeping is a fixture of n sessions and an index that built them and
// keeps their decoded records (its second call).
func keeping(t *testing.T, n int) (*fixture, *Index) {
	f := newFixture(t, n)
	ix := f.index()
	t.Cleanup(func() { ix.Close() })
	f.refresh(ix, lineage.Active)
	f.refresh(ix, lineage.Active)
	return f, ix
}

// Records a host decodes while it lists (Preload) are kept pointing at
// its targets' paths, not at copies of their own: when most of them are
// targets, every kept record and key shares a target's string; when few
// are, they keep their own. Either way they are the records a fresh
// index decodes, and kept for the next call.
//
// An archive's preload (PreloadArchive) decodes the records without
// their paths, by key: every record a target found then shares its
// path, however few were listed, and the others read theirs.
func TestPreloadedRecordsTakeTheTargetsPaths(t *testing.T) {
	for _, c := range []struct {
		listed  int
		archive bool
	}{{10, false}, {9, false}, {3, false}, {10, true}, {9, true}, {3, true}} {
		listed := c.listed
		t.Run(fmt.Sprint(listed, " of 10 listed, archive ", c.archive), func(t *testing.T) {
			f := newFixture(t, 10)
			built := f.index()
			f.refresh(built, lineage.Active)
			want, err := built.loadRecordsAt(ctx, lineage.Active)
			require.NoError(t, err)
			built.Close()

			ix := f.index()
			defer ix.Close()
			ix.LongLived()
			var targets []Target
			for _, p := range f.paths[:listed] {
				targets = append(targets, Target{Path: strings.Clone(p)})
			}
			pre := ix.Preload(ctx, lineage.Active)
			if c.archive {
				pre = ix.PreloadArchive(ctx, lineage.Active)
				<-pre.done
				require.NotNil(t, pre.got.gate, "read by key")
				require.Equal(t, len(f.paths), pre.got.gate.len())
				for i := range pre.got.gate.len() {
					require.Empty(t, pre.got.gate.at(i).rec.Path, "a path was copied")
				}
			}
			_, err = ix.Refresh(ctx, targets, RefreshOptions{Mode: lineage.Active, Searched: []string{f.dir}, Preloaded: pre})
			require.NoError(t, err)

			kept, ok := ix.decoded.byMode[lineage.Active]
			require.True(t, ok, "nothing kept")
			require.NotZero(t, kept.gen)
			require.False(t, kept.unkept)
			require.Equal(t, len(want.stored), len(kept.stored))
			for p, rec := range want.stored {
				require.Equal(t, *rec, *kept.stored[p], p)
			}
			keys := map[*byte]bool{}
			for k, rec := range kept.stored {
				keys[unsafe.StringData(k)] = true
				require.Equal(t, k, rec.Path)
			}
			shared := 2*listed >= len(f.paths) || c.archive
			for _, tg := range targets {
				rec := kept.stored[tg.Path]
				require.Equal(t, shared, unsafe.StringData(rec.Path) == unsafe.StringData(tg.Path), "%s: record's path", tg.Path)
				require.Equal(t, shared, keys[unsafe.StringData(tg.Path)], "%s: key", tg.Path)
			}
			// The next call at the same commit gets these very records.
			again, err := ix.loadRecordsAt(ctx, lineage.Active)
			require.NoError(t, err)
			require.Equal(t, kept.gen, again.gen)
		})
	}
}

// A run answered from the kept quiet refresh keeps the records it
// decoded: when the record cache held other records than the quiet
// refresh's commit (a slower run's, kept last), the next quiet calls
// decode once, not every time; records an archive's preload read by key
// too.
func TestQuietAnswerKeepsWhatItDecoded(t *testing.T) {
	for _, archive := range []bool{false, true} {
		t.Run(fmt.Sprint("archive ", archive), func(t *testing.T) { quietAnswerKeeps(t, archive) })
	}
}

func quietAnswerKeeps(t *testing.T, archive bool) {
	f := newFixture(t, 20)
	ix := f.index()
	defer ix.Close()
	ix.LongLived()
	opt := RefreshOptions{Mode: lineage.Active, Searched: []string{f.dir}, Archive: true, Watched: true}
	targets := listedStats(t, f.paths)
	call := func() {
		o := opt
		o.Preloaded = ix.Preload(ctx, lineage.Active)
		if archive {
			o.Preloaded = ix.PreloadArchive(ctx, lineage.Active)
		}
		_, err := ix.Refresh(ctx, targets, o)
		require.NoError(t, err)
	}
	for range 3 {
		call()
	}
	hits := ix.quiet.hits.Load()
	require.NotZero(t, hits)
	// The cache holds what an older commit's run kept last.
	ix.decoded.mu.Lock()
	stale := ix.decoded.byMode[lineage.Active]
	stale.at.txid--
	ix.decoded.byMode[lineage.Active] = stale
	ix.decoded.mu.Unlock()
	gens := ix.decoded.gens
	for range 5 {
		call()
	}
	require.Equal(t, hits+5, ix.quiet.hits.Load(), "answered quietly")
	require.Equal(t, gens+1, ix.decoded.gens, "decoded and kept once")
	kept := ix.decoded.byMode[lineage.Active]
	for _, tg := range targets { // pointing at the targets' paths, as keepMatched's
		require.Same(t, unsafe.StringData(tg.Path), unsafe.StringData(kept.stored[tg.Path].Path), tg.Path)
	}
}

// Records an archive's preload read by key are not kept when the paths
// of those no target found were read at another commit than theirs:
// the cache would hold a mix of two commits under one.
func TestKeyedRecordsOfAnotherCommitAreNotKept(t *testing.T) {
	f := newFixture(t, 10)
	built := f.index()
	f.refresh(built, lineage.Active)
	ix := f.index()
	defer ix.Close()
	ix.LongLived()
	pre := ix.PreloadArchive(ctx, lineage.Active)
	<-pre.done
	require.NotNil(t, pre.got.gate)
	f.rewriteOne(9, 1) // another process rebuilds it meanwhile
	f.refresh(built, lineage.Active)
	built.Close()
	targets := make([]Target, 9) // the first 9: one record is found by no target
	for i := range targets {
		targets[i] = Target{Path: f.paths[i]}
	}
	rep, err := ix.Refresh(ctx, targets, RefreshOptions{Mode: lineage.Active, Searched: []string{f.dir}, Preloaded: pre})
	require.NoError(t, err)
	require.Len(t, rep.States, 9)
	for _, st := range rep.States {
		require.NotNil(t, st.Record, st.Path)
		require.Equal(t, st.Path, st.Record.Path)
	}
	_, kept := ix.decoded.get(lineage.Active, pre.got.at)
	require.False(t, kept, "records of the preload's commit kept with paths of another")
}

// Two targets of one path do not hide a record no target found from a
// keyed preload's refresh: the kept records are all the file's, and a
// later call for that session finds its record current (a review found
// the kept set one short, and the session rebuilt).
func TestKeyedRecordsWithDuplicateTargets(t *testing.T) {
	f := newFixture(t, 10)
	built := f.index()
	f.refresh(built, lineage.Active)
	built.Close()
	ix := f.index()
	defer ix.Close()
	ix.LongLived()
	targets := make([]Target, 0, 10)
	for _, p := range f.paths[:9] {
		targets = append(targets, Target{Path: p})
	}
	targets = append(targets, Target{Path: f.paths[0]}) // s0 twice, s9 not at all
	pre := ix.PreloadArchive(ctx, lineage.Active)
	_, err := ix.Refresh(ctx, targets, RefreshOptions{Mode: lineage.Active, Searched: []string{f.dir}, Preloaded: pre})
	require.NoError(t, err)
	kept, ok := ix.decoded.byMode[lineage.Active]
	require.True(t, ok)
	require.Len(t, kept.stored, 10)
	require.NotNil(t, kept.stored[f.paths[9]])
	rep, err := ix.Refresh(ctx, []Target{{Path: f.paths[9]}}, RefreshOptions{Mode: lineage.Active, Searched: []string{f.dir}})
	require.NoError(t, err)
	require.Zero(t, rep.Rebuilt, "s9 was current in the file")
	require.NotNil(t, rep.States[0].Record)
}

// The record cache does not take records of an older commit of its file
// over those of a later one; another file's are taken.
func TestRecordCacheKeepsTheLaterCommit(t *testing.T) {
	var c recordCache
	file := Identity{Inode: 7, Dev: 1, Size: 100, CtimeNs: 20}
	later := c.put(lineage.Active, commit{txid: 9, file: file}, loaded{})
	require.NotZero(t, later.gen)
	older := c.put(lineage.Active, commit{txid: 8, file: Identity{Inode: 7, Dev: 1, Size: 90, CtimeNs: 10}}, loaded{})
	require.Zero(t, older.gen, "an older commit's records were kept")
	require.Equal(t, 8, older.at.txid)
	kept, ok := c.get(lineage.Active, commit{txid: 9, file: file})
	require.True(t, ok)
	require.Equal(t, later.gen, kept.gen)
	other := c.put(lineage.Active, commit{txid: 2, file: Identity{Inode: 8, Dev: 1, CtimeNs: 30}}, loaded{})
	require.NotZero(t, other.gen, "a new file's records")
	_, ok = c.get(lineage.Active, commit{txid: 2, file: Identity{Inode: 8, Dev: 1, CtimeNs: 30}})
	require.True(t, ok)
	// A file made anew that got the inode number back counts from 1.
	reset := commit{txid: 1, file: Identity{Inode: 8, Dev: 1, CtimeNs: 40}}
	require.NotZero(t, c.put(lineage.Active, reset, loaded{}).gen, "a reset file's records")
	_, ok = c.get(lineage.Active, reset)
	require.True(t, ok)
}
