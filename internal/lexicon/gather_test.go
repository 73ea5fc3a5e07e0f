package lexicon

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// randomSources are n sessions of up to words keys each, drawn from a
// vocabulary of vocab (structural keys, which start with a NUL byte,
// among them), in strictly increasing order as digests list them.
func randomSources(seed uint64, n, words, vocab int) []Source {
	r := rand.New(rand.NewPCG(seed, 7))
	srcs := make([]Source, 0, n)
	for s := range n {
		keys := make([]string, 0, words)
		for range r.IntN(words + 1) {
			k := fmt.Sprintf("w%x", r.IntN(vocab))
			if r.IntN(10) == 0 {
				k = "\x00" + k
			}
			keys = append(keys, k)
		}
		slices.Sort(keys)
		keys = slices.Compact(keys)
		views := make([][]byte, len(keys))
		for i, k := range keys {
			views[i] = []byte(k)
		}
		srcs = append(srcs, Source{Doc: uint32(3*s + 1), Len: len(views), Key: func(i int) []byte { return views[i] }})
	}
	return srcs
}

func TestBuildGathered_SameBytesAsBuildSorted(t *testing.T) {
	for _, tc := range []struct {
		name                 string
		sessions, words, voc int
	}{
		{"none", 0, 0, 1},
		{"one empty", 1, 0, 1},
		{"one", 1, 50, 100},
		{"a refresh batch", 64, 300, 5000},
		{"a rebuild batch", 1024, 120, 20000},
		{"shared words", 200, 40, 30},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srcs := randomSources(uint64(tc.sessions), tc.sessions, tc.words, tc.voc)
			want, err := BuildSorted(srcs)
			require.NoError(t, err)
			got, err := BuildGathered(srcs)
			require.NoError(t, err)
			require.Equal(t, want, got)
		})
	}
}

// BenchmarkBuildBatch: a rebuild's write batch, 1,024 sessions of a few
// hundred keys from a vocabulary of 20,000, by a heap merge and gathered.
func BenchmarkBuildBatch(b *testing.B) {
	srcs := randomSources(9, 1024, 600, 20000)
	for _, build := range []struct {
		name string
		fn   func([]Source) ([]byte, error)
	}{{"sorted", BuildSorted}, {"gathered", BuildGathered}} {
		b.Run(build.name, func(b *testing.B) {
			for range b.N {
				if _, err := build.fn(srcs); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// A segment gathered before its docs are numbered seals to the bytes of
// one built with them, for any increasing docs; docs that do not increase,
// or are too few, are refused.
func TestGatherThenSeal(t *testing.T) {
	srcs := randomSources(5, 300, 80, 2000)
	gathered := Gather(srcs)
	for _, base := range []uint32{1, 1000, 1 << 30} {
		// Docs one after another (as a write numbers them) and not.
		for _, step := range []uint32{1, 2} {
			for i := range srcs {
				srcs[i].Doc = base + step*uint32(i)
			}
			want, err := BuildSorted(srcs)
			require.NoError(t, err)
			numbered := slices.Clone(srcs)
			for i := range numbered {
				numbered[i].Key = nil // Seal reads the docs only
			}
			got, err := gathered.Seal(numbered)
			require.NoError(t, err)
			require.Equal(t, want, got, "base %d, step %d", base, step)
		}
	}
	numbered := slices.Clone(srcs)
	for i := range numbered {
		numbered[i].Doc = uint32(i + 1)
	}
	numbered[7].Doc = numbered[6].Doc
	_, err := gathered.Seal(numbered)
	require.ErrorContains(t, err, "do not increase")
	_, err = gathered.Seal(numbered[:5])
	require.ErrorContains(t, err, "docs for")
}

// A Gatherer's segments are the package Gather's, batch after batch, two
// in flight at once as a writer has them, with the memory given back
// reused (and long keys, kept apart, too).
func TestGathererReusesMemory(t *testing.T) {
	var gr Gatherer
	var inFlight *Gathered
	var inFlightSrcs []Source
	long := strings.Repeat("k", keyChunk/2)
	for batch := range 12 {
		srcs := randomSources(uint64(40+batch), 50+batch*20, 300, 4000)
		if batch%3 == 0 {
			srcs = append(srcs, Source{Doc: 1 << 20, Len: 2, Key: func(i int) []byte { return []byte(fmt.Sprintf("%s%d", long, i)) }})
		}
		gd := gr.Gather(srcs)
		if inFlight != nil { // the one before is sealed and given back only now
			got, err := inFlight.Seal(inFlightSrcs)
			require.NoError(t, err)
			prev, err := Gather(inFlightSrcs).Seal(inFlightSrcs)
			require.NoError(t, err)
			require.Equal(t, prev, got, "batch %d", batch-1)
			gr.Recycle(inFlight)
		}
		inFlight, inFlightSrcs = gd, srcs
	}
	got, err := inFlight.Seal(inFlightSrcs)
	require.NoError(t, err)
	want, err := Gather(inFlightSrcs).Seal(inFlightSrcs)
	require.NoError(t, err)
	require.Equal(t, want, got)
	gr.Recycle(inFlight)
	require.LessOrEqual(t, len(gr.spare), maxSpareGatherings)
	require.NotEmpty(t, gr.spare, "memory given back is kept")
}

// BenchmarkSealBatch: sealing a rebuild batch gathered ahead, its docs
// numbered one after another as a write numbers them.
func BenchmarkSealBatch(b *testing.B) {
	srcs := randomSources(9, 1024, 600, 20000)
	for i := range srcs {
		srcs[i].Doc = uint32(100 + i)
	}
	g := Gather(srcs)
	for b.Loop() {
		if _, err := g.Seal(srcs); err != nil {
			b.Fatal(err)
		}
	}
}
