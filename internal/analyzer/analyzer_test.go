package analyzer

import (
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/text/unicode/norm"
)

// The expected values below were computed with the reference functions in
// node (see testdata/gen_js_table.js).
var ruleCases = []struct {
	name   string
	in     string
	tokens []string
	phrase string
}{
	{"reference example", "CAFÉ café Ωmega雪 snake_case 42", []string{"café", "café", "ωmega雪", "snake_case", "42"}, "café café ωmega雪 snake_case 42"},
	{"empty", "", nil, ""},
	{"separators only", " \t\n.,;-", nil, " \t\n.,;-"},
	{"ascii", "Hello, World! THIS is_A test42", []string{"hello", "world", "this", "is_a", "test42"}, "hello, world! this is_a test42"},
	{"final sigma", "ΟΔΟΣ ΣΑΣ", []string{"οδος", "σας"}, "οδος σας"},
	{"final sigma in the word only", "ΜΆΙΟΣ", []string{"μάιος"}, "μάιος"},
	{"sigma alone is not final", "Σ", []string{"σ"}, "σ"},
	// The apostrophe is case-ignorable: for the whole phrase the Β after it
	// keeps the Σ medial, but each token is lowercased on its own.
	{"sigma before apostrophe", "ΑΣ'Β", []string{"ας", "β"}, "ασ'β"},
	{"sigma before soft hyphen", "ΑΣ\u00adΒ", []string{"ας", "β"}, "ασ\u00adβ"},
	{"sigma digits underscore", "ΑΣ1 Α1Σ ΑΣ_ ΣΑ", []string{"ας1", "α1σ", "ας_", "σα"}, "ας1 α1σ ας_ σα"},
	{"dotted capital I", "İstanbul", []string{"i\u0307stanbul"}, "i\u0307stanbul"},
	{"NFKC ligature fullwidth circled superscript", "ﬁnal ＡＢＣ１２３ ① x²", []string{"final", "abc123", "1", "x2"}, "final abc123 1 x2"},
	{"NFKC composes marks", "e\u0301", []string{"é"}, "é"},
	{"marks are not token characters", "x\u0301y", []string{"x", "y"}, "x\u0301y"},
	{"devanagari signs split", "नमस्ते", []string{"नमस", "त"}, "नमस्ते"},
	{"underscore only ASCII", "snake_case a‿b a＿b __x__", []string{"snake_case", "a", "b", "a_b", "__x__"}, "snake_case a‿b a_b __x__"},
	{"numbers Nd Nl No", "½ Ⅻ ↁ 〇 𐄇 ٤٢", []string{"1", "2", "xii", "ↁ", "〇", "𐄇", "٤٢"}, "1⁄2 xii ↁ 〇 𐄇 ٤٢"},
	{"title case digraph", "ǅungla", []string{"džungla"}, "džungla"},
	{"kelvin ohm", "K Ω", []string{"k", "ω"}, "k ω"},
	{"hangul compatibility jamo compose", "한국어 가 ㄱㅏ", []string{"한국어", "가", "가"}, "한국어 가 가"},
	{"emoji and ZWJ split", "👨‍👩‍👧 a\u200db", []string{"a", "b"}, "👨‍👩‍👧 a\u200db"},
	{"NUL splits", "a\x00b", []string{"a", "b"}, "a\x00b"},
	{"Unicode 16 Kirat Rai composition", "\U00016D63\U00016D67\U00016D67", []string{"\U00016D6A"}, "\U00016D6A"},
	{"Unicode 16 outlined digit", "\U0001CCF4\U0001CCF2", []string{"42"}, "42"},
	{"Unicode 16 Garay case", "\U00010D50", []string{"\U00010D70"}, "\U00010D70"},
	// Invalid UTF-8 (which JavaScript never sees) behaves like U+FFFD, which
	// is not a letter: it splits tokens.
	{"invalid byte splits", "ab\xffcd", []string{"ab", "cd"}, "ab\ufffdcd"},
	{"truncated sequence", "Caf\xc3", []string{"caf"}, "caf\ufffd"},
	{"encoded surrogate", "x\xed\xa0\x80y", []string{"x", "y"}, "x\ufffd\ufffd\ufffdy"},
	{"invalid byte before a mark", "e\xff\u0301", []string{"e"}, "e\ufffd\u0301"},
}

func TestRules(t *testing.T) {
	for _, c := range ruleCases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.tokens, Tokens(c.in), "Tokens")
			assert.Equal(t, c.phrase, NormalizePhrase(c.in), "NormalizePhrase")
			var each []string
			Each(c.in, func(tok string) { each = append(each, tok) })
			assert.Equal(t, c.tokens, each, "Each")
			assert.Equal(t, c.tokens, AppendTokens(nil, c.in), "AppendTokens")
		})
	}
}

