package engine

import (
	"context"
	"math"
	"slices"
	"sort"

	"github.com/memidx/memidx/analyzer"
	"github.com/memidx/memidx/coldvocab"
	"github.com/memidx/memidx/coverage"
	"github.com/memidx/memidx/hotbm25"
	"github.com/memidx/memidx/index"
	"github.com/memidx/memidx/regexiso"
)

// Per-call candidate budgets.
const (
	MaxEntryCandidates  = 50000
	MaxDigestCandidates = 10000
	MaxRankedItems      = 10000
)

// BM25 parameters.
const (
	k1 = 1.2
	b  = 0.75
)

// planKind is what a query asks for.
type planKind int

const (
	planBrowse planKind = iota
	planTerms
	planPhrase
	planRegex
)

type plan struct {
	kind  planKind
	terms []string // unique canonical terms, first-seen order
	all   bool     // literal queryMatch "all"
	// phrase holds the phrase's tokens in order (with repeats).
	phrase []string
	regex  regexMatcher
}

// filters are the exact structural filters of a request, resolved once
// per call.
type filters struct {
	// keys are the structural dictionary keys every matching entry must
	// carry.
	keys []string
	// operational reports a tool/ref/provider/action/outcome filter: then
	// every entry weighs 1, because the caller asked for operations.
	operational  bool
	since, until *float64
}

func (f *filters) any() bool {
	return len(f.keys) > 0 || f.since != nil || f.until != nil
}

// carriers marks the entries, of n, that carry every filter key (all of
// them when there are no keys). postings visits the entries of one key.
func (f *filters) carriers(n int, postings func(key string, visit func(e int))) []bool {
	ok := make([]bool, n)
	if len(f.keys) == 0 {
		for i := range ok {
			ok[i] = true
		}
		return ok
	}
	count := make([]uint8, n)
	for _, k := range f.keys {
		postings(k, func(e int) { count[e]++ })
	}
	for i := range ok {
		ok[i] = int(count[i]) == len(f.keys)
	}
	return ok
}

// timeOK applies since/until (inclusive, epoch ms). An entry without a
// timestamp does not pass a time filter: nothing says it is in the window.
func (f *filters) timeOK(ts float64, ok bool) bool {
	if f.since == nil && f.until == nil {
		return true
	}
	if !ok {
		return false
	}
	return (f.since == nil || ts >= *f.since) && (f.until == nil || ts <= *f.until)
}

// hotSource is one hot (or hydrated) session.
type hotSource struct {
	rec   *index.Record
	shard hotbm25.Shard
	// tier is what hits report: "hot", or "cold" for a hydrated session.
	tier string
	// rng restricts the session to an inclusive entry range (-1: none).
	first, last int
	// lacks marks the plan's terms (bit t, t < 64) the archive lexicon
	// proved the shard does not hold: their postings are not looked up.
	lacks uint64
}

// postings returns the source's postings of the plan's term ti (t):
// none, without a dictionary lookup, when the lexicon proved it lacks it.
func (h *hotSource) postings(ti int, t string) hotbm25.Postings {
	if ti < 64 && h.lacks&(1<<ti) != 0 {
		return hotbm25.Postings{}
	}
	return h.shard.Postings(t)
}

type coldSource struct {
	rec  *index.Record
	view coldvocab.View
	// has, when set, says which of the plan's terms the session holds,
	// from the archive lexicon: view is then not opened.
	has []bool
}

// item is one ranked candidate: an entry of a hot source or a cold session.
type item struct {
	score    float64
	mtime    int64
	entry    bool
	src      int // index into hot or cold sources
	index    int
	matched  int // cold: matched terms
	matchedS int // cold: entries passing the structural filters
	file     string
}

// less orders the stream: score desc, session mtime desc, entries before
// sessions, entry index asc, file asc.
func less(a, b *item) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	if a.mtime != b.mtime {
		return a.mtime > b.mtime
	}
	if a.entry != b.entry {
		return a.entry
	}
	if a.index != b.index {
		return a.index < b.index
	}
	return a.file < b.file
}

