package regexiso

import (
	"context"
	"fmt"
	"regexp/syntax"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/internal/coverage"
)

// slack is what a deadline may be overrun by in these tests. The design
// bound is a few milliseconds; the rest is for the scheduler of a loaded
// machine and for the race detector, which slows each matcher step.
var slack = func() time.Duration {
	if raceEnabled {
		return 400 * time.Millisecond
	}
	return 100 * time.Millisecond
}()

// returnsBy runs f up to three times and fails unless one run ends within
// budget+slack: a loaded machine can stall any one run, a deadline that is
// not enforced stalls every one (by seconds, for the patterns used here).
func returnsBy(t *testing.T, budget time.Duration, f func()) {
	t.Helper()
	var took []time.Duration
	for range 3 {
		start := time.Now()
		f()
		took = append(took, time.Since(start))
		if took[len(took)-1] < budget+slack {
			t.Logf("returned after %v (budget %v)", took, budget)
			return
		}
	}
	t.Fatalf("returned after %v, budget %v + slack %v", took, budget, slack)
}

// slowPattern compiles to about a thousand instructions, which all stay
// alive over a run of letters: about 20 µs a byte, so one match over 2 MiB
// of letters takes about 40 s.
const slowPattern = `[\p{L}\p{N}]{1000}z`

func TestDefaultLimits(t *testing.T) {
	lim := DefaultLimits()
	assert.Equal(t, Limits{MaxPatternBytes: 1024, MaxHaystackItems: 20000, MaxHaystackBytes: 2097152, Timeout: 250 * time.Millisecond}, lim)
	assert.Equal(t, lim, Limits{}.orDefault())
	assert.Equal(t, Limits{MaxPatternBytes: 7, MaxHaystackItems: 20000, MaxHaystackBytes: 2097152, Timeout: time.Second},
		Limits{MaxPatternBytes: 7, MaxHaystackItems: -1, Timeout: time.Second}.orDefault())
}

func TestCompile_PatternTooLarge(t *testing.T) {
	// é is two bytes: the limit counts UTF-8 bytes, not characters.
	_, err := Compile(strings.Repeat("é", 3), Limits{MaxPatternBytes: 5})
	require.NotNil(t, err)
	assert.Equal(t, &coverage.Error{Code: coverage.RegexPatternTooLarge, Message: "Regex pattern is 6 bytes; limit is 5."}, err)

	re, err := Compile(strings.Repeat("é", 3), Limits{MaxPatternBytes: 6})
	require.Nil(t, err)
	assert.Equal(t, "ééé", re.String())

	// Neither translated nor compiled: an invalid pattern is reported too
	// large, and one that would take seconds to compile is refused at once.
	_, err = Compile("(?="+strings.Repeat("(", 2000), Limits{})
	require.NotNil(t, err)
	assert.Equal(t, coverage.RegexPatternTooLarge, err.Code)

	huge := strings.Repeat(`\pL{1000}`, 7282)
	returnsBy(t, 0, func() {
		_, err = Compile(huge, Limits{MaxPatternBytes: 65536, Timeout: time.Minute})
	})
	require.NotNil(t, err)
	assert.Equal(t, "Regex pattern is 65538 bytes; limit is 65536.", err.Message)
}

func TestCompile_Timeout(t *testing.T) {
	// About 40,000 instructions of case-folded \pL: 15–60 ms to compile.
	pattern := strings.Repeat(`\pL{1000}`, 40)
	lim := Limits{Timeout: 2 * time.Millisecond}
	var err *coverage.Error
	returnsBy(t, lim.Timeout, func() { _, err = Compile(pattern, lim) })
	require.NotNil(t, err)
	assert.Equal(t, &coverage.Error{Code: coverage.RegexTimeout, Message: "Regex execution exceeded 2 ms."}, err)

	// Start shares one budget between compiling and searching.
	var run *Run
	returnsBy(t, lim.Timeout, func() { run = Start(context.Background(), pattern, lim) })
	assert.Nil(t, run.Regexp())
	matched, ok := run.Add("abc")
	assert.False(t, matched)
	assert.False(t, ok)
	out := run.Result()
	assert.Equal(t, Outcome{Complete: false, Reasons: []string{coverage.RegexTimeout}, Error: err}, out)
	assert.False(t, out.NoMatch())
}

