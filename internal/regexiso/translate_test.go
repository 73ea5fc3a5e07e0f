package regexiso

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/internal/coverage"
)

func TestCompile_Unsupported_NamesConstruct(t *testing.T) {
	tests := []struct {
		pattern string
		names   []string // every one must appear in the message
	}{
		{`foo(?=bar)`, []string{"lookahead (?=…)", "byte 3"}},
		{`foo(?!bar)`, []string{"negative lookahead (?!…)"}},
		{`(?<=\$)\d+`, []string{"lookbehind (?<=…)", "byte 0"}},
		{`(?<!x)y`, []string{"negative lookbehind (?<!…)"}},
		{`(a)\1`, []string{`backreference \1`}},
		{`(a)(b)\2`, []string{`backreference \2`}},
		{`\12`, []string{`backreference \12`}},
		{`(?<word>a)\k<word>`, []string{`named backreference \k<word>`}},
		{`(?P<w>a)(?P=w)`, []string{"named backreference (?P=name)"}},
		{`\p{Script=Greek}`, []string{`\p{Script=Greek}`, `write \p{Greek}`}},
		{`\p{sc=Greek}`, []string{`\p{sc=Greek}`, `write \p{Greek}`}},
		{`\P{sc=Latin}x`, []string{`\P{sc=Latin}`, `write \P{Latin}`}},
		{`[\p{Script=Cyrillic}]`, []string{`\p{Script=Cyrillic}`, `\p{Cyrillic}`}},
		{`\p{scx=Greek}`, []string{"script extensions", `\p{scx=Greek}`}},
		{`\p{Script_Extensions=Han}`, []string{"script extensions"}},
		{`\p{gc=Lu}`, []string{"general category", `\p{gc=Lu}`}},
		{`\p{General_Category=Letter}`, []string{"general category", `write \p{Letter}`}},
		{`\p{Foo=Bar}`, []string{`Unicode property \p{Foo=Bar}`}},
		{`a*+`, []string{"possessive quantifier *+"}},
		{`a++b`, []string{"possessive quantifier ++"}},
		{`a?+`, []string{"possessive quantifier ?+"}},
		{`a{2}+`, []string{"possessive quantifier {2}+"}},
		{`a{2,}+`, []string{"possessive quantifier {2,}+"}},
		{`(?>ab|a)c`, []string{"atomic group (?>…)"}},
		{`\01`, []string{`octal escape \01`}},
		{`\u12`, []string{`\u escape`}},
		{`\u{}`, []string{`\u escape`}},
		{`\u{110000}`, []string{`\u escape`}},
		{`\u{12G}`, []string{`\u escape`}},
		{`[\uZZZZ]`, []string{`\u escape`}},
	}
	for _, tt := range tests {
		t.Run(tt.pattern, func(t *testing.T) {
			re, err := Compile(tt.pattern, Limits{})
			require.Nil(t, re)
			require.NotNil(t, err)
			assert.Equal(t, coverage.InvalidRegex, err.Code)
			assert.Contains(t, err.Message, "not supported")
			for _, name := range tt.names {
				assert.Contains(t, err.Message, name)
			}
		})
	}
}