// searcher ranks one query over hot and cold sources.
type searcher struct {
	ctx          context.Context
	docs         *docMemo // the engine's, when it has one
	rrun         *regexiso.Run
	anchorCtx    context.Context
	anchorCancel context.CancelFunc
	plan         plan
	filt         filters
	hot          []hotSource
	cold         []coldSource
	reasons      coverage.Set
	qerr         *coverage.Error

	// acc, hits and touched are per-shard scratch for term scoring.
	acc     []float64
	hits    []uint16
	touched []uint32

	// lexDamaged: the archive lexicon turned out damaged.
	lexDamaged bool
	// broken are records whose tier data turned out damaged.
	broken []*index.Record

	// openHas are the terms that the lexicon found in each cold record
	// whose digest it left to be opened.
	openHas map[*index.Record][]bool
	// coldHas[i*len(terms)+t] records that cold source i holds term t.
	coldHas []bool
	// unopened are the cold sessions the archive lexicon ruled out or
	// settled: they are no sources (yet), but count in the corpus
	// statistics, so that a score does not depend on how a session was
	// looked at. settled are the candidates among them.
	unopened    unopened
	settled     *settled
	unopenedHot unopenedHot
	lex         lexLookup

	n     float64 // entries in the corpus (hot entries + cold entry counts)
	avgdl float64
	df    map[string]float64
	// hotPostings is the number of hot postings of the query's terms: a
	// bound on the hot items, so that their slice is allocated once.
	hotPostings int
	// hotLists holds the cursors stats looked up: term ti's postings in
	// hot source i at ti*len(hot)+i, for searchHotTop to read.
	hotLists []hotbm25.Postings
}

// idf is Lucene's never-negative BM25 idf.
func (s *searcher) idf(term string) float64 {
	df := s.df[term]
	return math.Log(1 + (s.n-df+0.5)/(df+0.5))
}

// stats computes corpus statistics over every source of the scope, before
// filters, so that a filter or a page never changes a score.
func (s *searcher) stats(terms []string) {
	var entries, sumLen float64
	for i := range s.hot {
		entries += float64(s.hot[i].shard.Len())
		sumLen += float64(s.hot[i].rec.SumLen)
	}
	entries += s.unopenedHot.entries
	sumLen += s.unopenedHot.sumLen
	hotEntries := entries
	for i := range s.cold {
		entries += float64(s.cold[i].rec.EntryCount)
	}
	entries += s.unopened.entries
	s.n = math.Max(entries, 1)
	s.avgdl = 1
	if hotEntries > 0 {
		s.avgdl = math.Max(sumLen/hotEntries, 1)
	}
	s.df = make(map[string]float64, len(terms))
	// Which cold session holds which term is looked up once, here, and
	// reused by searchCold.
	s.coldHas = make([]bool, len(s.cold)*len(terms))
	for ti, t := range terms {
		var df float64
		for i := range s.hot {
			p := s.hot[i].postings(ti, t)
			s.hotLists = append(s.hotLists, p)
			c := p.Count()
			df += float64(c)
			s.hotPostings += c
		}
		for i := range s.cold {
			c := &s.cold[i]
			if (c.has != nil && c.has[ti]) || (c.has == nil && c.view.HasTerm(t)) {
				s.coldHas[i*len(terms)+ti] = true
				df++
			}
		}
		if ti < len(s.unopened.df) {
			df += s.unopened.df[ti]
		}
		s.df[t] = df
	}
}

// candidates returns the entries of src that pass the structural and range
// filters as a bitmap, or nil when every entry passes.
func (s *searcher) candidates(src *hotSource) []bool {
	rng := src.first >= 0
	if len(s.filt.keys) == 0 && !rng && s.filt.since == nil && s.filt.until == nil {
		return nil
	}
	n := src.shard.Len()
	ok := s.filt.carriers(n, func(k string, visit func(int)) {
		p := src.shard.Postings(k)
		for {
			e, _, more := p.Next()
			if !more {
				return
			}
			visit(int(e))
		}
	})
	for i := range ok {
		if !ok[i] {
			continue
		}
		if rng && (i < src.first || i > src.last) {
			ok[i] = false
			continue
		}
		ts, has := src.shard.Timestamp(i)
		ok[i] = s.filt.timeOK(ts, has)
	}
	return ok
}