func TestRun_Complete(t *testing.T) {
	hits, out := Search(context.Background(), `open\s+file`, []string{"OPEN  File", "close file", "", "reopen file now"}, Limits{})
	assert.Equal(t, []int{0, 3}, hits)
	assert.Equal(t, Outcome{Complete: true, Reasons: []string{}, Searched: 4, SearchedBytes: 35, Matched: 2}, out)
	assert.False(t, out.NoMatch())

	hits, out = Search(context.Background(), `nothing`, []string{"a", "b"}, Limits{})
	assert.Empty(t, hits)
	assert.True(t, out.Complete)
	assert.True(t, out.NoMatch())

	// An empty haystack is complete and an authoritative no-match.
	hits, out = Search(context.Background(), `x`, nil, Limits{})
	assert.Empty(t, hits)
	assert.True(t, out.NoMatch())
	assert.NotNil(t, out.Reasons)
}

func TestRun_InvalidPattern(t *testing.T) {
	hits, out := Search(context.Background(), `(?<=a)b`, []string{"ab"}, Limits{})
	assert.Empty(t, hits)
	assert.False(t, out.Complete)
	assert.False(t, out.NoMatch())
	assert.Equal(t, []string{coverage.InvalidRegex}, out.Reasons)
	require.NotNil(t, out.Error)
	assert.Equal(t, coverage.InvalidRegex, out.Error.Code)
	assert.Zero(t, out.Searched)

	_, out = Search(context.Background(), "ab", nil, Limits{MaxPatternBytes: 1})
	assert.Equal(t, []string{coverage.RegexPatternTooLarge}, out.Reasons)
	assert.Equal(t, "Regex pattern is 2 bytes; limit is 1.", out.Error.Message)
}

func TestRun_MaxHaystackItems(t *testing.T) {
	run := MustCompile(`a`, Limits{MaxHaystackItems: 3}).NewRun(context.Background())
	for _, item := range []string{"a", "b", "A"} {
		_, ok := run.Add(item)
		require.True(t, ok)
	}
	assert.Equal(t, Outcome{Complete: true, Reasons: []string{}, Searched: 3, SearchedBytes: 3, Matched: 2}, run.Result(),
		"exactly the limit is complete")

	matched, ok := run.Add("a")
	assert.False(t, matched)
	assert.False(t, ok)
	_, ok = run.Add("")
	assert.False(t, ok, "collection stops at the first overflow")
	assert.True(t, run.Stopped())
	out := run.Result()
	assert.Equal(t, Outcome{Complete: false, Reasons: []string{coverage.RegexMaxHaystackTerms}, Searched: 3, SearchedBytes: 3, Matched: 2}, out)
	assert.False(t, out.NoMatch())
}

func TestRun_MaxHaystackBytes(t *testing.T) {
	// é is two bytes: the limit counts UTF-8 bytes.
	hits, out := Search(context.Background(), `é`, []string{"é", "abc", "ééé", "é"}, Limits{MaxHaystackBytes: 7})
	assert.Equal(t, []int{0}, hits, "the item that would exceed is not searched")
	assert.Equal(t, Outcome{Complete: false, Reasons: []string{coverage.RegexMaxHaystackBytes}, Searched: 2, SearchedBytes: 5, Matched: 1}, out)
	assert.Nil(t, out.Error, "a haystack limit is a reason, not an error")

	hits, out = Search(context.Background(), `é`, []string{"é", "abc", "éé"}, Limits{MaxHaystackBytes: 9})
	assert.Equal(t, []int{0, 2}, hits)
	assert.True(t, out.Complete, "exactly the limit is complete")

	// A miss is not a no-match when the run stopped.
	hits, out = Search(context.Background(), `zzz`, []string{"abc", strings.Repeat("z", 10)}, Limits{MaxHaystackBytes: 8})
	assert.Empty(t, hits)
	assert.Zero(t, out.Matched)
	assert.False(t, out.NoMatch())
}

