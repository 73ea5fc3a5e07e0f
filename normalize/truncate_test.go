package normalize

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// truncateRef is TruncateScalars without the ASCII fast path.
func truncateRef(s string, max int) (string, bool) {
	if len(s) <= max {
		return s, false
	}
	n := 0
	for i := range s {
		if n == max {
			return s[:i], true
		}
		n++
	}
	return s, false
}

// TruncateScalars cuts where counting scalar by scalar cuts, for ASCII,
// non-ASCII and invalid bytes at every position around the cut.
func TestTruncateScalarsFast(t *testing.T) {
	pieces := []string{"a", "abcdefgh", "é", "漢", "😀", "\xff", "\xe2\x82", "…"}
	r := rand.New(rand.NewPCG(11, 12))
	for i := 0; i < 100_000; i++ {
		var b strings.Builder
		for n := r.IntN(40); n >= 0; n-- {
			p := pieces[0]
			if r.IntN(4) == 0 {
				p = pieces[r.IntN(len(pieces))]
			} else if r.IntN(2) == 0 {
				p = pieces[1]
			}
			b.WriteString(p)
		}
		s := b.String()
		max := r.IntN(len(s) + 2)
		got, gotOK := TruncateScalars(s, max)
		want, wantOK := truncateRef(s, max)
		if got != want || gotOK != wantOK {
			t.Fatalf("TruncateScalars(%q, %d) = %q %v, want %q %v", s, max, got, gotOK, want, wantOK)
		}
	}
}
