package regexiso

import (
	"context"
	"regexp/syntax"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/internal/coverage"
)

// FuzzCompile checks that no pattern panics or escapes the limits: a long
// pattern is refused before compiling, errors carry a known code and a
// message, compiling and searching return by the deadline, a run never
// searches more items or bytes than allowed, the cost estimate bounds the
// program, and the cancellable path answers as the direct one does.
func FuzzCompile(f *testing.F) {
	for _, p := range []string{
		`foo`, `(?=a)`, `(?<!a)b`, `(a)\1`, `\k<n>`, `\p{sc=Greek}`, `\p{Script=Latin}`, `a*+`, `(?>a)`,
		`\u{1F600}`, `\uD83D\uDE00`, `\u00e9`, `\u12`, `[]`, `[^]`, `[(?=]`, `\(?=`, `\Q(?=\E`, `[[:alpha:](?=]`,
		`(a|aa)*b`, `(x+x+)+y`, `(.*)*z`, `a{1000}{1000}`, `[\p{L}\p{N}]{1000}z`, `\pL{1000}\pL{1000}`,
		`^$`, `\b`, `(?m)^x$`, `(?-i)X`, `x{2,}+`, `a{,5}`, `\x{D800}`, "\xff", `\`, `(`, `[`,
	} {
		f.Add(p, "foo\nbar ÉÉ\n(?=a)\n😀\n"+strings.Repeat("a", 100))
	}
	lim := Limits{MaxPatternBytes: 64, MaxHaystackItems: 4, MaxHaystackBytes: 160, Timeout: 200 * time.Millisecond}
	codes := []string{coverage.InvalidRegex, coverage.RegexPatternTooLarge, coverage.RegexTimeout}
	f.Fuzz(func(t *testing.T, pattern, haystack string) {
		start := time.Now()
		re, err := Compile(pattern, lim)
		require.Less(t, time.Since(start), lim.Timeout+slack)
		if len(pattern) > lim.MaxPatternBytes {
			require.NotNil(t, err)
			require.Equal(t, coverage.RegexPatternTooLarge, err.Code)
			return
		}
		if err != nil {
			require.Contains(t, codes, err.Code)
			require.NotEmpty(t, err.Message)
			return
		}

		tree, perr := syntax.Parse(re.Expr(), syntax.Perl)
		require.NoError(t, perr)
		prog, perr := syntax.Compile(tree.Simplify())
		require.NoError(t, perr)
		require.GreaterOrEqual(t, re.cost, len(prog.Inst))

		items := strings.Split(haystack, "\n")
		start = time.Now()
		run := re.NewRun(context.Background())
		bytes := 0
		for _, item := range items {
			matched, ok := run.Add(item)
			if !ok {
				break
			}
			bytes += len(item)
			require.Equal(t, re.re.MatchString(item), matched, "%q", item)
			dl := newDeadline(context.Background(), time.Minute)
			require.Equal(t, matched, re.re.MatchReader(re.reader(item, &dl)), "%q", item)
		}
		require.Less(t, time.Since(start), lim.Timeout+slack)
		out := run.Result()
		require.LessOrEqual(t, out.Searched, lim.MaxHaystackItems)
		require.LessOrEqual(t, out.SearchedBytes, lim.MaxHaystackBytes)
		require.Equal(t, bytes, out.SearchedBytes)
		require.Equal(t, out.Complete, out.Searched == len(items))
		require.Equal(t, out.Complete, len(out.Reasons) == 0)
		for _, r := range out.Reasons {
			require.True(t, slices.Contains(codes, r) || r == coverage.RegexMaxHaystackTerms || r == coverage.RegexMaxHaystackBytes, r)
		}

		if len(haystack) <= 1024 {
			loc := re.re.FindStringIndex(haystack)
			if s, e, ok := re.FirstMatch(haystack); ok {
				require.Equal(t, loc, []int{s, e})
			}
		}
	})
}
