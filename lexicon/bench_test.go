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
