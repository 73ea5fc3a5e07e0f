package engine

import (
	"context"
	"time"

	"github.com/memidx/memidx/coverage"
	"github.com/memidx/memidx/regexiso"
)

// regexMatcher is a compiled, bounded pattern.
type regexMatcher = *regexiso.Regexp

func (e *Engine) regexLimits() regexiso.Limits {
	return regexiso.Limits{
		MaxPatternBytes:  e.cfg.RegexMaxPatternBytes,
		MaxHaystackItems: e.cfg.RegexMaxHaystackTerms,
		MaxHaystackBytes: e.cfg.RegexMaxHaystackBytes,
		Timeout:          time.Duration(e.cfg.RegexTimeoutMs) * time.Millisecond,
	}
}

func (e *Engine) compileRegex(pattern string) (regexMatcher, *coverage.Error) {
	return regexiso.Compile(pattern, e.regexLimits())
}

// regexRun is the one bounded run a query shares across its haystacks: hot
// entry texts first (newest session first, entry order), then cold
// vocabulary terms, until a limit stops it.
func (s *searcher) regexRun() *regexiso.Run {
	if s.rrun == nil {
		ctx := s.ctx
		if ctx == nil {
			ctx = context.Background()
		}
		s.rrun = s.plan.regex.NewRun(ctx)
	}
	return s.rrun
}

// regexHot scores the filter-matching entries whose hot text matches.
func (s *searcher) regexHot(si int, src *hotSource, pass func(int) bool) []item {
	run := s.regexRun()
	var items []item
	for e := 0; e < src.shard.Len(); e++ {
		if run.Stopped() {
			break
		}
		if !pass(e) {
			continue
		}
		st, err := src.shard.Entry(e)
		if err != nil {
			s.fail(src.rec)
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
			items = append(items, item{score: s.weight(src, e), mtime: src.rec.Identity.MtimeNs, entry: true, src: si, index: e, file: src.rec.Path})
		}
	}
	return items
}

// regexCold counts the vocabulary terms of a digest that match; each term
// is one haystack, so a pattern spanning words cannot match a cold
// session (its exact entries are one follow away).
func (s *searcher) regexCold(c *coldSource) (int, bool) {
	run := s.regexRun()
	n := 0
	voc := c.view.Vocabulary
	for i := 0; i < voc.Len(); i++ {
		if run.Stopped() {
			return n, n > 0
		}
		matched, ok := run.Add(string(voc.Term(i)))
		if !ok {
			return n, n > 0
		}
		if matched {
			n++
		}
	}
	return n, true
}

// regexFinish records the run's coverage.
func (s *searcher) regexFinish() {
	if s.rrun == nil {
		return
	}
	out := s.rrun.Result()
	for _, r := range out.Reasons {
		s.reasons.Add(r)
	}
	if out.Error != nil {
		s.qerr = out.Error
	}
}

// anchorBudget bounds the snippet anchoring of one page's regex hits.
const anchorBudget = 100 * time.Millisecond

func (s *searcher) regexAnchor(text string) int {
	if s.plan.regex == nil {
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
	start, _, ok := s.plan.regex.FirstMatchContext(s.anchorCtx, text)
	if !ok {
		return 0
	}
	return start
}