func TestLower(t *testing.T) {
	for in, want := range map[string]string{
		"":                "",
		"abc":             "abc",
		"ABC def":         "abc def",
		"İ":               "i\u0307",
		"ΣΑΣ":             "σας",
		"Σ Σ":             "σ σ",
		"ΑΣ ΑΣΑ":          "ας ασα",
		"AΣ":              "aς", // any cased letter counts, not only Greek
		"ΑΣ\u0301":        "ας\u0301",
		"ǅ":               "ǆ",
		"ẞ":               "ß",
		"\U00010400":      "\U00010428",
		"\uA7DC":          "\u019B", // Unicode 16
		"ok\xff":          "ok\ufffd",
		"Ⅻ":               "ⅻ",
		"Ⓐ":               "ⓐ",
		"ﬁ":               "ﬁ", // Lower does not normalize
		"ÀÉÎÕÜ":           "àéîõü",
		"ПРИВЕТ":          "привет",
		"\u1C90\u1C91":    "\u10D0\u10D1",
		"ᏣᎳᎩ":             "ꮳꮃꭹ",
		"plain lowercase": "plain lowercase",
	} {
		assert.Equal(t, want, Lower(in), "Lower(%q)", in)
	}
	s := "already lower"
	assert.Equal(t, unsafeData(s), unsafeData(Lower(s)), "Lower returns its argument when nothing changes")
}

func unsafeData(s string) *byte {
	if s == "" {
		return nil
	}
	return unsafeStringData(s)
}

func TestNormalize(t *testing.T) {
	assert.Equal(t, "fi", Normalize("ﬁ"))
	assert.Equal(t, "é", Normalize("e\u0301"))
	s := "déjà vu — “quoted” text"
	assert.Equal(t, unsafeData(s), unsafeData(Normalize(s)), "already-normalized text is returned as is")
	// x/text would insert U+034F after 30 non-starters; JavaScript does not.
	long := "e" + strings.Repeat("\u0316", 31) + "\u0301"
	assert.Equal(t, "é"+strings.Repeat("\u0316", 31), Normalize(long))
	assert.NotContains(t, Normalize("a"+strings.Repeat("\u0301", 100)), "\u034f")
	assert.Equal(t, "a\xffb", Normalize("a\xffb"), "invalid bytes are kept")
}

func TestEachSpan(t *testing.T) {
	type span struct {
		tok        string
		start, end int
	}
	collect := func(text string) (spans []span) {
		EachSpan(text, func(tok string, start, end int) { spans = append(spans, span{tok, start, end}) })
		return spans
	}
	assert.Equal(t, []span{{"hello", 0, 5}, {"world", 7, 12}}, collect("Hello, World"))
	assert.Equal(t, []span{{"naïve", 3, 9}, {"café", 10, 15}}, collect("« naïve café »"))
	// Offsets refer to the normalized text: "ﬁ" (3 bytes) is "fi" (2).
	text := "ﬁx ＡＢ"
	norm := Normalize(text)
	require.Equal(t, "fix AB", norm)
	spans := collect(text)
	assert.Equal(t, []span{{"fix", 0, 3}, {"ab", 4, 6}}, spans)
	for _, sp := range spans {
		assert.Equal(t, sp.tok, Lower(norm[sp.start:sp.end]))
	}
}

func TestAppendTokensReuse(t *testing.T) {
	buf := make([]string, 0, 16)
	buf = AppendTokens(buf, "one Two")
	buf = AppendTokens(buf, "THREE")
	assert.Equal(t, []string{"one", "two", "three"}, buf)
	// Lowercased tokens from one call do not overwrite each other.
	toks := Tokens(strings.Repeat("ABC DEF ", 1000) + "ΣΑΣ İ")
	for i := 0; i < 2000; i += 2 {
		require.Equal(t, "abc", toks[i])
		require.Equal(t, "def", toks[i+1])
	}
	assert.Equal(t, []string{"σας", "i\u0307"}, toks[2000:])
}

