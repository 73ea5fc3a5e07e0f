package search

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/memidx/memidx/internal/regexiso"
)

// Which patterns a cold vocabulary decides term by term (token-local),
// and what a vocabulary must hold for one that spans tokens.
func TestRegexSpan(t *testing.T) {
	for _, c := range []struct {
		pattern string
		local   bool
		needs   []string // when not local
	}{
		// Token-local: every match is a non-empty run of token characters.
		{`deploy`, true, nil},
		{`^deploy$`, true, nil},
		{`(?m)^deploy$`, true, nil},
		{`\Adeploy\z`, true, nil},
		{`\bdeploy\b`, true, nil},
		{`\Bploy`, true, nil},
		{`time\w*`, true, nil},
		{`[a-z]+`, true, nil},
		{`\d{2,4}`, true, nil},
		{`(?-i)\pL+`, true, nil},
		{`(?-i)[\p{L}\p{N}_]+`, true, nil},
		{`[[:alpha:]]+`, true, nil},
		{`é+`, true, nil},
		{`straße|über`, true, nil},
		{`[^\W]+`, true, nil},
		{`(?:ab)+c?`, true, nil},
		{`k`, true, nil}, // folds to the Kelvin sign, a letter too
		{`[^\x00-\x{10FFFF}]`, true, nil},
		// Spanning: a character that is not a token character can match,
		// or the empty string can.
		{`foo\.ts`, false, []string{"foo", "t"}},
		{`src/foo`, false, []string{"src", "fo"}},
		{`edit src`, false, []string{"edit", "sr"}},
		{`deploy.*prod`, false, []string{"deplo", "pro"}},
		{`a.b`, false, nil},
		{`foo\sbar`, false, []string{"fo", "ba"}},
		{`\W`, false, nil},
		{`[^a-z]`, false, nil},
		{`foo-bar`, false, []string{"foo", "ba"}},
		{`(?s).`, false, nil},
		{`x*`, false, nil},
		{`^`, false, nil},
		{`$`, false, nil},
		{`\b`, false, nil},
		{`deploy|`, false, nil},
		{`(foo|bar)\.x`, false, nil},
		{`(?:v1\.2)+`, false, []string{"v1", ""}},
		{`\x{0301}`, false, nil},
		// Case-insensitive, \pL also matches U+0345 (it folds with ι), a
		// combining mark.
		{`\pL+`, false, nil},
		{`café\.txt`, false, []string{"ca", "tx"}},
		{`über\.go`, false, []string{"ber", "g"}},
		{`FOO\.TS`, false, []string{"foo", "t"}},
	} {
		t.Run(c.pattern, func(t *testing.T) {
			re := regexiso.MustCompile(c.pattern, regexiso.Limits{})
			sp := spanOf(re.Expr())
			assert.Equal(t, c.local, sp.local)
			var want []string
			for _, n := range c.needs {
				if n != "" {
					want = append(want, n)
				}
			}
			assert.ElementsMatch(t, want, sp.needs)
		})
	}
}

// A pattern whose classes hold more runes than the analysis checks counts
// as spanning tokens: the answer is then less sure, never wrong.
func TestRegexSpanBudget(t *testing.T) {
	re := regexiso.MustCompile(`[\x{4E00}-\x{9FFF}]+`, regexiso.Limits{})
	assert.True(t, spanOf(re.Expr()).local)
	p := ""
	for range 120 {
		p += `[\x{4E00}-\x{9FFF}]`
	}
	re = regexiso.MustCompile(p, regexiso.Limits{MaxPatternBytes: 4096, Timeout: time.Minute})
	assert.False(t, spanOf(re.Expr()).local)
}
