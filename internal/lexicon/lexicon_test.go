package lexicon

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/internal/blocksum"
)

func build(t *testing.T, sessions map[uint32][]string) Segment {
	t.Helper()
	b := NewBuilder()
	for doc, keys := range sessions {
		b.Add(doc, keys)
	}
	sealed, err := b.Build()
	require.NoError(t, err)
	s, err := Open(sealed)
	require.NoError(t, err)
	return s
}

func docs(t *testing.T, segs []Segment, key string) []uint32 {
	t.Helper()
	var out []uint32
	for _, s := range segs {
		var err error
		out, err = s.AppendDocs(out, key)
		require.NoError(t, err)
	}
	return out
}

func TestBuildAndLookup(t *testing.T) {
	s := build(t, map[uint32][]string{
		7: {"deploy", "timeout", "\x00tbash"},
		3: {"deploy"},
		9: {"zq"},
	})
	assert.Equal(t, 4, s.Len())
	for key, want := range map[string][]uint32{
		"deploy": {3, 7}, "timeout": {7}, "\x00tbash": {7}, "zq": {9}, "absent": nil, "": nil, "deplo": nil,
	} {
		assert.Equal(t, want, docs(t, []Segment{s}, key), key)
	}
}

// Merging segments equals one segment built from the live docs alone,
// whatever the split.
func TestMergeEqualsOneBuild(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	all := map[uint32][]string{}
	var segs []Segment
	var doc uint32
	for range 6 {
		part := map[uint32][]string{}
		for range 1 + r.IntN(20) {
			doc += 1 + uint32(r.IntN(1000))
			var keys []string
			for k := range 1 + r.IntN(30) {
				keys = append(keys, fmt.Sprintf("t%03d", r.IntN(200)+k*0))
			}
			slices.Sort(keys)
			keys = slices.Compact(keys)
			part[doc], all[doc] = keys, keys
		}
		segs = append(segs, build(t, part))
	}
	live := func(d uint32) bool { return d%3 != 0 }
	sealed, err := Merge(segs, live)
	require.NoError(t, err)
	merged, err := Open(sealed)
	require.NoError(t, err)
	want := map[uint32][]string{}
	for d, k := range all {
		if live(d) {
			want[d] = k
		}
	}
	one := build(t, want)
	assert.Equal(t, one.Len(), merged.Len())
	for i := range 200 {
		key := fmt.Sprintf("t%03d", i)
		assert.Equal(t, docs(t, []Segment{one}, key), docs(t, []Segment{merged}, key), key)
		// Before the merge, the segments hold the same docs plus dead ones.
		var masked []uint32
		for _, d := range docs(t, segs, key) {
			if live(d) {
				masked = append(masked, d)
			}
		}
		slices.Sort(masked)
		assert.Equal(t, docs(t, []Segment{one}, key), masked, key)
	}
}

// MergeEvery writes what Merge writes and calls back after each n keys
// it walked (dead keys too: their input pages were read all the same).
func TestMergeEvery(t *testing.T) {
	a := build(t, map[uint32][]string{1: {"a", "b", "c"}, 2: {"c", "d"}})
	b := build(t, map[uint32][]string{3: {"b", "e", "f", "g"}, 4: {"h"}})
	live := func(d uint32) bool { return d != 4 } // "h" is dropped
	want, err := Merge([]Segment{a, b}, live)
	require.NoError(t, err)
	for _, tc := range []struct{ n, calls int }{{1, 8}, {3, 2}, {8, 1}, {9, 0}} {
		t.Run(fmt.Sprint(tc.n), func(t *testing.T) {
			calls := 0
			got, err := MergeEvery([]Segment{a, b}, live, tc.n, func() { calls++ })
			require.NoError(t, err)
			assert.Equal(t, want, got)
			assert.Equal(t, tc.calls, calls)
		})
	}
}

// Every flipped byte of a sealed segment is either caught or harmless:
// a lookup never returns docs that differ from the truth without an error.
func TestDamageIsCaught(t *testing.T) {
	b := NewBuilder()
	for d := uint32(1); d < 200; d++ {
		b.Add(d, []string{fmt.Sprintf("k%02d", d%37), "common"})
	}
	sealed, err := b.Build()
	require.NoError(t, err)
	good, err := Open(sealed)
	require.NoError(t, err)
	silent := 0
	for i := range sealed {
		bad := slices.Clone(sealed)
		bad[i] ^= 0x5a
		s, err := Open(bad)
		if err != nil {
			continue
		}
		for _, key := range []string{"common", "k05", "k36", "zz"} {
			want := docs(t, []Segment{good}, key)
			got, err := s.AppendDocs(nil, key)
			if err != nil {
				assert.True(t, errors.Is(err, ErrCorrupt), "%v", err)
				continue
			}
			if !slices.Equal(want, got) {
				silent++
			}
		}
	}
	assert.Zero(t, silent, "silent wrong answers")
}