// Lookalikes behind a backslash, in a class or in a \Q…\E quote are not
// the constructs they resemble.
func TestCompile_NoFalseFlags(t *testing.T) {
	tests := []struct {
		pattern, match, noMatch string
	}{
		{`\(?=`, "(=", "x"},
		{`\(?=`, "=", "x"},
		{`[(?=]`, "?", "x"},
		{`[(?<=]x`, "<x", "ax"},
		{`[(?!)]`, "!", "x"},
		{`\(\?!`, "(?!", "(!"},
		{`[\\(?=]`, `\`, "x"},
		{`\Q(?=\E`, "(?=", "("},
		{`\Q\1\E`, `\1`, "1"},
		{`a\*+`, "a***", "a"},
		{`a[*]+`, "a**", "a"},
		{`\{2}+`, "{2}}}", "{2"},
		{`x}+`, "x}}", "x"},
		{`a{,5}`, "a{,5}", "aaaaa"},
		{`\\1`, `\1`, "1"},
		{`[\1]`, "", ""}, // Go rejects \1 in a class: checked below
		{`\\k<n>`, `\k<n>`, "k<n>"},
		{`[\k<n>]`, "", ""}, // Go rejects \k: checked below
		{`\\p{sc=Greek}`, `\p{sc=Greek}`, "α"},
		{`\x{41}+`, "aaa", "b"},
		{`\p{Greek}+`, "αβγ", "abc"},
		{`\pL+`, "é", "1"},
		{`[[:alpha:]]+`, "abc", "123"},
		{`[[:digit:](?=]+`, "1=?", "abc"},
		{`a+?b`, "aab", "aa"},
		{`a{2}?`, "aa", "a"},
		{`(?<name>ab)`, "AB", "a"},
		{`(?P<name>ab)`, "ab", "a"},
		{`(?:a|b)+`, "ab", "c"},
		{`(?s:a.b)`, "a\nb", "ab"},
		{`\0`, "\x00", "0"},
	}
	for _, tt := range tests {
		t.Run(tt.pattern, func(t *testing.T) {
			re, err := Compile(tt.pattern, Limits{})
			if tt.match == "" {
				require.NotNil(t, err)
				assert.NotContains(t, err.Message, "not supported")
				assert.Contains(t, err.Message, "error parsing regexp")
				return
			}
			require.Nil(t, err)
			assert.True(t, re.re.MatchString(tt.match), "should match %q", tt.match)
			assert.False(t, re.re.MatchString(tt.noMatch), "should not match %q", tt.noMatch)
		})
	}
}

func TestTranslate(t *testing.T) {
	tests := []struct{ in, want string }{
		{`\u00e9`, `\x{E9}`},
		{`\u{1F600}`, `\x{1F600}`},
		{`\u{0000001F600}`, `\x{1F600}`},
		{`\uD83D\uDE00`, `\x{1F600}`},            // a surrogate pair is one code point
		{`\u{D83D}\u{DE00}`, `\x{D83D}\x{DE00}`}, // as in JavaScript: braces do not pair
		{`\uD83D`, `\x{D83D}`},                   // a lone surrogate: never matches UTF-8
		{`[\u00e0-\u00ff]`, `[\x{E0}-\x{FF}]`},
		{`a[]b`, `a[^\x00-\x{10FFFF}]b`},
		{`a[^]b`, `a[\x00-\x{10FFFF}]b`},
		{`[]]`, `[^\x00-\x{10FFFF}]]`},
		{`\\u00e9`, `\\u00e9`},
		{`\Q\u00e9\E`, `\Q\u00e9\E`},
		{`résumé\.go`, `résumé\.go`},
		{`(?i:x)`, `(?i:x)`},
	}
	for _, tt := range tests {
		got, err := translate(tt.in)
		require.Nil(t, err, tt.in)
		assert.Equal(t, tt.want, got, tt.in)
	}
}

func TestCompile_UnicodeEscapes(t *testing.T) {
	tests := []struct {
		pattern string
		match   []string
		noMatch []string
	}{
		{`\u{1F600}`, []string{"smile 😀"}, []string{"😁"}},
		{`\uD83D\uDE00`, []string{"😀"}, []string{"\uFFFD"}},
		{`\u00e9`, []string{"é", "É", "résumé"}, []string{"e"}},
		{`caf\u00E9`, []string{"CAFÉ"}, []string{"cafe"}},
		{`[\u00e0-\u00ff]+`, []string{"ÀÉ"}, []string{"abc"}},
		{`\uD83D`, nil, []string{"😀", "\uFFFD", "\xed\xa0\xbd"}},
		{`a[]`, nil, []string{"a", "a]", "ab"}},
		{`a[^]b`, []string{"a\nb", "axb"}, []string{"ab"}},
	}
	for _, tt := range tests {
		t.Run(tt.pattern, func(t *testing.T) {
			re, err := Compile(tt.pattern, Limits{})
			require.Nil(t, err)
			for _, s := range tt.match {
				assert.True(t, re.re.MatchString(s), "should match %q", s)
			}
			for _, s := range tt.noMatch {
				assert.False(t, re.re.MatchString(s), "should not match %q", s)
			}
		})
	}
}

func TestCompile_CaseInsensitive(t *testing.T) {
	tests := []struct {
		pattern string
		match   []string
		noMatch []string
	}{
		{`Errorf`, []string{"ERRORF", "errorf"}, []string{"Error"}},
		{`é`, []string{"É", "é"}, []string{"e", "E"}},
		{`É`, []string{"é"}, nil},
		{`résumé`, []string{"RÉSUMÉ", "Résumé"}, []string{"resume"}},
		{`k`, []string{"K", "\u212A"}, nil}, // the Kelvin sign folds to k
		{`s`, []string{"ſ"}, nil},           // long s, as JavaScript's iu
		{`σ`, []string{"Σ", "ς"}, nil},
		{`ß`, []string{"ẞ"}, []string{"ss"}}, // simple folding only, as in JavaScript
		{`[a-z]+`, []string{"ABC"}, []string{"123"}},
		{`\w`, []string{"K"}, []string{"-"}},
		{`(?-i)Foo`, []string{"Foo"}, []string{"foo"}}, // Go's flag turns it off
	}
	for _, tt := range tests {
		t.Run(tt.pattern, func(t *testing.T) {
			re, err := Compile(tt.pattern, Limits{})
			require.Nil(t, err)
			for _, s := range tt.match {
				assert.True(t, re.re.MatchString(s), "should match %q", s)
			}
			for _, s := range tt.noMatch {
				assert.False(t, re.re.MatchString(s), "should not match %q", s)
			}
		})
	}
}

func TestCompile_GoErrors(t *testing.T) {
	tests := []struct{ pattern, want string }{
		{`(`, "error parsing regexp: missing closing ): `(`"},
		{`a**`, "error parsing regexp: invalid nested repetition operator: `**`"},
		{`a{1001}`, "error parsing regexp: invalid repeat count: `{1001}`"},
		{`a{1000}{1000}`, "error parsing regexp: invalid nested repetition operator: `{1000}{1000}`"},
		{`(a{1000}){1000}`, "error parsing regexp: invalid repeat count: `{1000}`"},
		{`(?:(?:a{100}){100}){100}`, "error parsing regexp: invalid repeat count"},
		{`\p{Emoji}`, "error parsing regexp: invalid character class range: `\\p{Emoji}`"},
		{`[z-a]`, "error parsing regexp: invalid character class range: `z-a`"},
		{`\c`, "error parsing regexp: invalid escape sequence: `\\c`"},
		{`x\`, "error parsing regexp: trailing backslash at end of expression: ``"},
	}
	for _, tt := range tests {
		t.Run(tt.pattern, func(t *testing.T) {
			_, err := Compile(tt.pattern, Limits{})
			require.NotNil(t, err)
			assert.Equal(t, coverage.InvalidRegex, err.Code)
			assert.True(t, strings.HasPrefix(err.Message, tt.want), "message %q", err.Message)
			assert.NotContains(t, err.Message, "(?i)")
		})
	}
}

// A large program is Go's "expression too large", not a panic and not a
// hang, even with the pattern limit raised to the configuration's maximum.
func TestCompile_ExpressionTooLarge(t *testing.T) {
	pattern := strings.Repeat(`.{1000}`, 65536/7)
	_, err := Compile(pattern, Limits{MaxPatternBytes: 65536, Timeout: 30e9})
	require.NotNil(t, err)
	assert.Equal(t, coverage.InvalidRegex, err.Code)
	assert.Contains(t, err.Message, "expression too large")
	assert.NotContains(t, err.Message, "(?i)")
}
