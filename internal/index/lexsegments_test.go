package index

import (
	"os"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"github.com/memidx/memidx/internal/lexicon"
	"github.com/memidx/memidx/internal/lineage"
	"github.com/memidx/memidx/internal/memtest"
)

// A Reader opens the lexicon's listed segments once each: the list's
// keys are the same as segmentList's, and a listed segment that is gone
// still makes the lexicon damaged, not a smaller lexicon.
func TestReaderLexiconMissesNoListedSegment(t *testing.T) {
	f := newFixture(t, 4)
	ix := f.index()
	f.refresh(ix, lineage.Active)
	var listed [][]byte
	require.NoError(t, ix.View(ctx, lineage.Active, func(rd *Reader) error {
		lb := rd.tx.Bucket(lexiconBucket)
		var err error
		listed, err = segmentList(lb, lineage.Active)
		require.NoError(t, err)
		require.NotEmpty(t, listed)
		keys, err := listedSegments(lb, lineage.Active)
		require.NoError(t, err)
		assert.Equal(t, listed, keys)
		lex, err := rd.Lexicon()
		require.NoError(t, err)
		require.NotNil(t, lex)
		assert.Equal(t, listed, lex.keys)
		return nil
	}))

	editLexicon(t, ix, func(lb *bolt.Bucket, segs [][]byte) {
		require.NoError(t, lb.DeleteBucket(segs[len(segs)-1]))
	})
	require.NoError(t, ix.View(ctx, lineage.Active, func(rd *Reader) error {
		_, err := rd.Lexicon()
		assert.ErrorIs(t, err, ErrLexiconDamaged)
		assert.ErrorContains(t, err, "is missing")
		return nil
	}))
}

// A lexicon's identity is made once while its epoch and segments stay:
// the same string, no allocation; another segment list makes another.
func TestLexiconIdentityIsKeptWhileTheLexiconIs(t *testing.T) {
	f := newFixture(t, 4)
	ix := f.index()
	f.refresh(ix, lineage.Active)
	identity := func() (id, fresh string, allocs float64) {
		require.NoError(t, ix.View(ctx, lineage.Active, func(rd *Reader) error {
			lex, err := rd.Lexicon()
			require.NoError(t, err)
			id, fresh = lex.Identity(), lex.identity()
			allocs = testing.AllocsPerRun(10, func() { lex.Identity() })
			return nil
		}))
		return id, fresh, allocs
	}
	a, fresh, allocs := identity()
	assert.Equal(t, fresh, a)
	assert.Zero(t, allocs)
	b, _, _ := identity()
	assert.Equal(t, unsafe.StringData(a), unsafe.StringData(b), "the kept string")

	require.NoError(t, os.WriteFile(f.paths[0], []byte(sessionText("s0", "alpha0 beta gamma delta")), 0o600))
	f.refresh(ix, lineage.Active) // a new segment
	c, fresh, _ := identity()
	assert.Equal(t, fresh, c)
	assert.NotEqual(t, a, c)
}

// A released lexicon's table serves the next read's lexicon, which
// answers as a fresh one does; the released one holds nothing of the
// read's map.
func TestReleasedLexiconTableIsReused(t *testing.T) {
	f := newFixture(t, 4)
	ix := f.index()
	f.refresh(ix, lineage.Active)
	open := func(release bool) (docs []uint32, bytes uint64) {
		require.NoError(t, ix.View(ctx, lineage.Active, func(rd *Reader) error {
			_, err := rd.Lexicon() // warm: the segments' checks are kept
			require.NoError(t, err)
			bytes = memtest.FewestBytes(8, func() {
				lex, _ := rd.Lexicon()
				docs, _ = lex.Docs(nil, "alpha0")
				if release {
					lex.Release()
				}
			})
			lex, err := rd.Lexicon()
			require.NoError(t, err)
			lex.Release()
			assert.Empty(t, lex.segs)
			for _, s := range lex.segs[:cap(lex.segs)] {
				assert.Zero(t, s, "a kept segment points into the map")
			}
			return nil
		}))
		return docs, bytes
	}
	kept, fresh := open(false)
	reused, pooled := open(true)
	assert.NotEmpty(t, kept)
	assert.Equal(t, kept, reused)
	if !raceEnabled {
		assert.Less(t, pooled, fresh, "a released table is taken again")
	}
}

// A batch of more keys than are gathered is merged from its sources, and
// a new digest lists its terms as first seen: the merge takes each
// source sorted, and writes the segment gathering writes.
func TestSortedSourcesForTheMerge(t *testing.T) {
	lists := [][]string{{"\x00role:user", "zeta", "alpha", "mid"}, {"b", "a"}, {"a", "c", "d"}, {}}
	var srcs []lexicon.Source
	for i, l := range lists {
		views := make([][]byte, len(l))
		for k, s := range l {
			views[k] = []byte(s)
		}
		srcs = append(srcs, lexicon.Source{Doc: uint32(i + 1), Len: len(l), Key: func(k int) []byte { return views[k] }})
	}
	want, err := lexicon.BuildGathered(srcs)
	require.NoError(t, err)
	got, err := lexicon.BuildSorted(sortedSources(srcs))
	require.NoError(t, err)
	require.Equal(t, want, got)
	require.Equal(t, "zeta", string(srcs[0].Key(1)), "the sources themselves are left as they were")
}
