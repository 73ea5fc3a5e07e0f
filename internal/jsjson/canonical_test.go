package jsjson

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// slowString is what the String case of the encoders wrote before the
// canonical-literal fast path: decode, then encode.
func slowString(v Value) string {
	s, _ := v.Str()
	return string(AppendString(nil, s))
}

// checkCanonical compares, for the literal body raw, the encoders' output
// with decode-then-encode, whole and under byte limits around the size.
func checkCanonical(t *testing.T, raw string) {
	t.Helper()
	v, err := Parse([]byte(`"` + raw + `"`))
	if err != nil {
		return
	}
	want := slowString(v)
	if got := string(AppendValue(nil, v)); got != want {
		t.Fatalf("literal %q: AppendValue %q, decode+encode %q", raw, got, want)
	}
	if n, ok := canonicalEscaped(v.text()); ok && v.k() == stringEscaped {
		if s, _ := v.Str(); n != len(s) {
			t.Fatalf("literal %q: decoded length %d, canonicalEscaped says %d", raw, len(s), n)
		}
	}
	for _, max := range []int{0, 1, 2, len(want) / 7, len(want) / 6, len(want) / 2, len(want) - 1, len(want), len(want) + 5} {
		if max < 0 {
			continue
		}
		got, gotCut := StringifyPrefix(v, max)
		w := limited{max: max}
		s, _ := v.Str()
		// The slow path of limited.value, as it was.
		if room := w.max - len(w.b); room < len(s)/6 {
			w.full = true
			w.b = AppendString(w.b, s[:(room+1)*6])
		} else {
			w.b = AppendString(w.b, s)
		}
		out, cut := w.b, w.full
		if len(out) > max {
			out, cut = out[:max], true
		}
		if cut {
			for len(out) > 0 && !validTail(out) {
				out = out[:len(out)-1]
			}
		}
		if got != string(out) || gotCut != cut {
			t.Fatalf("literal %q max %d: got %q %v, want %q %v", raw, max, got, gotCut, out, cut)
		}
	}
}

// validTail is StringifyPrefix's trim test: the last bytes of b are a
// whole character.
func validTail(b []byte) bool {
	r, size := utf8.DecodeLastRune(b)
	return !(r == utf8.RuneError && size <= 1)
}

var canonicalPieces = []string{
	"a", "hello world ", "0123456789abcdef", `\"`, `\\`, `\/`, `\b`, `\f`, `\n`, `\r`, `\t`,
	`\u0000`, `\u001f`, `\u001F`, `\u0008`, `\u000a`, `\u0020`, `\u0041`, `\u00e9`, `\u00E9`,
	`\ud83d\ude00`, `\ud83d`, `\udc00`, `\uD83D\uDE00`, `\u2028`, "é", "漢字", "😀", "\u2028",
	"\xff", "\xed\xa0\x80", "\xc3", "\uFFFD", "\x7f",
}

// The fast path writes exactly what decoding and encoding again writes.
func TestCanonicalEscaped(t *testing.T) {
	for _, p := range canonicalPieces {
		checkCanonical(t, p)
		checkCanonical(t, "x"+p+"y")
	}
	r := rand.New(rand.NewPCG(7, 8))
	for i := 0; i < 50_000; i++ {
		checkCanonical(t, joinRandom(r, canonicalPieces, 12))
	}
}

// joinRandom joins one to most random pieces.
func joinRandom(r *rand.Rand, pieces []string, most int) string {
	var b strings.Builder
	for n := r.IntN(most); n >= 0; n-- {
		b.WriteString(pieces[r.IntN(len(pieces))])
	}
	return b.String()
}

func FuzzCanonicalEscaped(f *testing.F) {
	for _, p := range canonicalPieces {
		f.Add(p + `\n` + p)
	}
	f.Fuzz(func(t *testing.T, raw string) { checkCanonical(t, raw) })
}