// The deadline is hard for patterns whose matching is slow.
func TestRun_DeadlineHonoured(t *testing.T) {
	letters := strings.Repeat("a", 2<<20)
	tests := []struct {
		name    string
		pattern string
		items   []string
	}{
		{"one 2 MiB item", slowPattern, []string{letters}},
		{"64 KiB items", slowPattern, split(letters, 64<<10)},
		{"2 KiB items", slowPattern, split(letters, 2<<10)},
		{"64 B items", `[\p{L}\p{N}]{60}z`, split(letters, 64)},
		{"large program", strings.Repeat(`\pL{1000}`, 20), []string{letters}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lim := Limits{Timeout: 50 * time.Millisecond}
			re := MustCompile(tt.pattern, Limits{Timeout: time.Minute}) // the large program compiles slowly
			re.lim.Timeout = lim.Timeout
			var run *Run
			returnsBy(t, lim.Timeout, func() {
				run = re.NewRun(context.Background())
				for _, item := range tt.items {
					if _, ok := run.Add(item); !ok {
						break
					}
				}
			})
			assert.GreaterOrEqual(t, time.Since(run.dl.start), lim.Timeout)
			out := run.Result()
			t.Logf("searched %d of %d items", out.Searched, len(tt.items))
			assert.Equal(t, []string{coverage.RegexTimeout}, out.Reasons)
			assert.Equal(t, &coverage.Error{Code: coverage.RegexTimeout, Message: "Regex execution exceeded 50 ms."}, out.Error)
			assert.Less(t, out.Searched, len(tt.items))
			assert.False(t, out.NoMatch())
		})
	}
}

func TestRun_TimeoutKeepsPartialResults(t *testing.T) {
	re := MustCompile(`[\p{L}\p{N}]{100}z|hit`, Limits{Timeout: 30 * time.Millisecond})
	run := re.NewRun(context.Background())
	for _, item := range []string{"a hit", "miss", "HIT"} {
		_, ok := run.Add(item)
		require.True(t, ok)
	}
	matched, ok := run.Add(strings.Repeat("a", 1<<20))
	assert.False(t, matched)
	assert.False(t, ok)
	_, ok = run.Add("hit")
	assert.False(t, ok)
	out := run.Result()
	assert.Equal(t, 3, out.Searched)
	assert.Equal(t, 2, out.Matched)
	assert.False(t, out.Complete)
	assert.Equal(t, []string{coverage.RegexTimeout}, out.Reasons)
	assert.Equal(t, coverage.RegexTimeout, out.Error.Code)
}

func TestRun_Context(t *testing.T) {
	re := MustCompile(`x`, Limits{})

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	run := re.NewRun(ctx)
	_, ok := run.Add("x")
	assert.False(t, ok)
	out := run.Result()
	assert.Equal(t, []string{coverage.RegexTimeout}, out.Reasons)
	assert.Contains(t, out.Error.Message, "Regex execution was cancelled after")

	// A context deadline shorter than the timeout is the budget.
	slow := MustCompile(slowPattern, Limits{Timeout: time.Minute})
	letters := strings.Repeat("a", 1<<20)
	returnsBy(t, 20*time.Millisecond, func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		defer cancel()
		run = slow.NewRun(ctx)
		_, ok = run.Add(letters)
	})
	assert.False(t, ok)
	// The budget is what the context left when the run started: 20 ms
	// unless the scheduler paused the test in between.
	budget := (run.dl.budget + time.Millisecond - 1) / time.Millisecond
	assert.LessOrEqual(t, budget, time.Duration(20))
	assert.Equal(t, &coverage.Error{Code: coverage.RegexTimeout, Message: fmt.Sprintf("Regex execution exceeded %d ms.", budget)}, run.Result().Error)

	// Cancelling during a long match stops it.
	returnsBy(t, 20*time.Millisecond, func() {
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(20*time.Millisecond, cancel)
		_, out = Search(ctx, slowPattern, []string{letters}, Limits{Timeout: time.Minute})
	})
	assert.Equal(t, []string{coverage.RegexTimeout}, out.Reasons)
	assert.Contains(t, out.Error.Message, "cancelled")
}

