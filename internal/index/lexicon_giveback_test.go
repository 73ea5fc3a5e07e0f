package index

import (
	"fmt"
	"os"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/internal/lineage"
)

// A short-lived Index's lexicon gives back each segment's pages after a
// lookup, and those of each probe of a lookup's search; a long-lived one keeps them (its map budget bounds them) and
// looks up through the segments' run keys. Both find the same docs, also
// after the pages were given back.
func TestLexiconGivesBackSegmentsUnlessLongLived(t *testing.T) {
	f := wordFixture(t)
	lookup := func(longLived bool) (docs []uint32, gaveBack bool) {
		ix := f.index()
		t.Cleanup(func() { ix.Close() })
		if longLived {
			ix.LongLived()
		}
		f.refresh(ix, lineage.Active)
		require.NoError(t, ix.View(ctx, lineage.Active, func(r *Reader) error {
			l, err := r.Lexicon()
			require.NoError(t, err)
			require.NotNil(t, l)
			require.NotEmpty(t, l.segs)
			gaveBack = l.tx != nil && len(l.giveBack) == len(l.segs)
			for _, s := range l.segs { // small segments: not each probe's
				require.False(t, s.GivesBack())
			}
			if longLived {
				require.Len(t, ix.runKeys.segs, len(l.segs), "a long-lived index keeps the run keys")
			} else {
				require.Empty(t, ix.runKeys.segs)
			}
			for range 2 { // the second lookup reads what the first gave back
				got, err := l.Docs(nil, "word1")
				require.NoError(t, err)
				slices.Sort(got)
				if docs != nil {
					require.Equal(t, docs, got)
				}
				docs = got
			}
			return nil
		}))
		return docs, gaveBack
	}
	short, gave := lookup(false)
	require.True(t, gave, "a short-lived index gives the segments back")
	require.Len(t, short, 3)
	// Segments of at least probeGiveBackFrom give back each probe's pages.
	defer func(n int) { probeGiveBackFrom = n }(probeGiveBackFrom)
	probeGiveBackFrom = 0
	ix := f.index()
	t.Cleanup(func() { ix.Close() })
	f.refresh(ix, lineage.Active)
	require.NoError(t, ix.View(ctx, lineage.Active, func(r *Reader) error {
		l, err := r.Lexicon()
		require.NoError(t, err)
		defer l.Release()
		for _, s := range l.segs {
			require.True(t, s.GivesBack())
		}
		got, err := l.Docs(nil, "word1")
		require.NoError(t, err)
		slices.Sort(got)
		require.Equal(t, short, got)
		return nil
	}))
	long, gave := lookup(true)
	require.False(t, gave, "a long-lived index keeps them mapped")
	require.Equal(t, short, long)
}

// wordFixture is six sessions that all say "deploy", and "word1" in
// every other one (three docs hold it).
func wordFixture(t *testing.T) *fixture {
	f := newFixture(t, 6)
	for i, p := range f.paths {
		require.NoError(t, os.WriteFile(p, []byte(sessionText(fmt.Sprintf("s%d", i), "deploy", fmt.Sprintf("word%d", i%2))), 0o600))
	}
	return f
}
