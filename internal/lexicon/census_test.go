package lexicon

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestCensus(t *testing.T) {
	b := NewBuilder()
	b.Add(7, []string{"alpha", "beta", "gamma"})
	b.Add(3, []string{"beta"})
	b.Add(300, []string{"alpha", "delta"})
	sealed, err := b.Build()
	require.NoError(t, err)
	seg, err := Open(sealed)
	require.NoError(t, err)

	want := Census{{Doc: 3, Keys: 1}, {Doc: 7, Keys: 3}, {Doc: 300, Keys: 2}}
	require.Equal(t, want, CensusOf(b.srcs), "from the sources")
	counted, err := seg.Census()
	require.NoError(t, err)
	require.Equal(t, want, counted, "from the postings")
	require.Equal(t, uint64(6), want.Total())

	enc, err := want.Encode()
	require.NoError(t, err)
	got, err := DecodeCensus(enc)
	require.NoError(t, err)
	require.Equal(t, want, got)

	// A merge keeps the live docs' counts: a doc is in one segment only.
	other := Census{{Doc: 5, Keys: 4}, {Doc: 400, Keys: 1}}
	merged := Merged([]Census{want, other}, func(d uint32) bool { return d != 7 && d != 400 })
	require.Equal(t, Census{{Doc: 3, Keys: 1}, {Doc: 5, Keys: 4}, {Doc: 300, Keys: 2}}, merged)

	// Damage is an error.
	enc[len(enc)-1] ^= 1
	_, err = DecodeCensus(enc)
	require.ErrorIs(t, err, ErrCorrupt)
	empty, err := Census{}.Encode()
	require.NoError(t, err)
	c, err := DecodeCensus(empty)
	require.NoError(t, err)
	require.Empty(t, c)
}
