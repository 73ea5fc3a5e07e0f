package analyzer

import (
	"strings"
	"testing"
)

// isASCII agrees with a byte-at-a-time check for a non-ASCII byte at every
// position of every length around its 32- and 8-byte blocks.
func TestIsASCII(t *testing.T) {
	for n := 0; n <= 100; n++ {
		s := strings.Repeat("a", n)
		if !isASCII(s) {
			t.Fatalf("len %d all ASCII: false", n)
		}
		for at := 0; at < n; at++ {
			for _, c := range []byte{0x80, 0xC3, 0xFF} {
				b := []byte(s)
				b[at] = c
				if isASCII(string(b)) {
					t.Fatalf("len %d, %#x at %d: true", n, c, at)
				}
			}
		}
	}
}
