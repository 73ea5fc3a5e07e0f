package regexiso_test

import (
	"context"
	"regexp"
	"testing"
	"unicode/utf8"

	"github.com/memidx/memidx/internal/regexiso"
)

func addCut(t *testing.T, re *regexiso.Regexp, item string) bool {
	t.Helper()
	run := re.NewRun(context.Background())
	m, ok := run.AddCut(item)
	if !ok {
		t.Fatalf("%s over %q: run stopped: %+v", re, item, run.Result())
	}
	return m
}

// A pattern anchored at the end never matches at the truncation cut of an
// entry whose whole text does not match: the cut is not the text's end.
func TestAddCutAnchorsNeverMatchAtTheCut(t *testing.T) {
	for _, c := range []struct {
		pattern, head string
		want          bool
	}{
		{`(a+)+$`, "xaaaa", false},
		{`a\z`, "xa", false},
		{`$`, "abc", false},   // a match at the real end is beyond the head
		{`abc`, "xabc", true}, // a match that ends at the cut is still one
		{`b$|a`, "ab", true},
		{`(?m)a$`, "a\nxa", true}, // before a newline inside the head
		{`(?m)a$`, "xa", false},
		{`foo\b`, "a foo", false}, // "foo" may go on as "foobar"
		{`foo\b`, "foo bar", true},
		{`foo\B`, "a foo", false},
		{`\bbar`, "foo bar", false}, // a miss, not a false match: "bar" may go on
		{`a.`, "a", false},          // . must not take what follows the cut
		{`(?s)a.`, "xa", false},     // nor (?s).
		{`a[^x]`, "a", false},
		{`a\W*$`, "a ", false},
		{`ab`, "ab", true},
	} {
		re := regexiso.MustCompile(c.pattern, regexiso.Limits{})
		if got := addCut(t, re, c.head); got != c.want {
			t.Errorf("AddCut(%q) over head %q = %v, want %v", c.pattern, c.head, got, c.want)
		}
	}
}

// AddCut is sound: when a head matches, every text it is the head of
// matches, for every cut k and several continuations.
func TestAddCutIsSound(t *testing.T) {
	patterns := []string{`a$`, `a+\z`, `(?m)a$`, `a\b`, `a\B`, `\ba`, `a.`, `(?s)a.$`, `[^b]$`, `é$`, `^a`, `(?m)^b`, `a|b$`, `x*`, `\B`, `\b`, `a\W`, `.\z`}
	texts := []string{"a", "ab", "ba", "a\nb", "aa aa", "éa", "a é", "b a_", "a\n", "xyz"}
	for _, p := range patterns {
		re := regexiso.MustCompile(p, regexiso.Limits{})
		full := regexp.MustCompile("(?i)" + p)
		for _, text := range texts {
			for k := 0; k < len(text); k++ {
				if !utf8.RuneStart(text[k]) {
					continue
				}
				if addCut(t, re, text[:k]) && !full.MatchString(text) {
					t.Errorf("%q: head %q of %q matches, the text does not", p, text[:k], text)
				}
				// Every continuation: with the head fixed, the answer must
				// hold whatever follows.
				for _, tail := range []string{"", "a", "b", " ", "\n", "é", "_"} {
					whole := text[:k] + tail
					if k == len(whole) {
						continue
					}
					if addCut(t, re, text[:k]) && !full.MatchString(whole) {
						t.Errorf("%q: head %q matches, %q does not", p, text[:k], whole)
					}
				}
			}
		}
	}
}
