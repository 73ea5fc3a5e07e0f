package lexicon

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// randomSegment is a segment of about n keys (randomKeys), each held by
// a few of 50 docs, and its keys.
func randomSegment(t *testing.T, r *rand.Rand, n int) (Segment, []string) {
	t.Helper()
	keys := randomKeys(r, n)
	sessions := map[uint32][]string{}
	for _, k := range keys {
		for range 1 + r.IntN(3) {
			d := uint32(1 + r.IntN(50))
			sessions[d] = append(sessions[d], k)
		}
	}
	for d := range sessions {
		slices.Sort(sessions[d])
		sessions[d] = slices.Compact(sessions[d])
	}
	return build(t, sessions), keys
}

// A segment reading its run keys answers every lookup and prefix scan as
// the search in place does, at every size around the runs' boundaries.
func TestRunKeysAnswerAsInPlace(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, n := range []int{0, 1, 2, 15, 16, 17, 33, 200, 1000} {
		s, keys := randomSegment(t, r, n)
		rk, err := s.RunKeys()
		require.NoError(t, err)
		require.Len(t, rk.offs, s.p.runs())
		withRuns := s.WithRunKeys(rk)
		require.NotNil(t, withRuns.p.runKeys)
		queries := append([]string{"", "\x00", "\xff\xff", "w", "p"}, keys...)
		for range 300 {
			queries = append(queries, randomKeys(r, 1)[0]+"az"[:r.IntN(3)])
		}
		for _, q := range queries {
			want, err := s.AppendDocs(nil, q)
			require.NoError(t, err)
			got, err := withRuns.AppendDocs(nil, q)
			require.NoError(t, err)
			require.Equal(t, want, got, "n=%d key %q", n, q)
			all := func(k []byte) (bool, bool) { return true, true }
			prefix := q[:min(len(q), r.IntN(4))]
			want, err = s.AppendMatchingDocs(nil, prefix, all)
			require.NoError(t, err)
			got, err = withRuns.AppendMatchingDocs(nil, prefix, all)
			require.NoError(t, err)
			require.Equal(t, want, got, "n=%d prefix %q", n, prefix)
		}
	}
}

// Run keys of other bytes (another segment's, with as many runs) make
// lookups report damage, never another segment's answer.
func TestRunKeysOfOtherBytesReadAsDamage(t *testing.T) {
	words := func(tag string) map[uint32][]string {
		m := map[uint32][]string{}
		for i := range 40 {
			m[uint32(i+1)] = []string{fmt.Sprintf("%s%03d", tag, i)}
		}
		return m
	}
	a, b := build(t, words("alpha")), build(t, words("beta"))
	rk, err := b.RunKeys()
	require.NoError(t, err)
	mixed := a.WithRunKeys(rk)
	require.NotNil(t, mixed.p.runKeys, "as many runs: taken")
	for _, k := range []string{"alpha000", "alpha017", "alpha039", "beta005", "a", "zzz"} {
		_, err := mixed.AppendDocs(nil, k)
		require.ErrorIs(t, err, ErrCorrupt, k)
	}
	all := func([]byte) (bool, bool) { return true, true }
	_, err = mixed.AppendMatchingDocs(nil, "c", all)
	require.ErrorIs(t, err, ErrCorrupt)
	// A scan that the run keys start at the table's start reads the
	// table's own bytes: the right answer.
	want, err := a.AppendMatchingDocs(nil, "alpha02", all)
	require.NoError(t, err)
	got, err := mixed.AppendMatchingDocs(nil, "alpha02", all)
	require.NoError(t, err)
	require.Equal(t, want, got)
	// Of another run count: not taken.
	c := build(t, map[uint32][]string{1: {"gamma"}})
	require.Nil(t, a.WithRunKeys(mustRunKeys(t, c)).p.runKeys)
}

func mustRunKeys(t *testing.T, s Segment) *RunKeys {
	rk, err := s.RunKeys()
	require.NoError(t, err)
	return rk
}

// A segment written before packed tables has no run keys and reads as
// it did.
func TestRunKeysOfAnOlderSegment(t *testing.T) {
	old := oldSegment(t, map[uint32][]string{1: {"alpha", "beta"}, 2: {"beta"}})
	rk, err := old.RunKeys()
	require.NoError(t, err)
	require.Nil(t, rk)
	got, err := old.WithRunKeys(rk).AppendDocs(nil, "beta")
	require.NoError(t, err)
	require.Equal(t, []uint32{1, 2}, got)
}
