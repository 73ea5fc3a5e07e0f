package jsjson

import (
	"encoding/binary"
	"math/bits"
	"math/rand/v2"
	"strings"
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

// special8Mask's lowest set bit is exactly the first byte that is not
// plain, which skipPlain and skipPlainString jump to.
func TestSpecial8MaskLowest(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
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
		want := 8
		for j, c := range b {
			if !plain[c] {
				want = j
				break
			}
		}
		m := special8Mask(binary.LittleEndian.Uint64(b[:]))
		if got := bits.TrailingZeros64(m) >> 3; got != want {
			t.Fatalf("%q: first special byte %d, mask says %d", b, want, got)
		}
	}
}

// skipPlain and skipPlainString stop where the byte-at-a-time scans stop,
// at every offset and length.
func TestSkipPlain(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for i := 0; i < 200_000; i++ {
		n := r.IntN(40)
		b := make([]byte, n)
		for j := range b {
			switch r.IntN(16) {
			case 0:
				b[j] = byte(r.IntN(256))
			case 1:
				b[j] = '\\'
			default:
				b[j] = byte(0x20 + r.IntN(0x60))
			}
		}
		pos := 0
		if n > 0 {
			pos = r.IntN(n + 1)
		}
		want := pos
		for want < n && plain[b[want]] {
			want++
		}
		if got := skipPlain(b, pos); got != want {
			t.Fatalf("skipPlain(%q, %d) = %d, want %d", b, pos, got, want)
		}
		// A literal body holds no quote or control character.
		s := strings.Map(func(r rune) rune {
			if r == '"' || r < 0x20 {
				return 'x'
			}
			return r
		}, string(b))
		want = pos
		for want < len(s) && s[want] < 0x80 && s[want] != '\\' {
			want++
		}
		if pos <= len(s) {
			if got := skipPlainString(s, pos); got != want {
				t.Fatalf("skipPlainString(%q, %d) = %d, want %d", s, pos, got, want)
			}
		}
	}
}