func (s *searcher) weight(src *hotSource, e int) float64 {
	if s.filt.operational {
		return 1
	}
	return float64(src.shard.Weight(e))
}

// bm25 scores one posting.
func (s *searcher) bm25(idf float64, tf uint32, dl uint32) float64 {
	f := float64(tf)
	return idf * f * (k1 + 1) / (f + k1*(1-b+b*float64(dl)/s.avgdl))
}

// accumulate adds the BM25 of every posting of the plan's terms in src
// that keep passes into the shard scratch: acc[e] sums the terms in query
// order (so that every path's scores agree to the bit), hits[e] counts
// them, and s.touched lists the entries met. The caller resets acc and
// hits at the touched entries for the next shard.
func (s *searcher) accumulate(src *hotSource, keep func(e int) bool) (acc []float64, hits []uint16) {
	n := src.shard.Len()
	if cap(s.acc) < n {
		s.acc = make([]float64, n)
		s.hits = make([]uint16, n)
	}
	acc, hits = s.acc[:n], s.hits[:n]
	touched := s.touched[:0]
	for ti, t := range s.plan.terms {
		idf := s.idf(t)
		p := src.postings(ti, t)
		for {
			e, tf, more := p.Next()
			if !more {
				break
			}
			if !keep(int(e)) {
				continue
			}
			if hits[e] == 0 {
				touched = append(touched, e)
			}
			acc[e] += s.bm25(idf, tf, src.shard.DocLen(int(e)))
			hits[e]++
		}
		if p.Err() != nil {
			s.fail(src.rec)
		}
	}
	s.touched = touched
	return acc, hits
}

// searchHot ranks the hot entries.
func (s *searcher) searchHot() []item {
	// One allocation for term and phrase queries, bounded by their hot
	// postings: a broad query has items in every shard, and growing the
	// slice shard by shard copied it over and over (most of a
	// two-common-term query's time).
	bound := 0
	if s.plan.kind == planTerms || s.plan.kind == planPhrase {
		for i := range s.hot {
			bound += s.hot[i].shard.Len()
		}
		bound = min(bound, s.hotPostings)
	}
	items := make([]item, 0, bound)
	for si := range s.hot {
		src := &s.hot[si]
		cand := s.candidates(src)
		pass := func(e int) bool { return cand == nil || cand[e] }
		mtime := src.rec.Identity.MtimeNs
		file := src.rec.Path
		switch s.plan.kind {
		case planBrowse:
			score := 0.0
			if s.filt.any() {
				score = 1
			}
			for e := 0; e < src.shard.Len(); e++ {
				if pass(e) {
					items = append(items, item{score: score, mtime: mtime, entry: true, src: si, index: e, file: file})
				}
			}
		case planTerms, planPhrase:
			terms := s.plan.terms
			acc, hits := s.accumulate(src, pass)
			touched := s.touched
			items = slices.Grow(items, len(touched))
			for _, e := range touched {
				sc, m := acc[e], int(hits[e])
				acc[e], hits[e] = 0, 0 // reset for the next shard
				if (s.plan.all || s.plan.kind == planPhrase) && m != len(terms) {
					continue
				}
				if s.plan.kind == planPhrase && !s.phraseIn(src, int(e)) {
					continue
				}
				items = append(items, item{score: sc * s.weight(src, int(e)), mtime: mtime, entry: true, src: si, index: int(e), file: file})
			}
		case planRegex:
			items = append(items, s.regexHot(si, src, pass)...)
		}
	}
	return s.bound(items, entryBudget, coverage.CandidateEntryBudget)
}

// add takes a session read into memory as a hot or a cold source (at most
// one is set); it reports whether there was one.
func (s *searcher) add(h *hotSource, c *coldSource) bool {
	switch {
	case h != nil:
		s.hot = append(s.hot, *h)
	case c != nil:
		s.cold = append(s.cold, *c)
	default:
		return false
	}
	return true
}

