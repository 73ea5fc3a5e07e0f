package lexicon

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// BenchmarkBuildSorted: one write batch's segment, 64 sessions of 3,000
// words each drawn from a vocabulary of 50,000.
func BenchmarkBuildSorted(b *testing.B) {
	r := rand.New(rand.NewPCG(3, 4))
	var srcs []Source
	for s := range 64 {
		keys := make([]string, 0, 3000)
		for range 3000 {
			keys = append(keys, fmt.Sprintf("w%x", r.IntN(50000)))
		}
		slices.Sort(keys)
		keys = slices.Compact(keys)
		views := make([][]byte, len(keys))
		for i, k := range keys {
			views[i] = []byte(k)
		}
		srcs = append(srcs, Source{Doc: uint32(s + 1), Len: len(views), Key: func(i int) []byte { return views[i] }})
	}
	b.ResetTimer()
	for range b.N {
		if _, err := BuildSorted(srcs); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLookup: one key's docs from a segment of 64 sessions' 3,000
// words each, as packed tables store it and as termtab tables did.
func BenchmarkLookup(b *testing.B) {
	r := rand.New(rand.NewPCG(3, 4))
	sessions := map[uint32][]string{}
	for s := range 64 {
		var keys []string
		for range 3000 {
			keys = append(keys, fmt.Sprintf("w%x", r.IntN(50000)))
		}
		sessions[uint32(s+1)] = keys
	}
	nb := NewBuilder()
	for d, k := range sessions {
		nb.Add(d, k)
	}
	sealed, err := nb.Build()
	if err != nil {
		b.Fatal(err)
	}
	for _, layout := range []struct {
		name   string
		sealed []byte
	}{{"packed", sealed}, {"termtab", oldSealed(b, sessions)}} {
		s, err := Open(layout.sealed)
		if err != nil {
			b.Fatal(err)
		}
		queries := make([]string, 256)
		for i := range queries {
			queries[i] = fmt.Sprintf("w%x", r.IntN(60000))
		}
		b.Run(layout.name, func(b *testing.B) {
			b.ReportMetric(float64(len(layout.sealed)), "bytes")
			var dst []uint32
			for i := range b.N {
				dst, _ = s.AppendDocs(dst[:0], queries[i%len(queries)])
			}
		})
	}
}

// BenchmarkMergeBatches merges eight segments of 256 sessions each, as a
// rebuild's first merges do, every doc live: from a vocabulary of two
// million words, most keys are in one segment alone.
func BenchmarkMergeBatches(b *testing.B) {
	var segs []Segment
	for i := range 8 {
		srcs := randomSources(uint64(20+i), 256, 400, 2000000)
		for j := range srcs {
			srcs[j].Doc = uint32(i*1000 + j + 1)
		}
		sealed, err := BuildGathered(srcs)
		if err != nil {
			b.Fatal(err)
		}
		s, err := Open(sealed)
		if err != nil {
			b.Fatal(err)
		}
		segs = append(segs, s)
	}
	for b.Loop() {
		if _, err := Merge(segs, nil); err != nil {
			b.Fatal(err)
		}
	}
}
