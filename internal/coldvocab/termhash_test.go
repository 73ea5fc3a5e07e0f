package coldvocab

import (
	"fmt"
	"github.com/memidx/memidx/internal/coverage"
	"math/rand/v2"
	"testing"
)

// termHash depends on every byte of a term, at every length around its
// loads' widths, and on the seed; it spreads typical terms over a table's
// slots with no two of 200,000 alike.
func TestTermHash(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for n := 0; n <= 70; n++ {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte('a' + r.IntN(26))
		}
		h := termHash(string(b), 7)
		if termHash(string(b), 7) != h {
			t.Fatalf("length %d: not deterministic", n)
		}
		if n > 0 && termHash(string(b), 8) == h {
			t.Fatalf("length %d: the seed changes nothing", n)
		}
		for i := range b {
			c := b[i]
			b[i] ^= 0x20
			if termHash(string(b), 7) == h {
				t.Fatalf("length %d: byte %d changes nothing", n, i)
			}
			b[i] = c
		}
	}
	seen := map[uint64]string{}
	slots := map[uint64]int{}
	for i := range 200_000 {
		term := fmt.Sprintf("w%x", i)
		if i%3 == 0 {
			term = fmt.Sprintf("identifier_%d_suffix", i)
		}
		h := termHash(term, 42)
		if other, ok := seen[h]; ok {
			t.Fatalf("%q and %q hash alike", term, other)
		}
		seen[h] = term
		slots[h&(1<<16-1)]++
	}
	// 200,000 terms over 65,536 slots: about 3 a slot; a poor mix piles
	// them up.
	for s, n := range slots {
		if n > 20 {
			t.Fatalf("slot %d holds %d terms", s, n)
		}
	}
}

func BenchmarkTermHash(b *testing.B) {
	terms := []string{"the", "error", "function", "internal_server_error", "a", "configuration_management_database_x"}
	var h uint64
	for b.Loop() {
		for _, s := range terms {
			h += termHash(s, h)
		}
	}
}

// BenchmarkVocabulary: the vocabulary of a session of 40 entries of 300
// words each, drawn from 3,000 (most tokens are found, some new).
func BenchmarkVocabulary(b *testing.B) {
	r := rand.New(rand.NewPCG(3, 4))
	words := make([]string, 3000)
	for i := range words {
		words[i] = fmt.Sprintf("%s%d", []string{"err", "config", "handler", "x", "request_id", "TestCase"}[i%6], i)
	}
	ents := entriesN(40)
	for i := range ents {
		text := ""
		for range 300 {
			text += words[r.IntN(len(words))] + " "
		}
		ents[i].Text = text
	}
	for b.Loop() {
		bd := NewBuilder(Digest{}, roomy)
		for i := range ents {
			bd.Add(&ents[i])
		}
		if _, err := bd.Complete(coverage.Set{}); err != nil {
			b.Fatal(err)
		}
	}
}