// fail records that rec's tier data turned out damaged: the answer says
// index_error, and the data is dropped so that it is rebuilt.
func (s *searcher) fail(rec *index.Record) {
	s.reasons.Add(coverage.IndexError)
	s.broken = append(s.broken, rec)
}

// checkSources marks every source whose reads met damaged bytes (a failed
// block checksum) as broken: what the page took from it may be wrong.
func (s *searcher) checkSources() {
	for i := range s.hot {
		if s.hot[i].shard.Err() != nil {
			s.fail(s.hot[i].rec)
		}
	}
	for i := range s.cold {
		if s.cold[i].view.Err() != nil {
			s.fail(s.cold[i].rec)
		}
	}
}

// bound rounds the scores and keeps the best limit items, saying reason
// when it drops any.
func (s *searcher) bound(items []item, limit int, reason string) []item {
	roundScores(items)
	if len(items) > limit {
		partitionTop(items, limit)
		items = items[:limit]
		s.reasons.Add(reason)
	}
	return items
}

// phraseIn verifies that the phrase's tokens occur contiguously in the
// entry's hot text (its IndexText, which the terms came from, so a phrase
// in tool-call arguments past the display cut is found): case-insensitive
// after NFKC, on token boundaries, with any punctuation or whitespace
// between tokens.
func (s *searcher) phraseIn(src *hotSource, e int) bool {
	st, err := src.shard.Entry(e)
	if err != nil {
		s.fail(src.rec)
		return false
	}
	return containsSeq(analyzer.Tokens(st.IndexText()), s.plan.phrase)
}

func containsSeq(toks, seq []string) bool {
	if len(seq) == 0 {
		return false
	}
outer:
	for i := 0; i+len(seq) <= len(toks); i++ {
		for j := range seq {
			if toks[i+j] != seq[j] {
				continue outer
			}
		}
		return true
	}
	return false
}

// coldStructural counts the entries of a digest that pass the filters, and
// reports whether the filters could be evaluated at all.
func (s *searcher) coldStructural(c *coldSource) int {
	st := c.view.Structural()
	n := st.Count()
	ok := s.filt.carriers(n, func(k string, visit func(int)) {
		for _, e := range st.Entries(k) {
			if int(e) < n {
				visit(int(e))
			}
		}
	})
	matched := 0
	for i := range ok {
		if ok[i] {
			ts, has := st.Timestamp(i)
			if s.filt.timeOK(ts, has) {
				matched++
			}
		}
	}
	return matched
}

// coldItem is the item of cold session rec, source src.
func coldItem(rec *index.Record, src int) item {
	return item{mtime: rec.Identity.MtimeNs, src: src, file: rec.Path, index: -1}
}

// scoreHeld scores a cold session that holds the plan's terms marked in
// has: the score an average-length entry holding each matched term once
// would get, weight 1 (the same scale as hot BM25).
func (s *searcher) scoreHeld(it *item, has []bool) {
	for t, h := range has {
		if h {
			it.matched++
			it.score += s.idf(s.plan.terms[t])
		}
	}
}

