package search

import (
	"context"

	"github.com/memidx/memidx/internal/coverage"
	"github.com/memidx/memidx/internal/hotbm25"
	"github.com/memidx/memidx/internal/index"
)

// Query is one recall as search ranks it: a plan, its filters, and the
// page it asks for.
type Query struct {
	Plan    Plan
	Filters Filters
	// Offset and PageSize are the page: the first Offset+PageSize items
	// are ranked in order, and the page's entries read.
	Offset, PageSize int
	// Unsearched: the query cannot run (an invalid pattern); only the
	// records are refreshed, for the answer's coverage.
	Unsearched bool
	// Single: the scope is one session, read from source when the index
	// holds it cold. Its record must hold Expect, or nothing is ranked.
	Single bool
	Expect Expect
	// Range, when set, is the entry range searched of the one session.
	Range *Range
	// Context is how many entries after each entry hit are read with it.
	Context int
	// Docs keeps the cold records' doc index between searches (may be
	// nil); NoLexicon: see Searcher.NoLexicon.
	Docs      *DocMemo
	NoLexicon bool
}

// Range is an inclusive range of entry indices.
type Range struct{ First, Last int }

// Expect is what a single-session query expects of the session's
// record, when not empty: the source hash and lineage fingerprint a
// pointer was issued for.
type Expect struct {
	SourceHash, LineageFingerprint string
}

// heldBy reports whether rec is the session q expects, with the entries
// of its range.
func (q *Query) heldBy(rec *index.Record) bool {
	x := &q.Expect
	switch {
	case x.LineageFingerprint != "" && !rec.LineageFingerprint().Is(x.LineageFingerprint):
		return false
	case x.SourceHash != "" && !rec.SourceHash.Is(x.SourceHash):
		return false
	}
	return q.Range == nil || q.Range.Last < int(rec.EntryCount)
}

// Page is what a recall's page needs of its last try: the coverage, the
// ranked total and the page's hits with their entries read.
type Page struct {
	// Coverage is the view's, after any session read again.
	Coverage index.Coverage
	// One is the record of the scope's one session (nil for several, or
	// none).
	One *index.Record
	// SingleErr is why a single session could not be read from its
	// source (it wraps index.ErrSourceUnavailable); nothing was ranked.
	SingleErr error
	// Stopped: a single session's record is gone or not the one Expect
	// names; nothing was ranked.
	Stopped bool
	Total   int
	Hits    []PageHit
	// Measured: the plan measures query coverage (PageHit.QueryCoverage).
	Measured bool
	Reasons  []string
	QueryErr *coverage.Error
	// LexiconRuns counts the tries of the recall the archive lexicon
	// answered in.
	LexiconRuns int
}

// PageHit is one hit of the page: an entry of a hot (or hydrated)
// session, or a cold session.
type PageHit struct {
	Entry bool
	Rec   *index.Record
	// Tier is the source's ("hot", or "cold" for a hydrated session).
	Tier  index.Tier
	Score float64
	// An entry's index, stored entry, snippet anchor (a byte offset in
	// its text) and the entries after it (Query.Context).
	Index   int
	Stored  hotbm25.Stored
	Anchor  int
	Context []ContextEntry
	// A cold session's matched terms and structural entries.
	Matched, MatchedS int
	// QueryCoverage is the hit's coverage of the query, when measured.
	QueryCoverage *float64
}

// ContextEntry is an entry shown after an entry hit.
type ContextEntry struct {
	Index  int
	Stored hotbm25.Stored
}

// recall is one recall's ranking, run in each try of index.Acquire.
type recall struct {
	ctx         context.Context
	q           *Query
	page        *Page
	lexiconRuns int
}

// Recall acquires need's view of the index (index.Acquire, with every
// recovery inside it), ranks q over it and reads the page's hits. It
// returns the last try's page (nil when no try got as far as ranking),
// the reasons of the recovery steps taken, and the last try's error.
func Recall(ctx context.Context, ix *index.Index, need index.Need, q Query) (*Page, []string, error) {
	r := &recall{ctx: ctx, q: &q}
	need.Single = q.Single
	need.RecordsOnly = q.Unsearched
	_, reasons, err := ix.Acquire(ctx, need, r.rank)
	if r.page != nil {
		r.page.LexiconRuns = r.lexiconRuns
	}
	return r.page, reasons, err
}

