package regexiso

import (
	"context"

	"github.com/memidx/memidx/internal/coverage"
)

// Run searches haystack items one at a time under the pattern's limits. The
// caller offers items in its collection order and stops at the first Add
// that is not ok. A Run is not safe for concurrent use.
type Run struct {
	re       *Regexp // nil when the pattern did not compile
	lim      Limits
	dl       deadline
	searched int
	bytes    int
	matched  int
	reasons  coverage.Set
	err      *coverage.Error
	stopped  bool
}

// Outcome is the coverage of a Run.
//
// Complete is true only when every item offered was searched to the end and
// the pattern compiled. When it is false, items that were not searched may
// match, so Matched == 0 does not mean that nothing matches: an incomplete
// result is never an authoritative no-match. Use NoMatch for that test.
type Outcome struct {
	// Complete reports that no limit, deadline or error cut the run short.
	Complete bool
	// Reasons names why the run is incomplete: regex_max_haystack_terms,
	// regex_max_haystack_bytes, or the error's code. Sorted; never nil.
	Reasons []string
	// Error is set for invalid_regex, regex_pattern_too_large and
	// regex_timeout; a haystack limit is a reason, not an error.
	Error *coverage.Error
	// Searched counts the items searched to the end, and SearchedBytes their
	// UTF-8 bytes; their answers stand even when the run is incomplete.
	Searched      int
	SearchedBytes int
	// Matched counts the searched items that match.
	Matched int
}

// NoMatch reports an authoritative no-match: the run was complete and no
// item matched.
func (o Outcome) NoMatch() bool { return o.Complete && o.Matched == 0 }

// NewRun starts a run with a budget of the pattern's Timeout from now, or
// less if ctx ends sooner.
func (r *Regexp) NewRun(ctx context.Context) *Run {
	return &Run{re: r, lim: r.lim, dl: newDeadline(ctx, r.lim.Timeout)}
}

// Start compiles pattern and starts a run on one budget of lim.Timeout (or
// less if ctx ends sooner) that covers compiling and searching, as the
// reference's timer covered starting its worker and searching. When the
// pattern is rejected or compiling outlasts the budget, the run is already
// over: Add reports not ok and Result carries the error.
func Start(ctx context.Context, pattern string, lim Limits) *Run {
	lim = lim.orDefault()
	run := &Run{lim: lim, dl: newDeadline(ctx, lim.Timeout)}
	re, err := compile(run.dl, pattern, lim)
	if err != nil {
		run.fail(err)
		return run
	}
	run.re = re
	return run
}

// Search runs pattern over haystacks in order, as the reference's
// executeBoundedRegex does, and returns the indices of the matching items
// among those searched.
func Search(ctx context.Context, pattern string, haystacks []string, lim Limits) ([]int, Outcome) {
	run := Start(ctx, pattern, lim)
	var hits []int
	for i, h := range haystacks {
		matched, ok := run.Add(h)
		if !ok {
			break
		}
		if matched {
			hits = append(hits, i)
		}
	}
	return hits, run.Result()
}

// Regexp returns the compiled pattern, or nil when it did not compile.
func (run *Run) Regexp() *Regexp { return run.re }

// Add searches one item. ok is false, and the item is not searched, once the
// run is over: the item count or byte limit would be exceeded by this item,
// the deadline passed (also during this item), or the pattern failed. Every
// later Add is not ok either. When ok is true, matched is the item's answer.
func (run *Run) Add(item string) (matched, ok bool) { return run.add(item, false) }

func (run *Run) add(item string, cut bool) (matched, ok bool) {
	switch {
	case run.stopped:
		return false, false
	case run.searched >= run.lim.MaxHaystackItems:
		run.stop(coverage.RegexMaxHaystackTerms)
		return false, false
	case len(item) > run.lim.MaxHaystackBytes-run.bytes:
		run.stop(coverage.RegexMaxHaystackBytes)
		return false, false
	}
	remaining := run.dl.remaining()
	if remaining <= 0 {
		run.fail(run.dl.err())
		return false, false
	}
	var stopped bool
	if cut {
		matched, stopped = run.re.matchCut(item, &run.dl)
	} else {
		matched, stopped = run.re.match(item, &run.dl, remaining)
	}
	if stopped {
		run.fail(run.dl.err())
		return false, false
	}
	run.searched++
	run.bytes += len(item)
	if matched {
		run.matched++
	}
	return matched, true
}

// AddCut is Add for an item that is the head of a longer text, cut at its
// end (a hot entry bounded by maxEntryChars): matched is true only for a
// match of the whole text, so $ and \z never match at the cut, nor does
// anything else that would depend on the characters after it.
func (run *Run) AddCut(item string) (matched, ok bool) {
	return run.add(item, true)
}

// Stopped reports whether the run is over, so that no more items are
// searched.
func (run *Run) Stopped() bool { return run.stopped }

// Result returns the outcome so far. The run stays usable.
func (run *Run) Result() Outcome {
	return Outcome{
		Complete:      run.reasons.Complete(),
		Reasons:       run.reasons.Reasons(),
		Error:         run.err,
		Searched:      run.searched,
		SearchedBytes: run.bytes,
		Matched:       run.matched,
	}
}

func (run *Run) stop(reason string) {
	run.stopped = true
	run.reasons.Add(reason)
}

func (run *Run) fail(err *coverage.Error) {
	run.stop(err.Code)
	run.err = err
}