// The cancellable path gives the same answers as the direct one, for items
// below and above the inline size.
func TestMatch_ReaderAgreesWithDirect(t *testing.T) {
	patterns := []string{`foo`, `^foo`, `foo$`, `\bfoo\b`, `é+$`, `^$`, `(?m)^bar$`, `a.*b`, `[\p{Greek}]{3}`, `\x{1F600}`, `(?s)x.y`}
	var items []string
	for _, s := range []string{"", "foo", "xfoo", "foo bar", "bar\nfoo", "ÉÉ", "αβγ", "😀", "x\ny", "a\nb", "\xff\xfe"} {
		items = append(items, s, strings.Repeat("-", 5000)+s, s+strings.Repeat("+", 5000))
	}
	for _, p := range patterns {
		re := MustCompile(p, Limits{})
		for _, item := range items {
			dl := newDeadline(context.Background(), time.Minute)
			in := re.reader(item, &dl)
			want := re.re.MatchString(item)
			assert.Equal(t, want, re.re.MatchReader(in), "%q on %.20q", p, item)
			for _, remaining := range []time.Duration{time.Minute, 0} { // direct, then cancellable
				got, stopped := re.match(item, &dl, remaining)
				assert.False(t, stopped)
				assert.Equal(t, want, got, "%q on %.20q", p, item)
			}

			loc := re.re.FindStringIndex(item)
			start, end, ok := re.FirstMatch(item)
			assert.Equal(t, loc != nil, ok)
			if ok {
				assert.Equal(t, loc, []int{start, end}, "%q on %.20q", p, item)
			}
			in = re.reader(item, &dl)
			assert.Equal(t, loc, re.re.FindReaderIndex(in), "%q on %.20q", p, item)
		}
	}
}

func TestFirstMatch(t *testing.T) {
	re := MustCompile(`résumé`, Limits{})
	start, end, ok := re.FirstMatch("my RÉSUMÉ and résumé")
	require.True(t, ok)
	assert.Equal(t, "RÉSUMÉ", "my RÉSUMÉ and résumé"[start:end])

	long := strings.Repeat("x", 100000) + "Résumé"
	start, end, ok = re.FirstMatch(long)
	require.True(t, ok)
	assert.Equal(t, "Résumé", long[start:end])

	_, _, ok = re.FirstMatch("resume")
	assert.False(t, ok)

	// Bounded by the Timeout.
	slow := MustCompile(slowPattern, Limits{Timeout: 20 * time.Millisecond})
	letters := strings.Repeat("a", 1<<20)
	returnsBy(t, 20*time.Millisecond, func() { _, _, ok = slow.FirstMatch(letters) })
	assert.False(t, ok)
}

// progCost must bound the compiled program from above: the inline size and
// the polling interval rely on it.
func TestProgCost_BoundsProgram(t *testing.T) {
	for _, p := range []string{
		``, `a`, `abc`, `a|b|c`, `(a|aa)*b`, `(x+x+)+y`, `(.*)*`, `a{1000}`, `a{2,5}`, `a{3,}`, `(?:ab){0,3}`,
		`\pL{1000}`, `(?:(?:a{10}){10}){10}`, `(?:a{2,}){5}`, `^(?:[a-z]+\.)*go$`, `(a)(b)(c)|\b`, `(?:x?){1000}`,
		slowPattern, `\x{1F600}+`, `[^\x00-\x{10FFFF}]`,
	} {
		expr := "(?i)" + p
		tree, err := syntax.Parse(expr, syntax.Perl)
		require.NoError(t, err)
		prog, err := syntax.Compile(tree.Simplify())
		require.NoError(t, err)
		assert.GreaterOrEqual(t, progCost(tree), len(prog.Inst), p)
		assert.LessOrEqual(t, progCost(tree), 4*len(prog.Inst)+8, "%s: a loose estimate costs speed", p)
	}
}

func TestRegexp_Accessors(t *testing.T) {
	re := MustCompile(`\u00e9`, Limits{MaxHaystackItems: 5})
	assert.Equal(t, `\u00e9`, re.String())
	assert.Equal(t, `(?i)\x{E9}`, re.Expr())
	assert.Equal(t, 5, re.Limits().MaxHaystackItems)
	assert.Equal(t, 250*time.Millisecond, re.Limits().Timeout)
	assert.Panics(t, func() { MustCompile(`(`, Limits{}) })
}

// split cuts s into pieces of n bytes.
func split(s string, n int) []string {
	var out []string
	for len(s) > n {
		out = append(out, s[:n])
		s = s[n:]
	}
	return append(out, s)
}
