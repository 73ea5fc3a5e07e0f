package index

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"github.com/memidx/memidx/internal/lexicon"
	"github.com/memidx/memidx/internal/lineage"
)

// lexiconPostings counts mode's lexicon postings, and those of docs no
// record names.
func lexiconPostings(t *testing.T, ix *Index, mode lineage.Mode) (total, dead uint64, segs int) {
	t.Helper()
	return countPostings(t, ix, mode, true)
}

// countPostings is lexiconPostings; stored says every segment must keep
// its census, and that census must be the segment's.
func countPostings(t *testing.T, ix *Index, mode lineage.Mode, stored bool) (total, dead uint64, segs int) {
	t.Helper()
	require.NoError(t, ix.store.View(ctx, func(tx *bolt.Tx) error {
		live := liveDocs(tx, mode)
		lb := tx.Bucket(lexiconBucket)
		keys, err := segmentList(lb, mode)
		require.NoError(t, err)
		segs = len(keys)
		for _, k := range keys {
			seg, err := lexicon.Open(segmentAt(lb, k))
			require.NoError(t, err)
			c, err := seg.Census()
			require.NoError(t, err)
			if stored {
				kept, counted, err := censusOf(lb, k)
				require.NoError(t, err)
				require.False(t, counted, "every segment keeps its census")
				require.Equal(t, c, kept, "the stored census is the segment's")
			}
			for _, d := range c {
				total += uint64(d.Keys)
				if _, ok := live[d.Doc]; !ok {
					dead += uint64(d.Keys)
				}
			}
		}
		return nil
	}))
	return total, dead, segs
}

// rewriteAll appends a turn to every session, so that the next refresh
// reads each again and gives it a new doc.
func (f *fixture) rewriteAll(round int) {
	for i := range f.paths {
		f.rewriteOne(i, round)
	}
}

// rewriteOne rewrites session i one second later than it was, so that
// the sessions keep their order (and the hot set stays the same).
func (f *fixture) rewriteOne(i, round int) {
	st, err := os.Stat(f.paths[i])
	require.NoError(f.t, err)
	text := sessionText(fmt.Sprintf("s%d", i), fmt.Sprintf("alpha%d beta", i), fmt.Sprintf("round%d gamma%d", round, i))
	require.NoError(f.t, os.WriteFile(f.paths[i], []byte(text), 0o600))
	mt := st.ModTime().Add(time.Second)
	require.NoError(f.t, os.Chtimes(f.paths[i], mt, mt))
}

// Reading every session again (a full rebuild, a policy change) used to
// leave the old segments' postings behind for good whenever their size
// class did not fill: a half-dead segment is now rewritten alone.
func TestLexiconDropsDeadSegments(t *testing.T) {
	f, ix := indexedFixture(t)
	total0, dead0, _ := lexiconPostings(t, ix, lineage.Active)
	require.Zero(t, dead0)
	for round := 1; round <= 4; round++ {
		f.rewriteAll(round)
		rep := f.refresh(ix, lineage.Active)
		require.Equal(t, 20, rep.Rebuilt, "round %d", round)
		total, dead, segs := lexiconPostings(t, ix, lineage.Active)
		require.LessOrEqual(t, float64(dead), deadShare*float64(total), "round %d: %d of %d postings dead in %d segments", round, dead, total, segs)
		require.Less(t, total, 2*(total0+uint64(20*4)), "round %d", round)
	}
	// The notes of the dropped docs went with them.
	require.NoError(t, ix.store.View(ctx, func(tx *bolt.Tx) error {
		notes := loadNotes(tx.Bucket(lexiconBucket), lineage.Active)
		live := liveDocs(tx, lineage.Active)
		for d := range notes {
			_, ok := live[d]
			require.False(t, ok, "doc %d is live but noted dead", d)
		}
		require.LessOrEqual(t, len(notes), 20)
		return nil
	}))
}

// An index written before censuses: its segments get counted, and the
// dead ones among them rewritten, at the next write.
func TestLexiconCountsOlderSegments(t *testing.T) {
	f, ix := indexedFixture(t)
	f.rewriteAll(1)
	// Read again without the sweep, then drop the censuses and notes: the
	// first segment is dead, as an older memidx left it.
	sweepDead = false
	f.refresh(ix, lineage.Active)
	sweepDead = true
	editLexicon(t, ix, func(lb *bolt.Bucket, segs [][]byte) {
		for _, k := range segs {
			require.NoError(t, lb.Bucket(k).Delete(censusValue))
		}
		require.NoError(t, lb.DeleteBucket(deadBucket(lineage.Active)))
	})
	_, dead0, segs := countPostings(t, ix, lineage.Active, false)
	require.Equal(t, 2, segs)
	require.Positive(t, dead0, "the first segment is dead")
	// One session changes: that write counts every segment.
	f.rewriteOne(0, 2)
	require.Equal(t, 1, f.refresh(ix, lineage.Active).Rebuilt)
	total, dead, segs := lexiconPostings(t, ix, lineage.Active)
	require.Equal(t, 2, segs, "the dead one dropped, the new one's added")
	require.Less(t, dead, dead0)
	require.LessOrEqual(t, float64(dead), deadShare*float64(total))
}

// indexedFixture is 20 sessions, two of them hot, indexed once.
func indexedFixture(t *testing.T) (*fixture, *Index) {
	f := newFixture(t, 20)
	ix := f.index()
	t.Cleanup(func() { ix.Close() })
	f.refresh(ix, lineage.Active)
	return f, ix
}

