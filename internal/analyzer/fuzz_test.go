package analyzer

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"
)

// sanitize replaces every invalid UTF-8 byte of s with U+FFFD, as the
// package documents that it treats them.
func sanitize(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for _, r := range s { // yields U+FFFD once per invalid byte
		b.WriteRune(r)
	}
	return b.String()
}

// FuzzTokens checks the invariants of the tokenizer. Seeds are in
// testdata/fuzz/FuzzTokens.
//
// Tokens(NormalizePhrase(s)) == Tokens(s) holds exactly only when none of
// three things happens, each of which makes the JavaScript reference differ
// the same way (so they are behaviour to keep, not bugs):
//   - U+0130 'İ' lowercases to "i\u0307", and U+0307 is a mark: in a token
//     it stays (lowercasing happens after splitting), in a phrase it then
//     splits the word;
//   - 'Σ' lowercases to 'ς' or 'σ' by the context: the token alone for
//     Tokens, the whole phrase for NormalizePhrase ("ΑΣ'Β": token "ας",
//     phrase "ασ'β");
//   - lowercasing can make text that NFKC composes further: "J\u030c" is
//     NFKC, its lowercase "j\u030c" is not (NFKC makes it "ǰ"), so the
//     phrase yields the token "ǰ" where the text yields "j".
//
// The fuzz test checks the exact equality when none of them applies and a
// folded one (ς = σ) when only the sigma rule does.
func FuzzTokens(f *testing.F) {
	for _, c := range ruleCases {
		f.Add(c.in)
	}
	f.Fuzz(func(t *testing.T, s string) {
		toks := Tokens(s)
		norm := Normalize(s)
		phrase := NormalizePhrase(s)
		dotted := false
		for i, tok := range toks {
			if tok == "" || !utf8.ValidString(tok) {
				t.Fatalf("token %d of %q is empty or invalid: %q", i, s, tok)
			}
			for _, r := range tok {
				if r == 0x307 {
					dotted = true
					continue
				}
				if !isWordSlow(r) {
					t.Fatalf("token %q of %q holds U+%04X, not a letter, number or '_'", tok, s, r)
				}
			}
		}
		if !utf8.ValidString(phrase) {
			t.Fatalf("NormalizePhrase(%q) = %q is not valid UTF-8", s, phrase)
		}

		// The normalizers agree: x/text with corrections and the exact one.
		if slow := slowNFKC(s); slow != norm {
			t.Fatalf("Normalize(%q) = %q, slowNFKC = %q", s, norm, slow)
		}
		if again := Normalize(norm); again != norm {
			t.Fatalf("Normalize is not idempotent on %q: %q then %q", s, norm, again)
		}
		if got := Tokens(norm); !slices.Equal(got, toks) {
			t.Fatalf("Tokens(Normalize(%q)) = %q, Tokens = %q", s, got, toks)
		}

		// Invalid bytes behave as U+FFFD.
		if clean := sanitize(s); clean != s {
			if got := Tokens(clean); !slices.Equal(got, toks) {
				t.Fatalf("Tokens(%q) = %q but with U+FFFD for invalid bytes %q", s, toks, got)
			}
			if got := NormalizePhrase(clean); got != phrase {
				t.Fatalf("NormalizePhrase(%q) = %q but with U+FFFD for invalid bytes %q", s, phrase, got)
			}
		}

		// The scanner (chunks, bitmaps, fast paths) agrees with the plain
		// reference, also with tiny chunks.
		if want := referenceTokens(s); !slices.Equal(toks, want) {
			t.Fatalf("Tokens(%q) = %q, reference %q", s, toks, want)
		}
		withChunkSize(3, func() {
			if got := Tokens(s); !slices.Equal(got, toks) {
				t.Fatalf("Tokens(%q) with 3-byte chunks = %q, want %q", s, got, toks)
			}
			checkSpans(t, s, toks)
		})

		// The other entry points see the same tokens.
		checkSpans(t, s, toks)
		if got := AppendTokens([]string{"x"}, s); !slices.Equal(got[1:], toks) || got[0] != "x" {
			t.Fatalf("AppendTokens(%q) = %q", s, got)
		}
		// A Tokenizer, fresh or reusing the memory of s and of other text.
		var tk Tokenizer
		for _, text := range []string{s, "Other TEXT ＦＵＬＬ Größe", s, s + " " + s, s} {
			got := tk.AppendTokens(nil, text)
			want := Tokens(text)
			if !slices.Equal(got, want) {
				t.Fatalf("Tokenizer.AppendTokens(%q) = %q, Tokens = %q", text, got, want)
			}
			checkTokenizerSpans(t, &tk, text, want)
		}
		withChunkSize(3, func() {
			if got := tk.AppendTokens(nil, s); !slices.Equal(got, toks) {
				t.Fatalf("Tokenizer.AppendTokens(%q) with 3-byte chunks = %q, want %q", s, got, toks)
			}
			checkTokenizerSpans(t, &tk, s, toks)
		})

		// Tokenizing the tokens again changes nothing (but U+0307 splits).
		if !dotted {
			if again := Tokens(strings.Join(toks, " ")); !slices.Equal(again, toks) {
				t.Fatalf("Tokens(%q) = %q, but tokenizing them again gives %q", s, toks, again)
			}
		}

		// Tokens(NormalizePhrase(s)) == Tokens(s), with the exceptions above.
		if strings.ContainsRune(norm, 0x130) || Normalize(phrase) != phrase {
			return
		}
		fromPhrase := Tokens(phrase)
		if strings.ContainsRune(norm, 0x3a3) {
			fold := func(ts []string) []string {
				out := make([]string, len(ts))
				for i, t := range ts {
					out[i] = strings.ReplaceAll(t, "ς", "σ")
				}
				return out
			}
			if !slices.Equal(fold(fromPhrase), fold(toks)) {
				t.Fatalf("Tokens(NormalizePhrase(%q)) = %q, Tokens = %q (σ/ς folded)", s, fromPhrase, toks)
			}
			return
		}
		if !slices.Equal(fromPhrase, toks) {
			t.Fatalf("Tokens(NormalizePhrase(%q)) = %q, Tokens = %q", s, fromPhrase, toks)
		}
	})
}

