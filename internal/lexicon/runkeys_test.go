package lexicon

import (
	"fmt"
	"math/bits"
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
		require.False(t, rk.Stale(), "n=%d: a segment's own run keys hold", n)
	}
}

// Run keys of other bytes (another segment's, with as many runs) cost
// time, never an answer: every lookup and prefix scan answers as in
// place, and the run keys are marked stale. Here the two segments share
// their first two runs' keys and offsets (found by a review: the lookup
// used to scan the wrong run and answer "absent").
func TestRunKeysOfOtherBytesAnswerAsInPlace(t *testing.T) {
	words := func(tag string) map[uint32][]string {
		m := map[uint32][]string{}
		for i := range 17 {
			m[1] = append(m[1], fmt.Sprintf("k%03d", i))
		}
		for i := range 40 {
			m[1] = append(m[1], fmt.Sprintf("%s%03d", tag, i))
		}
		return m
	}
	a, b := build(t, words("z")), build(t, words("m"))
	for _, tc := range []struct {
		seg, other Segment
		keys       []string
	}{
		{b, a, []string{"m030", "m000", "k016", "k000", "z010", "a", "zzz"}},
		{a, b, []string{"z030", "k005", "m010"}},
	} {
		rk := mustRunKeys(t, tc.other)
		mixed := tc.seg.WithRunKeys(rk)
		require.NotNil(t, mixed.p.runKeys, "as many runs: taken")
		all := func([]byte) (bool, bool) { return true, true }
		for _, k := range tc.keys {
			want, err := tc.seg.AppendDocs(nil, k)
			require.NoError(t, err)
			got, err := mixed.AppendDocs(nil, k)
			require.NoError(t, err, k)
			require.Equal(t, want, got, k)
			want, err = tc.seg.AppendMatchingDocs(nil, k[:1], all)
			require.NoError(t, err)
			got, err = mixed.AppendMatchingDocs(nil, k[:1], all)
			require.NoError(t, err, k)
			require.Equal(t, want, got, "prefix %q", k[:1])
		}
		require.True(t, rk.Stale(), "found not to hold")
	}
	// Of another run count: not taken.
	c := build(t, map[uint32][]string{1: {"gamma"}})
	require.Nil(t, a.WithRunKeys(mustRunKeys(t, c)).p.runKeys)
	// Their own segment's: never stale.
	own := mustRunKeys(t, a)
	_, err := a.WithRunKeys(own).AppendDocs(nil, "z030")
	require.NoError(t, err)
	require.False(t, own.Stale())
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

// A segment with a give-back hook answers as without it, and gives the
// hook each run's first key its binary search compared: as many as the
// search's probes, each a key of the segment, and none when its run
// keys answer (a server's lookups, which keep their pages).
func TestGiveBackSeesEachProbe(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for _, n := range []int{0, 1, 17, 200, 5000} {
		s, keys := randomSegment(t, r, n)
		var given [][]byte
		probed := s.WithGiveBack(func(b []byte) { given = append(given, slices.Clone(b)) })
		inSegment := map[string]bool{}
		for _, k := range keys {
			inSegment[k] = true
		}
		for _, q := range append([]string{"", "\xff", "m"}, keys...) {
			given = given[:0]
			want, err := s.AppendDocs(nil, q)
			require.NoError(t, err)
			got, err := probed.AppendDocs(nil, q)
			require.NoError(t, err)
			require.Equal(t, want, got, "n=%d key %q", n, q)
			runs := s.p.runs()
			require.LessOrEqual(t, len(given), bits.Len(uint(runs)), "n=%d key %q: one a probe", n, q)
			if runs > 1 {
				require.NotEmpty(t, given, "n=%d key %q", n, q)
			}
			for _, b := range given {
				require.True(t, inSegment[string(b)], "n=%d: %q is a run's first key", n, b)
			}
		}
		rk, err := s.RunKeys()
		require.NoError(t, err)
		for _, q := range keys {
			given = given[:0]
			_, err = probed.WithRunKeys(rk).AppendDocs(nil, q)
			require.NoError(t, err)
			require.Empty(t, given, "n=%d key %q: the run keys answered", n, q)
		}
	}
}
