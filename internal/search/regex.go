package search

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/memidx/memidx/internal/regexiso"
)

// regexRun is the one bounded run a query shares across its haystacks: hot
// entry texts first (newest session first, entry order), then cold
// vocabulary terms, until a limit stops it.
func (s *Searcher) regexRun() *regexiso.Run {
	if s.rrun == nil {
		ctx := s.ctx
		if ctx == nil {
			ctx = context.Background()
		}
		s.rrun = s.plan.Regex.NewRun(ctx)
	}
	return s.rrun
}

// regexHot scores the filter-matching entries whose hot text matches.
func (s *Searcher) regexHot(si int, src *HotSource, pass func(int) bool) []Item {
	run := s.regexRun()
	var items []Item
	for e := 0; e < src.Shard.Len(); e++ {
		if run.Stopped() {
			break
		}
		if !pass(e) {
			continue
		}
		st, err := src.Shard.Entry(e)
		if err != nil {
			s.Fail(src.Rec)
			continue
		}
		// The text the terms came from; a text cut at maxEntryChars is
		// the head of a longer one, where $ and \z must not match at the
		// cut.
		var matched, ok bool
		if st.Truncated {
			matched, ok = run.AddCut(st.IndexText())
		} else {
			matched, ok = run.Add(st.IndexText())
		}
		if !ok {
			break
		}
		if matched {
			items = append(items, Item{Score: s.weight(src, e), mtime: src.Rec.Identity.MtimeNs, Entry: true, Src: si, Index: e, file: src.Rec.Path})
		}
	}
	return items
}

// regexCold counts the vocabulary terms of a digest that match; each term
// is one haystack (see regexspan.go). may reports, for a pattern that
// spans tokens, whether the vocabulary leaves the session possible: it
// holds every string the pattern needs inside a token. ok is false when
// the run stopped before the vocabulary's end without a match.
func (s *Searcher) regexCold(ci int) (n int, may, ok bool) {
	run := s.regexRun()
	span := s.regexSpan()
	var held []bool
	if !span.local {
		held = make([]bool, len(span.needs))
	}
	voc := s.Cold[ci].View.Vocabulary
	size, termAt := voc.Len(), func(i int) string { return string(voc.Term(i)) }
	if voc.InLexicon() {
		// It holds a term at least: a stopped run ends at the first,
		// and the lexicon need not be read for it.
		if run.Stopped() {
			return 0, false, false
		}
		terms, ok := s.lexTerms(ci)
		if !ok {
			s.Fail(s.Cold[ci].Rec)
			return 0, false, false
		}
		size, termAt = len(terms), func(i int) string { return terms[i] }
	}
	for i := 0; i < size; i++ {
		if run.Stopped() {
			return n, false, n > 0
		}
		term := termAt(i)
		matched, ok := run.Add(term)
		if !ok {
			return n, false, n > 0
		}
		if matched {
			n++
		}
		for j, need := range span.needs {
			held[j] = held[j] || strings.Contains(term, need)
		}
	}
	return n, !span.local && !slices.Contains(held, false), true
}

// regexSpan analyses the query's pattern once.
func (s *Searcher) regexSpan() *regexSpan {
	if s.rspan == nil {
		sp := spanOf(s.plan.Regex.Expr())
		s.rspan = &sp
	}
	return s.rspan
}

// regexFinish records the run's coverage.
func (s *Searcher) regexFinish() {
	if s.rrun == nil {
		return
	}
	out := s.rrun.Result()
	for _, r := range out.Reasons {
		s.Reasons.Add(r)
	}
	if out.Error != nil {
		s.QueryErr = out.Error
	}
}

// anchorBudget bounds the snippet anchoring of one page's regex hits.
const anchorBudget = 100 * time.Millisecond

// RegexAnchor is where a regex hit's snippet starts in text: its first
// match, or the text's head past the page's anchoring budget.
func (s *Searcher) RegexAnchor(text string) int {
	if s.plan.Regex == nil {
		return 0
	}
	if s.anchorCtx == nil {
		parent := s.ctx
		if parent == nil {
			parent = context.Background()
		}
		s.anchorCtx, s.anchorCancel = context.WithTimeout(parent, anchorBudget)
	}
	// Past the budget a snippet starts at the text's head instead.
	start, _, ok := s.plan.Regex.FirstMatchContext(s.anchorCtx, text)
	if !ok {
		return 0
	}
	return start
}
