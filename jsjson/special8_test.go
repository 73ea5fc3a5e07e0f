package jsjson

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"
)

// special8 never misses a byte that the byte-at-a-time scan stops at.
func TestSpecial8(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var b [8]byte
	for i := 0; i < 2_000_000; i++ {
		for j := range b {
			switch r.IntN(4) {
			case 0:
				b[j] = byte(r.IntN(256))
			default:
				b[j] = byte(0x20 + r.IntN(0x60))
			}
		}
		want := false
		for _, c := range b {
			if !plain[c] {
				want = true
			}
		}
		if got := special8(binary.LittleEndian.Uint64(b[:])); want && !got {
			t.Fatalf("%q: missed", b)
		}
	}
	for c := 0; c < 256; c++ {
		for at := 0; at < 8; at++ {
			b = [8]byte{'a', 'a', 'a', 'a', 'a', 'a', 'a', 'a'}
			b[at] = byte(c)
			if got := special8(binary.LittleEndian.Uint64(b[:])); got != !plain[c] {
				t.Fatalf("byte %#x at %d: %v", c, at, got)
			}
		}
	}
}