// rank is one try: it makes every state of v a source, checks a single
// session against Expect, ranks, and reads the page's hits. Damaged tier
// data it meets is left out of the page and reported to v.
func (r *recall) rank(v *index.View) error {
	q := r.q
	if q.Unsearched {
		r.page = &Page{Coverage: v.Coverage()}
		return nil
	}
	if err := v.SingleErr(); err != nil {
		r.page = &Page{SingleErr: err}
		return nil
	}
	s := New(r.ctx, q.Plan, q.Filters, q.Docs)
	s.NoLexicon = q.NoLexicon
	defer s.Release()
	s.Open(v)
	p := &Page{}
	if v.Len() == 1 {
		p.One = v.Record(0)
	}
	if q.Single && (p.One == nil || !q.heldBy(p.One)) {
		r.page = &Page{One: p.One, Stopped: true}
		r.report(v, s)
		return nil
	}
	// Keep the sources in scope order (newest first), whatever order the
	// index walk found them in.
	SortByState(v, s.Cold)
	if q.Range != nil && len(s.Hot) == 1 {
		s.Hot[0].First, s.Hot[0].Last = q.Range.First, q.Range.Last
	}
	items, total := s.Run(q.Offset + q.PageSize)
	p.Total = total
	r.readHits(v.Reader(), s, items, p)
	s.CheckSources()
	if s.LexiconAnswered {
		r.lexiconRuns++
	}
	p.Coverage = v.Coverage()
	p.Reasons, p.QueryErr = s.Reasons.Reasons(), s.QueryErr
	r.page = p
	r.report(v, s)
	return nil
}

// report tells v what s found damaged.
func (r *recall) report(v *index.View, s *Searcher) {
	v.Damaged(s.Broken...)
	if s.LexDamaged {
		v.LexiconDamaged()
	}
}

// readHits reads the page's items (from Offset, at most PageSize) into
// p's hits. An entry whose shard data turns out damaged is left out, and
// its session failed, so that the next refresh rebuilds it.
func (r *recall) readHits(rd *index.Reader, s *Searcher, items []Item, p *Page) {
	q := r.q
	if q.Offset > p.Total {
		return
	}
	end := min(q.Offset+q.PageSize, p.Total)
	p.Hits = make([]PageHit, 0, end-q.Offset)
	terms := q.Plan.TokenMatcher()
	qc, measured := s.Coverage()
	p.Measured = measured
	for i := q.Offset; i < end; i++ {
		it := &items[i]
		if !it.Entry {
			// A session the lexicon settled has a partial record in a
			// one-shot call: only a hit needs the rest.
			if err := rd.Complete(s.Cold[it.Src].Rec); err != nil {
				s.Fail(s.Cold[it.Src].Rec)
				continue
			}
			p.Hits = append(p.Hits, sessionHit(s, it, qc, measured))
			continue
		}
		h, err := r.entryHit(s, it, terms, qc)
		if err != nil {
			s.Fail(s.Hot[it.Src].Rec)
			continue
		}
		p.Hits = append(p.Hits, h)
	}
}

// entryHit reads an entry item: its stored entry, coverage, snippet
// anchor and context.
func (r *recall) entryHit(s *Searcher, it *Item, terms func(tok string) bool, qc *Coverage) (PageHit, error) {
	src := &s.Hot[it.Src]
	st, err := src.Shard.Entry(it.Index)
	if err != nil {
		return PageHit{}, err
	}
	h := PageHit{Entry: true, Rec: src.Rec, Tier: src.Tier, Score: it.Score, Index: it.Index, Stored: st}
	if qc != nil {
		c := qc.Entry(st.IndexText())
		h.QueryCoverage = &c
	}
	switch r.q.Plan.Kind {
	case PlanTerms, PlanPhrase:
		h.Anchor = anchorOf(st.Text, terms)
	case PlanRegex:
		h.Anchor = s.RegexAnchor(st.Text)
	}
	if n := r.q.Context; n > 0 {
		if h.Context, err = nextContext(src, it.Index, n); err != nil {
			return PageHit{}, err
		}
	}
	return h, nil
}

// nextContext is up to n entries of src after entry i (within its entry
// range).
func nextContext(src *HotSource, i, n int) ([]ContextEntry, error) {
	out := []ContextEntry{}
	for j := i + 1; j <= i+n && j < src.Shard.Len() && (src.First < 0 || j <= src.Last); j++ {
		st, err := src.Shard.Entry(j)
		if err != nil {
			return nil, err
		}
		out = append(out, ContextEntry{Index: j, Stored: st})
	}
	return out, nil
}

// sessionHit is a cold session item.
func sessionHit(s *Searcher, it *Item, qc *Coverage, measured bool) PageHit {
	h := PageHit{Rec: s.Cold[it.Src].Rec, Tier: index.Cold, Score: it.Score, Matched: it.Matched, MatchedS: it.MatchedS}
	if measured {
		c := qc.Session(it)
		h.QueryCoverage = &c
	}
	return h
}