// FuzzOpen: any bytes, sealed or not, open and answer lookups and merges
// without a panic; whatever a lookup returns without an error is a list of
// increasing doc numbers.
func FuzzOpen(f *testing.F) {
	b := NewBuilder()
	b.Add(3, []string{"a", "b"})
	b.Add(9, []string{"b"})
	sealed, _ := b.Build()
	f.Add(sealed)
	f.Add([]byte{})
	if data, err := blocksum.Unseal(sealed); err == nil {
		f.Add(data) // the packed table itself: sealedOf seals it
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, in := range [][]byte{data, sealedOf(data)} {
			s, err := Open(in)
			if err != nil {
				continue
			}
			for _, k := range []string{"a", "b", "", "zz"} {
				docs, err := s.AppendDocs(nil, k)
				if err == nil && !slices.IsSorted(docs) {
					t.Fatalf("%q: docs out of order: %v", k, docs)
				}
			}
			_, _ = Merge([]Segment{s, s}, func(uint32) bool { return true })
			_, _ = s.Census()
		}
	})
}

func sealedOf(data []byte) []byte {
	b, err := blocksum.Seal(data)
	if err != nil {
		return nil
	}
	return b
}

// EachPostingIn gives every key that holds a doc of the range, with those
// docs only, in key order, whatever the range.
func TestEachPostingIn(t *testing.T) {
	sessions := map[uint32][]string{
		2: {"alpha", "beta"}, 5: {"beta", "gamma"}, 9: {"alpha", "delta"}, 300: {"beta", "omega"},
	}
	s := build(t, sessions)
	for _, c := range []struct {
		lo, hi uint32
		want   map[string][]uint32
	}{
		{0, 1, map[string][]uint32{}},
		{2, 2, map[string][]uint32{"alpha": {2}, "beta": {2}}},
		{3, 9, map[string][]uint32{"alpha": {9}, "beta": {5}, "gamma": {5}, "delta": {9}}},
		{6, 299, map[string][]uint32{"alpha": {9}, "delta": {9}}},
		{0, 1 << 31, map[string][]uint32{"alpha": {2, 9}, "beta": {2, 5, 300}, "gamma": {5}, "delta": {9}, "omega": {300}}},
	} {
		got := map[string][]uint32{}
		var order []string
		require.NoError(t, s.EachPostingIn(c.lo, c.hi, func(key []byte, docs []uint32) error {
			got[string(key)] = slices.Clone(docs)
			order = append(order, string(key))
			return nil
		}))
		assert.Equal(t, c.want, got, "[%d, %d]", c.lo, c.hi)
		assert.True(t, slices.IsSorted(order))
	}
	stop := errors.New("stop")
	n := 0
	err := s.EachPostingIn(0, 1000, func([]byte, []uint32) error { n++; return stop })
	assert.ErrorIs(t, err, stop)
	assert.Equal(t, 1, n)
}

// An unfiltered merge passes the postings of a key of one input on as
// they are: the bytes are those of a merge that decodes every key's docs
// (a filter that keeps every doc).
func TestMergePassesSoleKeysAsTheyAre(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for round := range 20 {
		var segs []Segment
		var doc uint32
		for range 1 + r.IntN(8) {
			part := map[uint32][]string{}
			for range 1 + r.IntN(30) {
				doc += 1 + uint32(r.IntN(300))
				var keys []string
				for range 1 + r.IntN(40) {
					// Shared words and words of one segment alone.
					keys = append(keys, fmt.Sprintf("t%03d", r.IntN(50)), fmt.Sprintf("u%d_%d", round, r.IntN(5000)))
				}
				slices.Sort(keys)
				part[doc] = slices.Compact(keys)
			}
			segs = append(segs, build(t, part))
		}
		r.Shuffle(len(segs), func(i, j int) { segs[i], segs[j] = segs[j], segs[i] })
		want, err := Merge(segs, func(uint32) bool { return true })
		require.NoError(t, err)
		got, err := Merge(segs, nil)
		require.NoError(t, err)
		require.Equal(t, want, got, "round %d", round)
	}
}

// Postings passed on as they are are checked first: a list that is not
// as the writer writes it (a delta in more bytes than it needs, docs
// that do not increase, bytes left over) fails the merge.
func TestMergeChecksSoleKeys(t *testing.T) {
	for _, pay := range [][]byte{
		{1, 0x81, 0x00},    // doc 1 in two bytes
		{2, 3, 0},          // a repeated doc
		{1, 3, 9},          // a byte left over
		{2, 3},             // a doc missing
		{0x82, 0x00, 1, 1}, // the count in two bytes
	} {
		var pw packedWriter
		require.NoError(t, pw.Append([]byte("a"), appendPostings(nil, []uint32{5})))
		require.NoError(t, pw.Append([]byte("k"), pay))
		sealed, err := blocksum.Seal(pw.Bytes())
		require.NoError(t, err)
		s, err := Open(sealed)
		require.NoError(t, err)
		_, err = Merge([]Segment{s}, nil)
		require.ErrorIs(t, err, ErrCorrupt, "%x", pay)
	}
}
