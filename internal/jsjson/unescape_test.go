package jsjson

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// appendUnescapedRef is the byte-at-a-time decoder appendUnescaped
// replaced (it jumps over plain runs), which it is compared with.
func appendUnescapedRef(buf []byte, raw string) []byte {
	for i := 0; i < len(raw); {
		c := raw[i]
		switch {
		case c == '\\':
			// The escapes (and non-ASCII characters) are decoded as
			// appendUnescaped decodes them: what is compared is the
			// scanning around them.
			buf, i = appendEscape(buf, raw, i)
		case c < utf8.RuneSelf:
			buf = append(buf, c)
			i++
		default:
			buf, i = appendNonASCII(buf, raw, i)
		}
	}
	return buf
}

var unescapePieces = append([]string{
	"abcdefghijklmnop", "x", "  ", `\\\\`, "\xf0\x9f", "\xe2\x82", "\xf4\x90\x80\x80", "\xc0\xaf",
	`\ud800\udc00`, `\udbff\udfff`, `\ud800\u0041`, `\ud800\\`,
}, canonicalPieces...)

// checkUnescape decodes the literal body raw onto prefixes of several
// lengths and capacities (a tight capacity tests the word stores at the
// buffer's end) and compares with appendUnescapedRef.
func checkUnescape(t *testing.T, raw string) {
	t.Helper()
	if _, err := Parse([]byte(`"` + raw + `"`)); err != nil {
		return
	}
	for _, pre := range []int{0, 3, 17} {
		want := appendUnescapedRef([]byte(strings.Repeat("p", pre)), raw)
		for _, extra := range []int{0, 1, 8, 64} {
			buf := make([]byte, pre, pre+extra)
			copy(buf, strings.Repeat("p", pre))
			if got := appendUnescaped(buf, raw); string(got) != string(want) {
				t.Fatalf("literal %q prefix %d cap +%d: got %q, want %q", raw, pre, extra, got, want)
			}
		}
	}
}

func TestAppendUnescaped(t *testing.T) {
	for _, p := range unescapePieces {
		checkUnescape(t, p)
		checkUnescape(t, "0123456789"+p+"abcdefghijk"+p)
	}
	r := rand.New(rand.NewPCG(9, 10))
	for i := 0; i < 50_000; i++ {
		checkUnescape(t, joinRandom(r, unescapePieces, 16))
	}
}

func FuzzAppendUnescaped(f *testing.F) {
	for _, p := range unescapePieces {
		f.Add(p + `\t` + p + "........")
	}
	f.Fuzz(func(t *testing.T, raw string) { checkUnescape(t, raw) })
}