// searchCold ranks cold sessions as candidates: it returns those that can
// reach a page of need items, and how many the budget retains.
func (s *searcher) searchCold(need int) ([]item, int) {
	var items []item
	hasFilters := s.filt.any()
	for ci := range s.cold {
		c := &s.cold[ci]
		it := coldItem(c.rec, ci)
		if hasFilters {
			it.matchedS = s.coldStructural(c)
			if it.matchedS == 0 {
				continue
			}
		}
		switch s.plan.kind {
		case planBrowse:
			if hasFilters {
				it.score = 1
			}
		case planTerms, planPhrase:
			nt := len(s.plan.terms)
			s.scoreHeld(&it, s.coldHas[ci*nt:(ci+1)*nt])
			if it.matched == 0 || ((s.plan.all || s.plan.kind == planPhrase) && it.matched != len(s.plan.terms)) {
				continue
			}
		case planRegex:
			m, ok := s.regexCold(c)
			if !ok || m == 0 {
				continue
			}
			it.matched = m
			it.score = 1
		}
		items = append(items, it)
	}
	settled, count := s.settled.top(s, need)
	items = append(items, settled...)
	count += len(items) - len(settled)
	if count > 0 && s.plan.kind != planBrowse {
		if hasFilters {
			s.reasons.Add(coverage.ColdStructuralFilterRequiresHydration)
		}
		if s.plan.kind == planTerms && s.plan.all && len(s.plan.terms) > 1 {
			s.reasons.Add(coverage.ColdAllTermsRequiresHydration)
		}
		if s.plan.kind == planPhrase && len(s.plan.phrase) > 1 {
			s.reasons.Add(coverage.ColdPhraseRequiresHydration)
		}
	}
	items = s.bound(items, MaxDigestCandidates, coverage.CandidateDigestBudget)
	if count > MaxDigestCandidates {
		count = MaxDigestCandidates
		s.reasons.Add(coverage.CandidateDigestBudget)
	}
	return items, count
}

// run ranks one mixed stream and returns it with the first need items in
// order (those a page shows; the rest are retained but not sorted: a full
// sort of every candidate would dominate a broad query) and the retained
// total.
func (s *searcher) run(need int) ([]item, int) {
	if s.plan.kind == planTerms || s.plan.kind == planPhrase {
		s.stats(s.plan.terms)
	}
	var items []item
	hotCount := 0
	if s.useTopK(need) {
		items, hotCount = s.searchHotTop(need)
	} else {
		items = s.searchHot()
		hotCount = len(items)
	}
	cold, coldCount := s.searchCold(need)
	items = append(items, cold...)
	s.regexFinish()
	// The total counts what the budgets retain; with the top-k path items
	// holds only the hot items that can reach the page, which are the
	// best of what the budgets retain since need is within them.
	total := hotCount + coldCount
	if total > itemBudget {
		total = itemBudget
		s.reasons.Add(coverage.CandidateItemBudget)
	}
	if len(items) > itemBudget {
		partitionTop(items, itemBudget)
		items = items[:itemBudget]
	}
	selectTop(items, need)
	return items, total
}

func roundScores(items []item) {
	for i := range items {
		items[i].score = round6(items[i].score)
	}
}

// selectTop puts the k best items (by less) first, in order; the others
// follow in no particular order. It costs O(n + k log k).
func selectTop(items []item, k int) {
	if k > len(items) {
		k = len(items)
	}
	if k <= 0 {
		return
	}
	partitionTop(items, k)
	top := items[:k]
	sort.Slice(top, func(i, j int) bool { return less(&top[i], &top[j]) })
}

// partitionTop puts the k best items first, in no particular order, in
// O(n) on average (quickselect).
func partitionTop(items []item, k int) {
	if k > 0 && k < len(items) {
		lo, hi := 0, len(items)-1
		for lo < hi {
			p := partition(items, lo, hi)
			switch {
			case p == k-1:
				lo = hi // done
			case p < k-1:
				lo = p + 1
			default:
				hi = p - 1
			}
		}
	}
}

// partition orders items[lo..hi] around a median-of-three pivot and
// returns the pivot's final position: better items before it.
func partition(a []item, lo, hi int) int {
	mid := lo + (hi-lo)/2
	if less(&a[mid], &a[lo]) {
		a[mid], a[lo] = a[lo], a[mid]
	}
	if less(&a[hi], &a[lo]) {
		a[hi], a[lo] = a[lo], a[hi]
	}
	if less(&a[mid], &a[hi]) {
		a[mid], a[hi] = a[hi], a[mid]
	}
	pivot := a[hi]
	i := lo
	for j := lo; j < hi; j++ {
		if less(&a[j], &pivot) {
			a[i], a[j] = a[j], a[i]
			i++
		}
	}
	a[i], a[hi] = a[hi], a[i]
	return i
}

func round6(f float64) float64 { return math.Round(f*1e6) / 1e6 }
