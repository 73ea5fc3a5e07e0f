package index

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/internal/lexicon"
)

// The memo reads a segment's run keys once per lexicon id, and lets go of
// the run keys of segments no longer listed.
func TestRunKeysMemo(t *testing.T) {
	seg := func(words ...string) lexicon.Segment {
		b := lexicon.NewBuilder()
		b.Add(1, words)
		sealed, err := b.Build()
		require.NoError(t, err)
		s, err := lexicon.Open(sealed)
		require.NoError(t, err)
		return s
	}
	a, b := seg("alpha", "beta"), seg("gamma")
	var m runKeysMemo
	reads := 0
	read := func() { reads++ }
	ka, kb := []byte("s1"), []byte("s2")
	for range 2 {
		got := m.with("id1", ka, [][]byte{ka}, a, read)
		docs, err := got.AppendDocs(nil, "beta")
		require.NoError(t, err)
		require.Equal(t, []uint32{1}, docs)
	}
	require.Equal(t, 1, reads, "read once")
	m.with("id1", kb, [][]byte{kb}, b, read) // a merged away
	require.Equal(t, 2, reads)
	require.Len(t, m.segs, 1)
	require.Contains(t, m.segs, "s2")
	m.with("id2", kb, [][]byte{kb}, b, read) // a lexicon made anew
	require.Equal(t, 3, reads)
}
