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

// isPathKeyRef is isPathKey without the ASCII fast path.
func isPathKeyRef(k string) bool {
	k = strings.ToLower(k)
	k = strings.TrimSuffix(k, "s")
	return strings.HasSuffix(k, "file") || strings.HasSuffix(k, "path")
}

// isPathKey's ASCII path decides as ToLower does.
func TestIsPathKeyFast(t *testing.T) {
	keys := []string{"", "s", "path", "Path", "PATHS", "filePath", "file_paths", "files", "FILE", "profile",
		"xpaths", "pathss", "fil", "ile", "sfile", "pathS", "fileS", "K", "paTh", "fİle", "pathſ", "filK"}
	for _, k := range keys {
		if got, want := isPathKey(k), isPathKeyRef(k); got != want {
			t.Errorf("isPathKey(%q) = %v, want %v", k, got, want)
		}
	}
	r := rand.New(rand.NewPCG(13, 14))
	const alpha = "fFiIlLeEpPaAtThHsSx_"
	for i := 0; i < 200_000; i++ {
		b := make([]byte, r.IntN(9))
		for j := range b {
			b[j] = alpha[r.IntN(len(alpha))]
		}
		if k := string(b); isPathKey(k) != isPathKeyRef(k) {
			t.Fatalf("isPathKey(%q) = %v", k, isPathKey(k))
		}
	}
	if n := testing.AllocsPerRun(100, func() { isPathKey("filePath") }); n != 0 {
		t.Errorf("isPathKey allocates %v times", n)
	}
}
