package regexiso

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"regexp/syntax"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/memidx/memidx/internal/coverage"
)

// Work is counted in units of one program instruction over one haystack
// byte. The slowest patterns measured take about 20 ns a unit (large Unicode
// classes, which the matcher binary-searches, with every thread alive);
// ordinary ones take 1 ns or less.
const (
	// unitCost is the time assumed for a unit: the slowest measured, and
	// then some.
	unitCost = 25 * time.Nanosecond
	// maxInline is the most work, at unitCost, matched in one
	// uninterruptible call; no more than a quarter of the remaining budget
	// is ever spent that way either.
	maxInline = 4 * time.Millisecond
	// pollUnits is the work between two clock checks on the cancellable
	// path: about 0.1 ms at unitCost.
	pollUnits = 1 << 12
	// maxCost caps the estimate so that sums cannot overflow.
	maxCost = 1 << 30
)

// Regexp is a compiled pattern with its limits. It is safe for concurrent
// use; the Runs made from it are not.
type Regexp struct {
	re      *regexp.Regexp
	pattern string
	lim     Limits
	// cost estimates the program's instructions, the most work one haystack
	// byte can take.
	cost int
	// every is the number of runes between two clock checks.
	every int
	// cut matches the head of a cut text (nil: the plain program is
	// exact there).
	cut *cutMatcher
}

// Compile checks the pattern's size, translates and compiles it, within
// lim.Timeout of wall clock. The error is invalid_regex,
// regex_pattern_too_large or regex_timeout.
func Compile(pattern string, lim Limits) (*Regexp, *coverage.Error) {
	lim = lim.orDefault()
	return compile(newDeadline(context.Background(), lim.Timeout), pattern, lim)
}

// MustCompile is Compile for patterns known to be good, such as those in
// tests; it panics on error.
func MustCompile(pattern string, lim Limits) *Regexp {
	re, err := Compile(pattern, lim)
	if err != nil {
		panic(err)
	}
	return re
}

// String returns the pattern as given.
func (r *Regexp) String() string { return r.pattern }

// Expr returns the Go expression compiled for the pattern: "(?i)" and the
// translated pattern.
func (r *Regexp) Expr() string { return r.re.String() }

// Limits returns the limits the pattern was compiled with, defaults filled in.
func (r *Regexp) Limits() Limits { return r.lim }

// FirstMatch returns the byte span of the leftmost match in s, for anchoring
// a snippet. It is bounded by the pattern's Timeout; ok is false when there
// is no match or when the budget ran out first, which is not a no-match.
func (r *Regexp) FirstMatch(s string) (start, end int, ok bool) {
	return r.FirstMatchContext(context.Background(), s)
}

// FirstMatchContext is FirstMatch bounded also by ctx.
func (r *Regexp) FirstMatchContext(ctx context.Context, s string) (start, end int, ok bool) {
	dl := newDeadline(ctx, r.lim.Timeout)
	var loc []int
	if r.inline(s, dl.remaining()) {
		loc = r.re.FindStringIndex(s)
	} else {
		in := r.reader(s, &dl)
		loc = r.re.FindReaderIndex(in)
		if in.stopped {
			return 0, 0, false
		}
	}
	if loc == nil {
		return 0, 0, false
	}
	return loc[0], loc[1], true
}

// match reports whether item matches, given the time remaining before dl.
// When stopped is true the deadline ended the search first and matched means
// nothing.
func (r *Regexp) match(item string, dl *deadline, remaining time.Duration) (matched, stopped bool) {
	if r.inline(item, remaining) {
		return r.re.MatchString(item), false
	}
	in := r.reader(item, dl)
	matched = r.re.MatchReader(in)
	return matched && !in.stopped, in.stopped
}

// inline reports whether s may be matched in one uninterruptible call: its
// worst-case time is within maxInline and a quarter of what remains.
func (r *Regexp) inline(s string, remaining time.Duration) bool {
	units := int(min(remaining/4, maxInline) / unitCost)
	return len(s)+1 <= units/r.cost
}

func (r *Regexp) reader(s string, dl *deadline) *pollReader {
	return &pollReader{s: s, every: r.every, dl: dl}
}

// pollReader feeds a string to the matcher rune by rune and ends the input
// early, setting stopped, once the deadline has passed. The matcher then
// finishes at once; its answer must be discarded, since a fake end of text
// can satisfy $ or \b.
type pollReader struct {
	s       string
	i       int
	left    int // runes until the next clock check
	every   int
	dl      *deadline
	stopped bool
	// sentinel: after s, one sentinel rune before the end of input.
	sentinel bool
}

var errStopped = errors.New("regexiso: deadline")

func (p *pollReader) ReadRune() (rune, int, error) {
	if p.stopped {
		return 0, 0, errStopped
	}
	if p.left--; p.left < 0 {
		p.left = p.every - 1
		if p.dl.remaining() <= 0 {
			p.stopped = true
			return 0, 0, errStopped
		}
	}
	if p.i >= len(p.s) {
		if p.sentinel {
			p.sentinel = false
			return sentinel, 1, nil
		}
		return 0, 0, io.EOF
	}
	if c := p.s[p.i]; c < utf8.RuneSelf {
		p.i++
		return rune(c), 1, nil
	}
	r, n := utf8.DecodeRuneInString(p.s[p.i:])
	p.i += n
	return r, n, nil
}