// TestTokenizer checks that a Tokenizer, which reuses its memory from one
// text to the next, yields each text's Tokens, whatever came before: short
// and long texts, lowercased, unnormalized and non-ASCII ones, in whole and
// in tiny chunks.
func TestTokenizer(t *testing.T) {
	texts := []string{
		"",
		"one Two THREE",
		strings.Repeat("ABC DEF ", 1000) + "ΣΑΣ İ",
		"ﬁle ＦＵＬＬ１２３ ① x² ｶﾞ cafe\u0301 Ⅻ ǅ ½",
		"already lower case",
		strings.Repeat("Größe naïve ＦＵＬＬ Straße ", 500),
		"MixedCase HTTPServer userID",
		strings.Repeat("x", 10000) + " " + strings.ToUpper(strings.Repeat("y", 10000)),
		"ΌΣΟΣ Привет 日本語",
	}
	for _, size := range []int{chunkSize, 3, 64} {
		withChunkSize(size, func() {
			var tk Tokenizer
			var dst []string
			var spans []Span
			for round := 0; round < 3; round++ {
				for i, text := range texts {
					want := Tokens(text)
					dst = tk.AppendTokens(dst[:0], text)
					require.Equal(t, len(want), len(dst), "chunk %d, text %d", size, i)
					if len(want) > 0 {
						require.Equal(t, want, dst, "chunk %d, text %d", size, i)
					}
					k := 0
					tk.Each(text, func(tok string) {
						require.Less(t, k, len(want), "each: chunk %d, text %d", size, i)
						require.Equal(t, want[k], tok, "each: chunk %d, text %d, token %d", size, i, k)
						k++
					})
					require.Equal(t, len(want), k, "each: chunk %d, text %d", size, i)
					spans = tk.AppendSpans(spans[:0], text)
					require.Equal(t, len(want), len(spans), "spans: chunk %d, text %d", size, i)
					for k, sp := range spans {
						require.Equal(t, want[k], tk.Token(text, sp), "spans: chunk %d, text %d, token %d", size, i, k)
						require.Equal(t, len(want[k]), sp.Len())
					}
				}
			}
		})
	}
	var tk Tokenizer
	got := tk.AppendTokens([]string{"x"}, "A b")
	assert.Equal(t, []string{"x", "a", "b"}, got)
}

func TestAllocations(t *testing.T) {
	if testing.CoverMode() != "" || raceEnabled {
		t.Skip("allocation counts differ under -cover and -race")
	}
	dst := make([]string, 0, 64)
	lowerASCII := "the quick brown fox jumps over the lazy dog 42 times"
	assert.Zero(t, testing.AllocsPerRun(100, func() { dst = AppendTokens(dst[:0], lowerASCII) }))
	mixedASCII := "The Quick Brown Fox jumps over THE lazy dog"
	assert.LessOrEqual(t, testing.AllocsPerRun(100, func() { dst = AppendTokens(dst[:0], mixedASCII) }), 1.0)
	normalized := "naïve café – “quoted” 雪"
	assert.Zero(t, testing.AllocsPerRun(100, func() { dst = AppendTokens(dst[:0], normalized) }))
	assert.Zero(t, testing.AllocsPerRun(100, func() { Each(lowerASCII, func(string) {}) }))
	// A Tokenizer, once warm, allocates nothing for lowercased tokens, and
	// for normalized ones only what x/text's normalizer does.
	var tk Tokenizer
	for _, text := range []string{mixedASCII, strings.ToUpper(lowerASCII), strings.Repeat("Größe İstanbul ", 300)} {
		dst = tk.AppendTokens(dst[:0], text)
		assert.Zero(t, testing.AllocsPerRun(100, func() { dst = tk.AppendTokens(dst[:0], text) }), text[:10])
	}
	for _, text := range []string{mixedASCII, strings.ToUpper(lowerASCII), strings.Repeat("Größe İstanbul ", 300)} {
		tk.Each(text, func(string) {})
		assert.Zero(t, testing.AllocsPerRun(100, func() { tk.Each(text, func(string) {}) }), "Each: "+text[:10])
	}
	spans := make([]Span, 0, 64)
	for _, text := range []string{mixedASCII, strings.ToUpper(lowerASCII), strings.Repeat("Größe İstanbul ", 300)} {
		spans = tk.AppendSpans(spans[:0], text)
		assert.Zero(t, testing.AllocsPerRun(100, func() { spans = tk.AppendSpans(spans[:0], text) }), text[:10])
	}
	unnormalized := strings.Repeat("ﬁle ＦＵＬＬ１２３ Größe ", 300)
	dst = tk.AppendTokens(dst[:0], unnormalized)
	reused := testing.AllocsPerRun(100, func() { dst = tk.AppendTokens(dst[:0], unnormalized) })
	once := testing.AllocsPerRun(100, func() { dst = AppendTokens(dst[:0], unnormalized) })
	t.Logf("unnormalized text: %v allocations with a Tokenizer, %v without", reused, once)
	assert.Less(t, reused, once)
}

// utf16Compare is the definition of JavaScript's string order.
func utf16Compare(a, b string) int {
	return slices.Compare(utf16.Encode([]rune(a)), utf16.Encode([]rune(b)))
}

