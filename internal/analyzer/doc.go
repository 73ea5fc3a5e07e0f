// Package analyzer is memidx's one canonical tokenizer: literal queries,
// BM25 indexing, cold vocabularies and phrase matching all use it, so that a
// term means the same thing everywhere. It reproduces, exactly, the
// TypeScript reference (docs/REFERENCE.md):
//
//	tokenizeLexical(text) = for each maximal run of /[\p{L}\p{N}_]+/u
//	                        in text.normalize("NFKC"): run.toLowerCase()
//
// # Rules
//
//  1. The text is normalized to NFKC (Normalize). Compatibility characters
//     become their plain forms: "ﬁ" is "fi", "ＡＢＣ１２３" is "ABC123",
//     "①" is "1", "x²" is "x2", "e\u0301" is "é".
//  2. Tokens are the maximal runs of letters (\p{L}), numbers (\p{N}: Nd,
//     Nl and No) and the ASCII underscore. Combining marks (\p{M}) are not
//     token characters, so they split words ("नमस्ते" gives "नमस" and
//     "त"), as do other connector punctuation ('‿'), ZWJ, emoji, NUL and
//     everything else.
//  3. Each run is lowercased on its own as JavaScript's toLowerCase does
//     (Lower): full Unicode lowercase mapping with the unconditional
//     SpecialCasing entry (U+0130 'İ' becomes "i\u0307", so a token can hold
//     that one combining mark) and the Final_Sigma rule ('Σ' becomes 'ς'
//     when a cased letter precedes it and none follows, skipping
//     case-ignorable characters, within the run).
//
// Tokens keep their order and duplicates. NormalizePhrase is
// s.normalize("NFKC").toLowerCase() over a whole string (whitespace is kept
// as is), so its Final_Sigma context is the whole string: "ΑΣ'Β" gives the
// tokens "ας", "β" but the phrase "ασ'β". CompareUTF16 is JavaScript's
// string order (UTF-16 code units), which the reference uses to sort
// vocabularies; it differs from Go's byte order where a supplementary
// character meets U+E000..U+FFFF.
//
// Tokens(NormalizePhrase(s)) is Tokens(s) except in three cases, where the
// reference differs the same way: 'İ' (its U+0307 stays in a token but
// splits a phrase's word), 'Σ' (the Final_Sigma context differs), and
// lowercase that NFKC composes further ("J\u030c" gives the token "j", its
// phrase "j\u030c" the token "ǰ"). FuzzTokens checks all the rest.
//
// Invalid UTF-8, which JavaScript never sees, is handled safely: every
// invalid byte is treated as U+FFFD, which is not a letter, so it splits
// tokens. Normalize keeps invalid bytes as they are; Lower and
// NormalizePhrase output U+FFFD for each.
//
// # Why the JavaScript emulation
//
// Go's standard library does not lowercase like JavaScript:
// strings.ToLower maps 'İ' to 'i' (the simple mapping) and 'Σ' always to
// 'σ'. Lower implements the full mapping and Final_Sigma, with ICU's
// reading of the context (a character that is both cased and
// case-ignorable, like 'ʰ', is skipped). Case_Ignorable needs the
// Word_Break property, which package unicode lacks; the few code points
// concerned are listed in classify.go. Every other code point lowercases
// with unicode.ToLower, which matches JavaScript for all of Unicode 15.
//
// Normalization uses golang.org/x/text/unicode/norm, with two more
// corrections. x/text makes its output "stream-safe" by inserting U+034F
// COMBINING GRAPHEME JOINER after 30 combining marks in a row; JavaScript
// does not, and the inserted mark changes compositions (so tokens). And
// after an invalid byte that looks like the start of a truncated sequence
// ("\xf0ϵ"), x/text leaves the rest of the text unnormalized (found by
// FuzzTokens). Text where either happens is normalized by an exact
// implementation of the UAX #15 algorithm (slowNFKC) instead.
//
// # Unicode versions
//
// The reference runs on Node.js 20 whose ICU implements Unicode 17.0; Go
// 1.26's package unicode and x/text's tables (as built for Go before 1.27)
// are Unicode 15.0. Comparing every code point (testdata/unicode_props.js
// and TestUnicodeDelta) found the differences, all in characters added by
// Unicode 15.1, 16.0 and 17.0 plus two property changes (U+0295 is no
// longer cased, U+1171E is no longer case-ignorable):
//
//   - 9,661 new letters and numbers in 51 ranges (CJK extensions I and J,
//     Egyptian hieroglyphs, Garay, Kirat Rai, Tulu-Tigalari, ...);
//   - 55 new lowercase mappings (Latin U+A7CB..U+A7DC, Garay
//     U+10D50..U+10D65, U+16EA0..U+16EB8);
//   - 41 ranges whose role in the Final_Sigma context differs;
//   - 57 new decompositions (outlined Latin letters and digits
//     U+1CCD6..U+1CCF9 and U+A7F1 under NFKC; Tulu-Tigalari, Gurung Khema,
//     Kirat Rai and Todhri canonical composites), 46 new combining classes
//     and 20 new compositions.
//
// The decision: the analyzer matches JavaScript, not Go's tables. The
// differences are kept as override tables in unicode_delta.go, generated
// from node by `go generate` (TestUnicodeDelta with -update-delta, which
// also fails when the committed tables are stale). Classification and
// lowercasing consult them (a bitmap test per rune); normalization of a
// text that contains one of the affected code points goes through
// slowNFKC, which applies them. The committed table
// testdata/js_tokens.json, written by testdata/gen_js_table.js, is the
// authority: TestJSTable checks Tokens, NormalizePhrase and Lower against it
// (every code point of planes 0-3 and 14, the rules, thousands of random
// mixtures) and needs no node. When Go moves to a newer Unicode version,
// the tables only shrink: regenerate them with the node the reference
// runs on.
//
// # Performance
//
// Most input is ASCII. The text is scanned in chunks of about 4 KiB cut
// where no token and no composition can straddle: ASCII chunks skip
// normalization (NFKC of ASCII is ASCII) and are classified eight bytes at
// a time (SWAR bitmaps); in other chunks only the stretches around code
// points that NFKC may change are handed to the normalizer, the rest being
// "inert" by a precomputed table. Tokens that need no lowercasing share
// memory with the text, the others share 4 KiB buffers: AppendTokens with a
// reused slice allocates nothing for lowercase ASCII text. BenchmarkTokens
// measures this.
//
// # bleve
//
// The package registers, under the name Name ("memidx_canonical"), a bleve
// tokenizer (BleveTokenizer) and an analyzer that is that tokenizer alone.
// Token offsets are byte offsets in the NFKC-normalized text (the text
// itself when it is normalized already, as ASCII text is); positions are
// 1-based. The bleve code is in the subpackage bleveanalyzer, so that a
// program that does not use bleve does not link it.
//
// The package imports nothing from this module: it is a leaf (layer 0 of
// internal/deps).
package analyzer
