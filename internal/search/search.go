package search

import (
	"context"
	"math"
	"slices"
	"sort"
	"sync"

	"github.com/memidx/memidx/internal/analyzer"
	"github.com/memidx/memidx/internal/coldvocab"
	"github.com/memidx/memidx/internal/coverage"
	"github.com/memidx/memidx/internal/hotbm25"
	"github.com/memidx/memidx/internal/index"
	"github.com/memidx/memidx/internal/regexiso"
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

// PlanKind is what a query asks for.
type PlanKind int

const (
	PlanBrowse PlanKind = iota
	PlanTerms
	PlanPhrase
	PlanRegex
)

// Plan is a query, parsed: its kind and canonical terms.
type Plan struct {
	Kind  PlanKind
	Terms []string // unique canonical terms, first-seen order
	All   bool     // literal queryMatch "all"
	// Natural marks a natural-language plan: Terms are the canonical
	// terms less stop words, then from StemsFrom on their stems'
	// natural.Key, and Fields weigh the two. The stems are the query's
	// terms as queryCoverage and matchedTerms count them; in other plans
	// StemsFrom is 0 and every term counts.
	Natural   bool
	StemsFrom int
	// Fields, when set, holds each term's field: its weight and BM25 b
	// (natural mode scores a canonical and a stemmed field). Nil gives
	// every term weight 1 and b 0.75.
	Fields []Field
	// Phrase holds the phrase's tokens in order (with repeats).
	Phrase []string
	Regex  *regexiso.Regexp
}

// Field is how a term's matches count: its BM25 contribution is
// multiplied by Weight and length-normalised with B.
type Field struct{ Weight, B float64 }

// DefaultField is a literal term's field.
var DefaultField = Field{Weight: 1, B: b}

// field returns term ti's field.
func (p *Plan) field(ti int) Field {
	if p.Fields == nil {
		return DefaultField
	}
	return p.Fields[ti]
}

// Filters are the exact structural filters of a request, resolved once
// per call.
type Filters struct {
	// Keys are the structural dictionary keys every matching entry must
	// carry.
	Keys []string
	// Operational reports a tool/ref/provider/action/outcome filter: then
	// every entry weighs 1, because the caller asked for operations.
	Operational  bool
	Since, Until *float64
}

func (f *Filters) any() bool {
	return len(f.Keys) > 0 || f.Since != nil || f.Until != nil
}

// carriers marks the entries, of n, that carry every filter key (all of
// them when there are no keys). postings visits the entries of one key.
func (f *Filters) carriers(n int, postings func(key string, visit func(e int))) []bool {
	ok := make([]bool, n)
	if len(f.Keys) == 0 {
		for i := range ok {
			ok[i] = true
		}
		return ok
	}
	count := make([]uint8, n)
	for _, k := range f.Keys {
		postings(k, func(e int) { count[e]++ })
	}
	for i := range ok {
		ok[i] = int(count[i]) == len(f.Keys)
	}
	return ok
}

// timeOK applies since/until (inclusive, epoch ms). An entry without a
// timestamp does not pass a time filter: nothing says it is in the window.
func (f *Filters) timeOK(ts float64, ok bool) bool {
	if f.Since == nil && f.Until == nil {
		return true
	}
	if !ok {
		return false
	}
	return (f.Since == nil || ts >= *f.Since) && (f.Until == nil || ts <= *f.Until)
}

// HotSource is one hot (or hydrated) session.
type HotSource struct {
	Rec   *index.Record
	Shard hotbm25.Shard
	// Tier is what hits report: "hot", or "cold" for a hydrated session.
	Tier index.Tier
	// rng restricts the session to an inclusive entry range (-1: none).
	First, Last int
	// lacks marks the plan's terms (bit t, t < 64) the archive lexicon
	// proved the shard does not hold: their postings are not looked up.
	lacks uint64
}

// postings returns the source's postings of the plan's term ti (t):
// none, without a dictionary lookup, when the lexicon proved it lacks it.
func (h *HotSource) postings(ti int, t string) hotbm25.Postings {
	if ti < 64 && h.lacks&(1<<ti) != 0 {
		return hotbm25.Postings{}
	}
	return h.Shard.Postings(t)
}

// ColdSource is one cold session: its digest, or what the lexicon
// knows of it.
type ColdSource struct {
	Rec  *index.Record
	View coldvocab.View
	// Has, when set, says which of the plan's terms the session holds,
	// from the archive lexicon: View is then not opened.
	Has []bool
	// terms are the vocabulary of a stored digest, from the lexicon,
	// once a regex read them (lexTerms).
	terms []string
}

// Item is one ranked candidate: an entry of a hot source or a cold session.
type Item struct {
	Score    float64
	mtime    int64
	Entry    bool
	Src      int // index into hot or cold sources
	Index    int
	Matched  int     // cold: matched query terms (natural: stems)
	MatchedS int     // cold: entries passing the structural filters
	covered  float64 // cold: the idf mass of the query terms matched (see Coverage)
	file     string
}

// less orders the stream: score desc, session mtime desc, entries before
// sessions, entry index asc, file asc.
func less(a, b *Item) bool {
	if a.Score != b.Score {
		return a.Score > b.Score
	}
	if a.mtime != b.mtime {
		return a.mtime > b.mtime
	}
	if a.Entry != b.Entry {
		return a.Entry
	}
	if a.Index != b.Index {
		return a.Index < b.Index
	}
	return a.file < b.file
}

// Searcher ranks one query over hot and cold sources.
type Searcher struct {
	ctx          context.Context
	docs         *DocMemo // the engine's, when it has one
	rrun         *regexiso.Run
	rspan        *regexSpan
	anchorCtx    context.Context
	anchorCancel context.CancelFunc

	// NoLexicon makes the search open every cold digest and hot shard,
	// as without an archive lexicon (tests compare the answers).
	NoLexicon bool
	// LexiconAnswered reports that the archive lexicon answered for the
	// cold sessions.
	LexiconAnswered bool
	plan            Plan
	filt            Filters
	Hot             []HotSource
	Cold            []ColdSource
	Reasons         coverage.Set
	QueryErr        *coverage.Error

	// acc, hits and touched are per-shard scratch for term scoring.
	acc     []float64
	hits    []uint16
	touched []uint32

	// LexDamaged: the archive lexicon turned out damaged.
	LexDamaged bool
	// Broken are records whose tier data turned out damaged.
	Broken []*index.Record

	// openHas are the terms that the lexicon found in each cold record
	// whose digest it left to be opened.
	openHas map[*index.Record][]bool
	// termsBatch is how many sources' terms lexTerms read last;
	// mostTermsHeld the most terms one of its passes read.
	termsBatch, mostTermsHeld int
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
	// spare holds the search's scratch tables, from the pool and back to
	// it at Release (sourceBufs).
	spare scratch
}

// scratch are tables a search fills and drops within one call: the hot
// docs' held terms (hotTerms), the hot records (hotRecords) and the
// ranked items (Run; a page reads them before Release).
type scratch struct {
	held  map[uint32]uint64
	recs  []*index.Record
	items []Item
}

// New returns a search of plan with filt, under ctx (which bounds a regex
// run). docs, when not nil, keeps the cold records' doc index between
// searches of one Engine.
func New(ctx context.Context, plan Plan, filt Filters, docs *DocMemo) *Searcher {
	s := &Searcher{ctx: ctx, plan: plan, filt: filt, docs: docs}
	if b, ok := sourcePool.Get().(*sourceBufs); ok {
		s.Hot, s.Cold, s.hotLists, s.spare = b.hot, b.cold, b.lists, b.spare
	}
	return s
}

// sourceBufs are the slices a search fills with its sources and hot
// postings, kept for the next search (Release): at 100k sessions a
// server's two-term call grew 25 KB of them, a sixth of its garbage.
type sourceBufs struct {
	hot   []HotSource
	cold  []ColdSource
	lists []hotbm25.Postings
	spare scratch
}

var sourcePool sync.Pool

// maxPooledSources bounds the slices Release keeps: a search over a
// larger hot tier gives its own to the collector.
const maxPooledSources = 4096

// recycle puts s's source slices back in the pool (takeSources).
func (s *Searcher) recycle() {
	if b := s.takeSources(); b != nil {
		sourcePool.Put(b)
	}
}

// takeSources takes s's source slices, emptied to their capacity (they
// point into records and mapped tier data, which the pool must not
// keep); nil when they are over maxPooledSources.
func (s *Searcher) takeSources() *sourceBufs {
	defer func() { s.Hot, s.Cold, s.hotLists, s.spare = nil, nil, nil, scratch{} }()
	sp := &s.spare
	if cap(s.Hot) > maxPooledSources || cap(s.Cold) > maxPooledSources || cap(s.hotLists) > 4*maxPooledSources ||
		len(sp.held) > maxPooledSources || cap(sp.recs) > maxPooledSources {
		return nil
	}
	if cap(sp.items) > maxPooledSources {
		sp.items = nil // a broad query's: left to the collector alone
	}
	b := &sourceBufs{hot: s.Hot[:0], cold: s.Cold[:0], lists: s.hotLists[:0],
		spare: scratch{held: sp.held, recs: sp.recs[:0], items: sp.items[:0]}}
	clear(b.hot[:cap(b.hot)])
	clear(b.cold[:cap(b.cold)])
	clear(b.lists[:cap(b.lists)])
	clear(b.spare.held)
	clear(b.spare.recs[:cap(b.spare.recs)])
	clear(b.spare.items[:cap(b.spare.items)])
	return b
}

// Release returns what the search borrowed (pooled tables, a regex
// anchoring deadline); its sources and items must not be used after.
func (s *Searcher) Release() {
	if s.anchorCancel != nil {
		s.anchorCancel()
	}
	s.settled.release()
	s.lex.release()
	s.recycle()
}

// idf is Lucene's never-negative BM25 idf.
func (s *Searcher) idf(term string) float64 {
	df := s.df[term]
	return math.Log(1 + (s.n-df+0.5)/(df+0.5))
}

// stats computes corpus statistics over every source of the scope, before
// filters, so that a filter or a page never changes a score.
func (s *Searcher) stats(terms []string) {
	var entries, sumLen float64
	for i := range s.Hot {
		entries += float64(s.Hot[i].Shard.Len())
		sumLen += float64(s.Hot[i].Rec.SumLen)
	}
	entries += s.unopenedHot.entries
	sumLen += s.unopenedHot.sumLen
	hotEntries := entries
	for i := range s.Cold {
		entries += float64(s.Cold[i].Rec.EntryCount)
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
	s.coldHas = make([]bool, len(s.Cold)*len(terms))
	s.hotLists = slices.Grow(s.hotLists, len(terms)*len(s.Hot))
	for ti, t := range terms {
		var df float64
		for i := range s.Hot {
			p := s.Hot[i].postings(ti, t)
			s.hotLists = append(s.hotLists, p)
			c := p.Count()
			df += float64(c)
			s.hotPostings += c
		}
		for i := range s.Cold {
			c := &s.Cold[i]
			if (c.Has != nil && c.Has[ti]) || (c.Has == nil && c.View.HasTerm(t)) {
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
func (s *Searcher) candidates(src *HotSource) []bool {
	rng := src.First >= 0
	if len(s.filt.Keys) == 0 && !rng && s.filt.Since == nil && s.filt.Until == nil {
		return nil
	}
	n := src.Shard.Len()
	ok := s.filt.carriers(n, func(k string, visit func(int)) {
		p := src.Shard.Postings(k)
		for {
			e, _, more := p.Next()
			if !more {
				return
			}
			visit(int(e))
		}
	})
	cols := src.Shard.Columns() // not the Shard, which each call would copy
	for i := range ok {
		if !ok[i] {
			continue
		}
		if rng && (i < src.First || i > src.Last) {
			ok[i] = false
			continue
		}
		ts, has := cols.Timestamp(i)
		ok[i] = s.filt.timeOK(ts, has)
	}
	return ok
}

func (s *Searcher) weight(src *HotSource, e int) float64 {
	if s.filt.Operational {
		return 1
	}
	return float64(src.Shard.Columns().Weight(e))
}

// bm25 scores one posting of a term of idf (times its field's weight)
// whose field has BM25 b bf.
func (s *Searcher) bm25(idf float64, tf uint32, dl uint32, bf float64) float64 {
	f := float64(tf)
	return idf * f * (k1 + 1) / (f + k1*(1-bf+bf*float64(dl)/s.avgdl))
}

// termIDF is the plan's term ti's idf times its field's weight: what a
// match of it counts for.
func (s *Searcher) termIDF(ti int) float64 {
	return s.plan.field(ti).Weight * s.idf(s.plan.Terms[ti])
}

// accumulate adds the BM25 of every posting of the plan's terms in src
// that keep passes into the shard scratch: acc[e] sums the terms in query
// order (so that every path's scores agree to the bit), hits[e] counts
// them, and s.touched lists the entries met. The caller resets acc and
// hits at the touched entries for the next shard.
func (s *Searcher) accumulate(src *HotSource, keep func(e int) bool) (acc []float64, hits []uint16) {
	n := src.Shard.Len()
	if cap(s.acc) < n {
		s.acc = make([]float64, n)
		s.hits = make([]uint16, n)
	}
	acc, hits = s.acc[:n], s.hits[:n]
	touched := s.touched[:0]
	cols := src.Shard.Columns() // not the Shard, which each call would copy
	for ti, t := range s.plan.Terms {
		idf, bf := s.termIDF(ti), s.plan.field(ti).B
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
			acc[e] += s.bm25(idf, tf, cols.DocLen(int(e)), bf)
			hits[e]++
		}
		if p.Err() != nil {
			s.Fail(src.Rec)
		}
	}
	s.touched = touched
	return acc, hits
}

// searchHot ranks the hot entries.
func (s *Searcher) searchHot() []Item {
	// One allocation for term and phrase queries, bounded by their hot
	// postings: a broad query has items in every shard, and growing the
	// slice shard by shard copied it over and over (most of a
	// two-common-term query's time).
	bound := 0
	if s.plan.Kind == PlanTerms || s.plan.Kind == PlanPhrase {
		for i := range s.Hot {
			bound += s.Hot[i].Shard.Len()
		}
		bound = min(bound, s.hotPostings)
	}
	items := make([]Item, 0, bound)
	for si := range s.Hot {
		src := &s.Hot[si]
		cand := s.candidates(src)
		pass := func(e int) bool { return cand == nil || cand[e] }
		mtime := src.Rec.Identity.MtimeNs
		file := src.Rec.Path
		switch s.plan.Kind {
		case PlanBrowse:
			score := 0.0
			if s.filt.any() {
				score = 1
			}
			for e := 0; e < src.Shard.Len(); e++ {
				if pass(e) {
					items = append(items, Item{Score: score, mtime: mtime, Entry: true, Src: si, Index: e, file: file})
				}
			}
		case PlanTerms, PlanPhrase:
			terms := s.plan.Terms
			acc, hits := s.accumulate(src, pass)
			touched := s.touched
			items = slices.Grow(items, len(touched))
			for _, e := range touched {
				sc, m := acc[e], int(hits[e])
				acc[e], hits[e] = 0, 0 // reset for the next shard
				if (s.plan.All || s.plan.Kind == PlanPhrase) && m != len(terms) {
					continue
				}
				if s.plan.Kind == PlanPhrase && !s.phraseIn(src, int(e)) {
					continue
				}
				items = append(items, Item{Score: sc * s.weight(src, int(e)), mtime: mtime, Entry: true, Src: si, Index: int(e), file: file})
			}
		case PlanRegex:
			items = append(items, s.regexHot(si, src, pass)...)
		}
	}
	return s.bound(items, entryBudget, coverage.CandidateEntryBudget)
}

// Fail records that rec's tier data turned out damaged: the answer says
// index_error, and the data is dropped so that it is rebuilt.
func (s *Searcher) Fail(rec *index.Record) {
	s.Reasons.Add(coverage.IndexError)
	s.Broken = append(s.Broken, rec)
}

// CheckSources marks every source whose reads met damaged bytes (a failed
// block checksum) as broken: what the page took from it may be wrong.
func (s *Searcher) CheckSources() {
	for i := range s.Hot {
		if s.Hot[i].Shard.Err() != nil {
			s.Fail(s.Hot[i].Rec)
		}
	}
	for i := range s.Cold {
		if s.Cold[i].View.Err() != nil {
			s.Fail(s.Cold[i].Rec)
		}
	}
}

// bound rounds the scores and keeps the best limit items, saying reason
// when it drops any.
func (s *Searcher) bound(items []Item, limit int, reason string) []Item {
	roundScores(items)
	if len(items) > limit {
		partitionTop(items, limit)
		items = items[:limit]
		s.Reasons.Add(reason)
	}
	return items
}

// phraseIn verifies that the phrase's tokens occur contiguously in the
// entry's hot text (its IndexText, which the terms came from, so a phrase
// in tool-call arguments past the display cut is found): case-insensitive
// after NFKC, on token boundaries, with any punctuation or whitespace
// between tokens.
func (s *Searcher) phraseIn(src *HotSource, e int) bool {
	st, err := src.Shard.Entry(e)
	if err != nil {
		s.Fail(src.Rec)
		return false
	}
	return containsSeq(analyzer.Tokens(st.IndexText()), s.plan.Phrase)
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
func (s *Searcher) coldStructural(c *ColdSource) int {
	st := c.View.Structural()
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
func coldItem(rec *index.Record, src int) Item {
	return Item{mtime: rec.Identity.MtimeNs, Src: src, file: rec.Path, Index: -1}
}

// scoreHeld scores a cold session that holds the plan's terms marked in
// has: the score an average-length entry holding each matched term once
// would get, weight 1 (the same scale as hot BM25).
func (s *Searcher) scoreHeld(it *Item, has []bool) {
	for t, h := range has {
		if h {
			if t >= s.plan.StemsFrom {
				it.Matched++
				it.covered += s.idf(s.plan.Terms[t])
			}
			it.Score += s.termIDF(t)
		}
	}
}

// searchCold ranks cold sessions as candidates: it returns those that can
// reach a page of need items, and how many the budget retains.
func (s *Searcher) searchCold(need int) ([]Item, int) {
	var items []Item
	hasFilters := s.filt.any()
	for ci := range s.Cold {
		c := &s.Cold[ci]
		it := coldItem(c.Rec, ci)
		if hasFilters {
			it.MatchedS = s.coldStructural(c)
			if it.MatchedS == 0 {
				continue
			}
		}
		switch s.plan.Kind {
		case PlanBrowse:
			if hasFilters {
				it.Score = 1
			}
		case PlanTerms, PlanPhrase:
			nt := len(s.plan.Terms)
			s.scoreHeld(&it, s.coldHas[ci*nt:(ci+1)*nt])
			if it.Matched == 0 || ((s.plan.All || s.plan.Kind == PlanPhrase) && it.Matched != len(s.plan.Terms)) {
				continue
			}
		case PlanRegex:
			m, may, ok := s.regexCold(ci)
			if !ok || (m == 0 && !may) {
				continue
			}
			it.Matched = m
			it.Score = 1
			if m == 0 {
				// Possible, with no term to show for it: after those
				// that have one.
				it.Score = 0.5
			}
		}
		items = append(items, it)
	}
	unsettled := len(items)
	items, count := s.settled.top(s, need, items)
	count += unsettled
	if count > 0 && s.plan.Kind != PlanBrowse {
		if hasFilters {
			s.Reasons.Add(coverage.ColdStructuralFilterRequiresHydration)
		}
		if s.plan.Kind == PlanTerms && s.plan.All && len(s.plan.Terms) > 1 {
			s.Reasons.Add(coverage.ColdAllTermsRequiresHydration)
		}
		if s.plan.Kind == PlanPhrase && len(s.plan.Phrase) > 1 {
			s.Reasons.Add(coverage.ColdPhraseRequiresHydration)
		}
		if s.plan.Kind == PlanRegex && !s.regexSpan().local {
			s.Reasons.Add(coverage.ColdRegexRequiresHydration)
		}
	}
	items = s.bound(items, MaxDigestCandidates, coverage.CandidateDigestBudget)
	if count > MaxDigestCandidates {
		count = MaxDigestCandidates
		s.Reasons.Add(coverage.CandidateDigestBudget)
	}
	return items, count
}

// Run ranks one mixed stream and returns it with the first need items in
// order (those a page shows; the rest are retained but not sorted: a full
// sort of every candidate would dominate a broad query) and the retained
// total.
func (s *Searcher) Run(need int) ([]Item, int) {
	if s.plan.Kind == PlanTerms || s.plan.Kind == PlanPhrase {
		s.stats(s.plan.Terms)
	}
	if s.plan.Kind == PlanRegex {
		s.prefetchTerms()
	}
	var items []Item
	hotCount := 0
	if s.useTopK(need) {
		items, hotCount = s.searchHotTop(need)
	} else {
		items = s.searchHot()
		hotCount = len(items)
	}
	cold, coldCount := s.searchCold(need)
	items = append(items, cold...)
	s.spare.items = items // back to the pool at Release
	s.regexFinish()
	// The total counts what the budgets retain; with the top-k path items
	// holds only the hot items that can reach the page, which are the
	// best of what the budgets retain since need is within them.
	total := hotCount + coldCount
	if total > itemBudget {
		total = itemBudget
		s.Reasons.Add(coverage.CandidateItemBudget)
	}
	if len(items) > itemBudget {
		partitionTop(items, itemBudget)
		items = items[:itemBudget]
	}
	selectTop(items, need)
	return items, total
}

func roundScores(items []Item) {
	for i := range items {
		items[i].Score = round6(items[i].Score)
	}
}

// selectTop puts the k best items (by less) first, in order; the others
// follow in no particular order. It costs O(n + k log k).
func selectTop(items []Item, k int) {
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
func partitionTop(items []Item, k int) {
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
func partition(a []Item, lo, hi int) int {
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