// editLexicon runs edit in a write of the active mode's lexicon bucket,
// with its listed segments.
func editLexicon(t *testing.T, ix *Index, edit func(lb *bolt.Bucket, segs [][]byte)) {
	t.Helper()
	require.NoError(t, ix.store.Update(ctx, func(tx *bolt.Tx) error {
		lb := tx.Bucket(lexiconBucket)
		keys, err := segmentList(lb, lineage.Active)
		require.NoError(t, err)
		edit(lb, keys)
		return nil
	}))
}

// writable says that a refresh wrote what it read.
func writable(t *testing.T, rep *Report) {
	t.Helper()
	require.NotContains(t, rep.Coverage.Reasons, IndexUnwritable)
}

// Damage that a write's sweep meets (a segment without a census that does
// not read, a plain value where the notes go) resets the lexicon or drops
// the notes: it never blocks every later write.
func TestLexiconSweepSurvivesDamage(t *testing.T) {
	for _, tc := range []struct {
		name   string
		damage func(lb *bolt.Bucket, first []byte)
	}{
		{"segment without census, damaged", func(lb *bolt.Bucket, first []byte) {
			b := lb.Bucket(first)
			require.NoError(t, b.Delete(censusValue))
			v := append([]byte(nil), b.Get(segmentValue)...)
			v[len(v)/2] ^= 0xff
			require.NoError(t, b.Put(segmentValue, v))
		}},
		{"a plain value for the notes", func(lb *bolt.Bucket, _ []byte) {
			if lb.Bucket(deadBucket(lineage.Active)) != nil {
				require.NoError(t, lb.DeleteBucket(deadBucket(lineage.Active)))
			}
			require.NoError(t, lb.Put(deadBucket(lineage.Active), []byte("x")))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, ix := indexedFixture(t)
			editLexicon(t, ix, func(lb *bolt.Bucket, segs [][]byte) { tc.damage(lb, segs[0]) })
			for round := 2; round <= 3; round++ {
				f.rewriteOne(19, round)
				writable(t, f.refresh(ix, lineage.Active))
			}
			total, dead, _ := lexiconPostings(t, ix, lineage.Active)
			require.LessOrEqual(t, float64(dead), deadShare*float64(total))
		})
	}
}

// A wrong note (damage) on a live doc costs one rewrite, not one per
// write: a merge forgets the notes of all its inputs' docs.
func TestLexiconWrongNoteIsForgotten(t *testing.T) {
	f, ix := indexedFixture(t)
	require.NoError(t, ix.store.Update(ctx, func(tx *bolt.Tx) error {
		lb := tx.Bucket(lexiconBucket)
		notes, err := lb.CreateBucketIfNotExists(deadBucket(lineage.Active))
		require.NoError(t, err)
		for d := range liveDocs(tx, lineage.Active) {
			require.NoError(t, notes.Put(docKey(d), nil))
		}
		return nil
	}))
	// The key of the largest segment after each round.
	var big [][]byte
	for round := 1; round <= 4; round++ {
		f.rewriteOne(19, round)
		writable(t, f.refresh(ix, lineage.Active))
		require.NoError(t, ix.store.View(ctx, func(tx *bolt.Tx) error {
			lb := tx.Bucket(lexiconBucket)
			keys, err := segmentList(lb, lineage.Active)
			require.NoError(t, err)
			largest := slices.MaxFunc(keys, func(a, b []byte) int { return len(segmentAt(lb, a)) - len(segmentAt(lb, b)) })
			big = append(big, largest)
			require.LessOrEqual(t, len(loadNotes(lb, lineage.Active)), 1, "round %d", round)
			return nil
		}))
	}
	// Rewritten once (round 1), then left alone.
	require.Equal(t, big[1], big[2])
	require.Equal(t, big[1], big[3])
}

// Plaintext shows the words that packed values hold: a cold session's
// words are in the front-coded lexicon, once; its stored digest holds
// no second copy.
func TestPlaintextUnpacks(t *testing.T) {
	f, ix := indexedFixture(t)
	ix.Close()
	text, err := Plaintext(f.cfg.IndexDir)
	require.NoError(t, err)
	n := 0
	for _, line := range strings.Split(string(text), "\n") {
		if line == "alpha3" {
			n++
		}
	}
	require.Equal(t, 1, n, "alpha3 (cold) once, in the lexicon")
	require.NotContains(t, string(text), "neverwritten")
}

// A merge asks of each posting whether its doc lives only when some doc
// of its inputs is dead: every doc live, it passes no filter.
func TestEveryDocLive(t *testing.T) {
	censuses := []lexicon.Census{{{Doc: 1, Keys: 3}, {Doc: 4, Keys: 1}}, {{Doc: 9, Keys: 2}}}
	for _, tc := range []struct {
		live docMap
		want bool
	}{
		{docMap{1: {}, 4: {}, 9: {}}, true},
		{docMap{1: {}, 4: {}, 9: {}, 12: {}}, true},
		{docMap{1: {}, 9: {}}, false},
		{docMap{1: {}, 4: {}}, false},
		{docMap{}, false},
	} {
		assert.Equal(t, tc.want, everyDocLive(censuses, tc.live), "%v", tc.live)
	}
	assert.True(t, everyDocLive(nil, docMap{}))
	assert.Equal(t, lexicon.Census{{Doc: 1, Keys: 3}, {Doc: 4, Keys: 1}, {Doc: 9, Keys: 2}}, lexicon.Merged(censuses, nil))
}