func TestCompareUTF16(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"", "a", -1},
		{"a", "", 1},
		{"abc", "abd", -1},
		{"abc", "ab", 1},
		{"\U00010000", "\uffff", -1}, // Go's byte order says +1
		{"\U0001F600", "\ue000", -1},
		{"\U0001F600", "\ud7ff", 1},
		{"\U0001F600", "\U0001F601", -1},
		{"x\U0001F600", "x\ufb01", -1},
		{"é", "e", 1},
		{"a\xff", "a\U0010FFFF", 1}, // invalid bytes sort last
		{"a\xff", "a\xfe", 1},
	} {
		assert.Equal(t, c.want, CompareUTF16(c.a, c.b), "CompareUTF16(%q, %q)", c.a, c.b)
		assert.Equal(t, -c.want, CompareUTF16(c.b, c.a), "CompareUTF16(%q, %q)", c.b, c.a)
	}

	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"a", "b", "é", "\ud7ff", "\ue000", "\uffff", "\U00010000", "\U0001F600", "\U0010FFFF", "\xff", "\xc3", "\x80", "\xe2\x82"}
	randomString := func() string {
		var b strings.Builder
		for range rng.IntN(5) {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		return b.String()
	}
	var all []string
	for range 3000 {
		a, b := randomString(), randomString()
		all = append(all, a, b)
		got := CompareUTF16(a, b)
		require.Equal(t, -got, CompareUTF16(b, a), "antisymmetry %q %q", a, b)
		require.Equal(t, got == 0, a == b, "zero only for equal strings: %q %q", a, b)
		if utf8.ValidString(a) && utf8.ValidString(b) {
			require.Equal(t, utf16Compare(a, b), got, "UTF-16 order of %q %q", a, b)
		}
	}
	// A total order: sorting and then checking every pair is consistent.
	sort.Slice(all, func(i, j int) bool { return CompareUTF16(all[i], all[j]) < 0 })
	for i := 0; i+1 < len(all); i++ {
		require.LessOrEqual(t, CompareUTF16(all[i], all[i+1]), 0)
	}
	for i := 0; i < len(all); i += 97 {
		for j := i; j < len(all); j += 89 {
			require.LessOrEqual(t, CompareUTF16(all[i], all[j]), 0, "%q %q", all[i], all[j])
		}
	}
}

// TestDeltaTablesSorted guards the binary searches over the generated tables.
func TestDeltaTablesSorted(t *testing.T) {
	assert.True(t, slices.IsSortedFunc(deltaWord, func(a, b wordRange) int { return int(a.lo - b.lo) }))
	assert.True(t, slices.IsSortedFunc(deltaLower, func(a, b lowerEntry) int { return int(a.r - b.r) }))
	assert.True(t, slices.IsSortedFunc(deltaCaseType, func(a, b caseTypeRange) int { return int(a.lo - b.lo) }))
	assert.True(t, slices.IsSortedFunc(deltaDecomp, func(a, b decompEntry) int { return int(a.r - b.r) }))
	assert.True(t, slices.IsSortedFunc(deltaCCC, func(a, b cccEntry) int { return int(a.r - b.r) }))
	assert.True(t, slices.IsSortedFunc(deltaCompose, func(a, b composeEntry) int {
		if a.a != b.a {
			return int(a.a - b.a)
		}
		return int(a.b - b.b)
	}))
	assert.True(t, slices.IsSortedFunc(deltaNormTrigger, func(a, b runeRange) int { return int(a.lo - b.lo) }))
	for _, tr := range deltaNormTrigger {
		assert.GreaterOrEqual(t, tr.lo, rune(0x800), "hasNormDelta skips 1- and 2-byte sequences")
	}
}

// TestClassTable checks the cached classes of planes 0 and 1 against the
// slow lookups, and the inert bit against x/text's full normalization check.
func TestClassTable(t *testing.T) {
	for r := rune(0); r < 0x20000; r++ {
		if r >= 0xd800 && r <= 0xdfff {
			continue
		}
		c := runeClass(r)
		require.Equal(t, isWordSlow(r), c&runeWord != 0, "U+%04X", r)
		var b []byte
		if r == 0x3a3 {
			b = []byte("σ")
		} else {
			b = appendLowerRune(nil, r)
		}
		require.Equal(t, string(b) != string(r), c&runeChanges != 0, "U+%04X", r)
		enc := []byte(string(r))
		inert := norm.NFKC.Properties(enc).BoundaryBefore() && norm.NFKC.IsNormal(enc) &&
			!(normBlocks.has(r) && inDeltaNormTrigger(r))
		require.Equal(t, inert, c&runeInert != 0, "U+%04X", r)
	}
}