// deadline is the end of a budget: a time and a context.
type deadline struct {
	start  time.Time
	at     time.Time
	ctx    context.Context
	budget time.Duration // at - start, for messages
}

func newDeadline(ctx context.Context, timeout time.Duration) deadline {
	start := time.Now()
	at := start.Add(timeout)
	if d, ok := ctx.Deadline(); ok && d.Before(at) {
		at = d
	}
	return deadline{start: start, at: at, ctx: ctx, budget: max(at.Sub(start), 0)}
}

// remaining returns the time left, zero or less once the budget is spent or
// the context is done.
func (d *deadline) remaining() time.Duration {
	if d.ctx.Err() != nil {
		return 0
	}
	return time.Until(d.at)
}

// err returns the regex_timeout error for an expired budget.
func (d *deadline) err() *coverage.Error {
	ms := int64(math.Ceil(float64(d.budget) / float64(time.Millisecond)))
	msg := fmt.Sprintf("Regex execution exceeded %d ms.", ms)
	if errors.Is(d.ctx.Err(), context.Canceled) {
		elapsed := int64(math.Ceil(float64(time.Since(d.start)) / float64(time.Millisecond)))
		msg = fmt.Sprintf("Regex execution was cancelled after %d ms.", elapsed)
	}
	return &coverage.Error{Code: coverage.RegexTimeout, Message: msg}
}

// compile does Compile's work against dl.
func compile(dl deadline, pattern string, lim Limits) (*Regexp, *coverage.Error) {
	if n := len(pattern); n > lim.MaxPatternBytes {
		return nil, &coverage.Error{
			Code:    coverage.RegexPatternTooLarge,
			Message: fmt.Sprintf("Regex pattern is %d bytes; limit is %d.", n, lim.MaxPatternBytes),
		}
	}
	expr, cerr := translate(pattern)
	if cerr != nil {
		return nil, cerr
	}
	if dl.remaining() <= 0 {
		return nil, dl.err()
	}
	// Compiling is not interruptible and a pattern of a few hundred bytes
	// can take a tenth of a second, so it runs aside; at the deadline it is
	// left to finish on its own (its result is dropped).
	done := make(chan compiled, 1)
	go func() { done <- compileExpr("(?i)" + expr) }()
	timer := time.NewTimer(time.Until(dl.at))
	defer timer.Stop()
	var c compiled
	select {
	case c = <-done:
	case <-timer.C:
		return nil, dl.err()
	case <-dl.ctx.Done():
		return nil, dl.err()
	}
	if c.err != nil {
		return nil, c.err
	}
	re := &Regexp{re: c.re, pattern: pattern, lim: lim, cost: c.cost, cut: c.cut}
	re.every = max(1, pollUnits/c.cost)
	return re, nil
}

type compiled struct {
	re   *regexp.Regexp
	cost int
	cut  *cutMatcher
	err  *coverage.Error
}

// compileExpr compiles a Go expression and estimates its program size from
// its parse tree: Go's regexp does not expose its program, and parsing again
// costs little next to compiling.
func compileExpr(expr string) (c compiled) {
	defer func() {
		// The pattern is untrusted and this runs on its own goroutine, where
		// a panic would end the process.
		if p := recover(); p != nil {
			c = compiled{err: &coverage.Error{Code: coverage.InvalidRegex, Message: fmt.Sprintf("regexp compiler failed: %v", p)}}
		}
	}()
	tree, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return compiled{err: goError(err)}
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return compiled{err: goError(err)}
	}
	cut, err := cutVariant(tree)
	if err != nil {
		return compiled{err: goError(err)}
	}
	return compiled{re: re, cost: max(1, progCost(tree)), cut: cut}
}

// goError turns a Go compile error into invalid_regex with Go's message,
// without the "(?i)" this package added.
func goError(err error) *coverage.Error {
	msg := err.Error()
	var se *syntax.Error
	if errors.As(err, &se) {
		msg = "error parsing regexp: " + se.Code.String() + ": `" + strings.TrimPrefix(se.Expr, "(?i)") + "`"
	}
	return &coverage.Error{Code: coverage.InvalidRegex, Message: msg}
}

// progCost estimates, from above, the instructions Go compiles for re: the
// most threads the matcher can step for one input rune.
func progCost(re *syntax.Regexp) int {
	return min(maxCost, 2+nodeCost(re))
}

func nodeCost(re *syntax.Regexp) int {
	sum := 0
	for _, sub := range re.Sub {
		sum = min(maxCost, sum+nodeCost(sub))
	}
	switch re.Op {
	case syntax.OpLiteral:
		return max(1, len(re.Rune))
	case syntax.OpConcat:
		return max(1, sum)
	case syntax.OpAlternate:
		return min(maxCost, sum+len(re.Sub))
	case syntax.OpCapture, syntax.OpStar, syntax.OpPlus, syntax.OpQuest:
		return min(maxCost, sum+2)
	case syntax.OpRepeat:
		// Simplify writes x{n,} as n-1 copies of x and x+, and x{n,m} as n
		// copies of x and m-n nested optional ones.
		if re.Max < 0 {
			if sum > maxCost/(re.Min+1) {
				return maxCost
			}
			return max(re.Min, 1)*sum + 2
		}
		if sum+1 > maxCost/(re.Max+1) {
			return maxCost
		}
		return re.Min*sum + (re.Max-re.Min)*(sum+1) + 1
	default: // one instruction: a class, an assertion, empty or no match
		return 1
	}
}
