package hotbm25

import (
	"encoding/binary"
	"math/rand/v2"
	"slices"
	"testing"
)

// randomList encodes a posting list over max entries, then perhaps
// damages it: a flipped byte, a cut, a zero delta or frequency, a count
// beyond the list.
func randomList(rng *rand.Rand, max uint32) (b []byte, count uint64) {
	var pl []posting
	for e := uint32(0); e < max; e++ {
		if rng.IntN(3) == 0 {
			tf := uint32(1 + rng.IntN(4))
			if rng.IntN(20) == 0 {
				tf = uint32(rng.IntN(100000)) // multi-byte, or 0
			}
			pl = append(pl, posting{e, tf})
		}
	}
	// Long gaps make multi-byte deltas.
	if rng.IntN(4) == 0 && len(pl) > 0 {
		pl = pl[:1]
		pl[0].entry = max - 1
	}
	b = appendPostings(nil, pl)
	_, n := binary.Uvarint(b)
	b, count = b[n:], uint64(len(pl))
	switch rng.IntN(6) {
	case 0:
		if len(b) > 0 {
			b[rng.IntN(len(b))] = byte(rng.IntN(256))
		}
	case 1:
		b = b[:rng.IntN(len(b)+1)]
	case 2:
		count += uint64(rng.IntN(3))
	}
	return b, count
}

// TestFillReadsWhatNextReads checks that Fill, fast path included, reads
// exactly the postings, frequencies and damage Next reads, over valid and
// damaged lists, and collects the union of several lists.
func TestFillReadsWhatNextReads(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	for round := 0; round < 3000; round++ {
		max := uint32(1 + rng.IntN(300))
		tf := make([]uint32, max)
		seen := make([]bool, max)
		want := make([]uint32, max)
		var union, wantUnion []uint32
		for l := rng.IntN(3); l >= 0; l-- {
			b, count := randomList(rng, max)
			next := Postings{b: b, count: count, max: max}
			fill := next
			clear(tf)
			wantZero := false
			for {
				e, f, ok := next.Next()
				if !ok {
					break
				}
				want[e] = f
				wantZero = wantZero || f == 0
				if !slices.Contains(wantUnion, e) {
					wantUnion = append(wantUnion, e)
				}
			}
			var zero bool
			union, zero = fill.Fill(tf, seen, union)
			for e := range tf {
				if tf[e] != want[e] {
					t.Fatalf("round %d: entry %d has tf %d, want %d", round, e, tf[e], want[e])
				}
			}
			clear(want)
			if zero != wantZero || (fill.Err() == nil) != (next.Err() == nil) {
				t.Fatalf("round %d: zero %v err %v, want %v %v", round, zero, fill.Err(), wantZero, next.Err())
			}
		}
		if !slices.Equal(union, wantUnion) {
			t.Fatalf("round %d: union %v, want %v", round, union, wantUnion)
		}
	}
}