// checkTokenizerSpans checks that tk.AppendSpans(text) yields the spans of
// toks.
func checkTokenizerSpans(t *testing.T, tk *Tokenizer, text string, toks []string) {
	t.Helper()
	spans := tk.AppendSpans([]Span{{}}, text)
	if len(spans) != len(toks)+1 {
		t.Fatalf("Tokenizer.AppendSpans(%q): %d spans, want %d", text, len(spans)-1, len(toks))
	}
	for i, sp := range spans[1:] {
		if got := tk.Token(text, sp); got != toks[i] || sp.Len() != len(toks[i]) {
			t.Fatalf("Tokenizer.AppendSpans(%q): token %d is %q (length %d), want %q", text, i, got, sp.Len(), toks[i])
		}
	}
}

// checkSpans checks that EachSpan yields toks, at offsets in Normalize(s)
// that are increasing and lowercase to the tokens.
func checkSpans(t *testing.T, s string, toks []string) {
	t.Helper()
	norm := Normalize(s)
	var each []string
	last := 0
	EachSpan(s, func(tok string, start, end int) {
		if start < last || end <= start || end > len(norm) {
			t.Fatalf("EachSpan(%q): token %q at [%d:%d] after %d, normalized length %d", s, tok, start, end, last, len(norm))
		}
		if want := Lower(norm[start:end]); want != tok {
			t.Fatalf("EachSpan(%q): token %q at [%d:%d] of the normalized text, which lowercases to %q", s, tok, start, end, want)
		}
		last = end
		each = append(each, tok)
	})
	if !slices.Equal(each, toks) {
		t.Fatalf("EachSpan(%q) = %q, Tokens = %q", s, each, toks)
	}
}

// FuzzCompareUTF16 checks CompareUTF16 against the UTF-16 definition on
// valid strings and for antisymmetry on all.
func FuzzCompareUTF16(f *testing.F) {
	f.Add("a", "b")
	f.Add("\U00010000", "\uffff")
	f.Add("é", "\xc3")
	f.Add("x\U0001F600", "x\ue000")
	f.Fuzz(func(t *testing.T, a, b string) {
		got := CompareUTF16(a, b)
		if back := CompareUTF16(b, a); back != -got {
			t.Fatalf("CompareUTF16(%q, %q) = %d but reversed %d", a, b, got, back)
		}
		if (got == 0) != (a == b) {
			t.Fatalf("CompareUTF16(%q, %q) = %d", a, b, got)
		}
		if utf8.ValidString(a) && utf8.ValidString(b) {
			if want := slices.Compare(utf16.Encode([]rune(a)), utf16.Encode([]rune(b))); got != want {
				t.Fatalf("CompareUTF16(%q, %q) = %d, UTF-16 order %d", a, b, got, want)
			}
		}
	})
}
