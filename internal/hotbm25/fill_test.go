package hotbm25

import (
	"encoding/binary"
	"math/rand/v2"
	"slices"
	"testing"
)

// randomList encodes a posting list over max entries, dense or sparse
// (one- and two-byte deltas), with one-byte and longer frequencies, then
// perhaps damages it: a flipped byte, a cut, a count beyond the list, a
// zero delta or frequency, an entry beyond max.
func randomList(rng *rand.Rand, max uint32) (b []byte, count uint64) {
	var pl []posting
	gap := []int{1, 3, 150}[rng.IntN(3)]
	for e := uint32(0); e < max; e++ {
		if rng.IntN(gap) == 0 {
			tf := uint32(1 + rng.IntN(4))
			switch rng.IntN(20) {
			case 0:
				tf = uint32(rng.IntN(100000)) // multi-byte, or 0
			case 1:
				tf = uint32(120 + rng.IntN(20)) // around one byte's end
			}
			pl = append(pl, posting{e, tf})
		}
	}
	// Long gaps make multi-byte deltas.
	if rng.IntN(4) == 0 && len(pl) > 0 {
		pl = pl[:1]
		pl[0].entry = max - 1
	}
	if k := len(pl); k > 1 {
		switch rng.IntN(8) {
		case 0:
			pl[1+rng.IntN(k-1)].tf = 0
		case 1:
			i := 1 + rng.IntN(k-1)
			pl[i].entry = pl[i-1].entry // a zero delta
		case 2:
			pl[k-1].entry = max + uint32(rng.IntN(3))
		}
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
	for round := 0; round < 5000; round++ {
		max := uint32(1 + rng.IntN(400))
		tf := make([]uint32, max)
		seen := make([]bool, max)
		want := make([]uint32, max)
		var union, wantUnion []uint32
		for l := rng.IntN(3); l >= 0; l-- {
			b, count := randomList(rng, max)
			next := Postings{b: b, count: count, max: max}
			// Fill reads the rest of a list: perhaps after some Next.
			for k := rng.IntN(3); k > 0; k-- {
				next.Next()
			}
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

// TestFillAllocatesNothing checks that filling lists that together hold
// more postings than the shard has entries into a union with room for
// the entries does not grow it: the column scan fills shard after shard.
func TestFillAllocatesNothing(t *testing.T) {
	const n = 500
	var lists [][]byte
	for _, every := range []uint32{1, 2, 3} {
		var pl []posting
		for e := uint32(0); e < n; e += every {
			pl = append(pl, posting{e, 1 + e%3})
		}
		lists = append(lists, appendPostings(nil, pl))
	}
	tf, seen, room := make([]uint32, n), make([]bool, n), make([]uint32, n)
	var union []uint32
	allocs := testing.AllocsPerRun(10, func() {
		union = room[:0:n]
		clear(seen)
		for _, b := range lists {
			count, k := binary.Uvarint(b)
			union, _ = (&Postings{b: b[k:], count: count, max: n}).Fill(tf, seen, union)
		}
	})
	if allocs != 0 || len(union) != n {
		t.Fatalf("%v allocations, union of %d, want none and %d", allocs, len(union), n)
	}
}
