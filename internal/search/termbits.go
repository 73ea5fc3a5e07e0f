package search

import (
	"math/bits"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/memidx/memidx/internal/analyzer/natural"
	"github.com/memidx/memidx/internal/index"
)

// Cold candidates as bitmaps.
//
// A common term ("error") names most cold sessions. Marking each session
// it names, walking the marks again to list the candidates and walking
// the list to group them cost several passes of O(sessions) a query: at
// 100k sessions, most of a two-word query's time in a watching server.
// Here each term is a bitmap over the cold records (bit i: record i holds
// it), so counting, grouping and the best of each group are word
// operations, 64 sessions at a time, and only a rare term's few sessions
// are looked at one by one. A common term's bitmaps are kept in the
// engine's DocMemo while the lexicon and the cold records stay the same
// (a quiet server's case), so its postings are not even decoded again.

// termBits is one common term as the memo keeps it.
type termBits struct {
	// docs has bit d set when lexicon doc d holds the term (live or
	// dead); nil when the docs run far past the sessions (docsDense).
	docs []uint64
	// cold has bit i set when the memo's cold record i holds the term;
	// held is how many bits are set. Both hold while the memo's records
	// are those of generation gen (DocMemo.gen; 0: none). Only the memo
	// holds on to its records: a term keeps no slice of records of its
	// own alive.
	gen  uint64
	cold []uint64
	held int
}

// A term is kept in the memo when its postings name 1/denseShare of the
// cold records or more: its two bitmaps (a bit per session each) are then
// smaller than its postings decoded, and a rarer term is cheap to decode.
// memoTerms bounds the terms kept: 1.7 MB at 100k sessions.
const memoTerms = 64

// bitsRuns counts the searches whose cold pass took bitmaps (tests).
var bitsRuns atomic.Int64

// bitsOff makes lexiconCold take the record-by-record path even where
// bitmaps apply: tests compare the two.
var bitsOff = false

// maxDense is how many of a query's commonest terms top groups word by
// word (see coldBits.top); tests vary it to reach every split.
var maxDense = 3

// words is the length of a bitmap of n bits.
func words(n int) int { return (n + 63) / 64 }

func hasBit(b []uint64, i int) bool {
	return i>>6 < len(b) && b[i>>6]&(1<<(i&63)) != 0
}

// memoKey is a term's key in the memo, or "" when it cannot be kept: a
// stem's lookup scans keys against a budget shared by the whole search
// (index.Lexicon.StemScanCut), which a kept answer would not spend.
func memoKey(term string) string {
	if strings.HasPrefix(term, natural.KeyPrefix) {
		return ""
	}
	return term
}

// docBits returns term's bitmap by doc kept for the lexicon lexID, or nil.
func (m *DocMemo) docBits(lexID, term string) []uint64 {
	if m == nil || memoKey(term) == "" {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if tb := m.terms[term]; tb != nil && m.lexID == lexID {
		return tb.docs
	}
	return nil
}

// coldOf returns term's bitmap over colds and how many of them hold it,
// as kept for the lexicon lexID; ok is false when the memo keeps nothing
// of it. A term kept before the memo's cold records changed has its
// bitmap made again from its docs (a pass over the records, once), and
// kept when colds are the memo's records.
func (m *DocMemo) coldOf(lexID, term string, colds []*index.Record) (cold []uint64, held int, ok bool) {
	if m == nil || memoKey(term) == "" || len(colds) == 0 {
		return nil, 0, false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	tb := m.terms[term]
	if tb == nil || m.lexID != lexID {
		return nil, 0, false
	}
	current := sameRecords(m.colds, colds)
	if current && tb.gen == m.gen && tb.gen != 0 {
		return tb.cold, tb.held, true
	}
	if tb.docs == nil {
		return nil, 0, false // kept without its bitmap by doc: decode again
	}
	cold = make([]uint64, words(len(colds)))
	for i, rec := range colds {
		if hasBit(tb.docs, int(rec.Doc)) {
			cold[i>>6] |= 1 << (i & 63)
			held++
		}
	}
	if current {
		// A new value: a search still reading the old one keeps it.
		m.terms[term] = &termBits{docs: tb.docs, gen: m.gen, cold: cold, held: held}
	}
	return cold, held, true
}

// sameRecords reports whether a and b are one slice.
func sameRecords(a, b []*index.Record) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// keep stores term's bitmaps for the lexicon lexID: by doc, and cold over
// colds. A new lexicon drops what was kept for the old one; a full memo
// drops one term.
func (m *DocMemo) keep(lexID, term string, colds []*index.Record, tb *termBits) {
	if m == nil || memoKey(term) == "" {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	tb.gen = 0
	if sameRecords(m.colds, colds) {
		tb.gen = m.gen
	}
	if m.lexID != lexID || m.terms == nil {
		m.lexID, m.terms = lexID, map[string]*termBits{}
	}
	if len(m.terms) >= memoTerms {
		for k := range m.terms {
			delete(m.terms, k)
			break
		}
	}
	m.terms[term] = tb
}

// bitsPool keeps the bitmaps of terms not kept in the memo between
// queries, cleared.
var bitsPool sync.Pool

// termCold returns the plan's term t's bitmap over colds (indexed by at)
// and how many of them hold it: the memo's, or made from its postings
// (and kept when the term is common).
func (s *Searcher) termCold(lex *index.Lexicon, at docIndex, colds []*index.Record, t int, c *coldBits) ([]uint64, int, error) {
	term := s.plan.Terms[t]
	if cold, held, ok := s.docs.coldOf(s.lex.id, term, colds); ok {
		return cold, held, nil
	}
	docs, err := s.termDocs(lex, t)
	if err != nil {
		return nil, 0, err
	}
	keep := s.docs != nil && memoKey(term) != "" && len(docs)*denseShare >= len(colds)
	var cold []uint64
	if keep {
		cold = make([]uint64, words(len(colds)))
	} else {
		cold = c.borrow(words(len(colds)))
	}
	held, top := 0, uint32(0)
	for _, d := range docs {
		top = max(top, d)
		if i := at.of(d); i >= 0 && cold[i>>6]&(1<<(i&63)) == 0 {
			cold[i>>6] |= 1 << (i & 63)
			held++
		}
	}
	if keep {
		// Doc numbers only grow (every hot rebuild takes a new one): on an
		// old index a bitmap by doc would cost the highest doc's bits, not
		// the sessions', so past docsDense the term keeps its cold bitmap
		// only.
		var byDoc []uint64
		if docsDense(top, len(colds)) {
			byDoc = make([]uint64, words(int(top)+1))
			for _, d := range docs {
				byDoc[d>>6] |= 1 << (d & 63)
			}
		}
		s.docs.keep(s.lex.id, term, colds, &termBits{docs: byDoc, cold: cold, held: held})
	}
	return cold, held, nil
}

// bitsApply reports whether the cold pass may take bitmaps: a term or
// phrase query of 1 to 64 terms without filters (a filter's entries are
// counted in digests), whose records are all current (else each is asked,
// and one another process rewrote is opened), unless a test says not.
func (s *Searcher) bitsApply(rd *index.Reader) bool {
	nt := len(s.plan.Terms)
	return !bitsOff && (s.plan.Kind == PlanTerms || s.plan.Kind == PlanPhrase) &&
		nt > 0 && nt <= 64 && !s.filt.any() && rd.AllCurrent()
}

// bitsCold is lexiconCold by bitmaps: every cold record a term names is a
// settled candidate, none is opened.
func (s *Searcher) bitsCold(lex *index.Lexicon, at docIndex, colds []*index.Record, entries float64) bool {
	c := &coldBits{all: s.plan.All || s.plan.Kind == PlanPhrase, n: len(colds)}
	held := make([]float64, len(s.plan.Terms))
	for t := range s.plan.Terms {
		cold, h, err := s.termCold(lex, at, colds, t, c)
		if err != nil {
			c.release()
			s.lexiconFailed(err)
			return false
		}
		c.terms = append(c.terms, cold)
		c.held = append(c.held, h)
		held[t] = float64(h)
	}
	s.unopened = unopened{entries: entries, df: held}
	s.settled = &settled{colds: colds, bits: c}
	s.LexiconAnswered = true
	bitsRuns.Add(1)
	return true
}

// coldBits are the settled candidates as the terms' bitmaps over the cold
// records: a record is a candidate when it holds every term (all) or any.
type coldBits struct {
	terms    [][]uint64 // by plan term
	held     []int      // how many records hold each term
	all      bool
	n        int
	borrowed []*[]uint64 // from bitsPool, given back by release
}

func (c *coldBits) borrow(n int) []uint64 {
	p, _ := bitsPool.Get().(*[]uint64)
	if p == nil || cap(*p) < n {
		p = &[]uint64{}
		*p = make([]uint64, n)
	}
	*p = (*p)[:n]
	c.borrowed = append(c.borrowed, p)
	return *p
}

func (c *coldBits) release() {
	for _, p := range c.borrowed {
		clear(*p)
		bitsPool.Put(p)
	}
	c.borrowed = nil
}

// cand is word w of the candidates' bitmap.
func (c *coldBits) cand(w int) uint64 {
	x := c.terms[0][w]
	for _, b := range c.terms[1:] {
		if c.all {
			x &= b[w]
		} else {
			x |= b[w]
		}
	}
	return x
}

// mask is the terms record i holds (bit t).
func (c *coldBits) mask(i int) uint64 {
	var m uint64
	for t, b := range c.terms {
		m |= (b[i>>6] >> (i & 63) & 1) << t
	}
	return m
}

// dense picks the terms that top groups word by word: at most maxDense of
// the commonest, each naming 1/denseShare of the records or more.
func (c *coldBits) dense() []int {
	var d []int
	for len(d) < maxDense {
		best := -1
		for t, h := range c.held {
			if h*denseShare >= c.n && h > 0 && !slices.Contains(d, t) && (best < 0 || h > c.held[best]) {
				best = t
			}
		}
		if best < 0 {
			break
		}
		d = append(d, best)
	}
	return d
}

// bitGroup is the first need candidates (in record order) of the records
// holding exactly the terms of mask: they score alike (see settled.top).
type bitGroup struct {
	mask  uint64
	first []int32
}

// bitGroups gathers candidates into their groups, the first need of
// each; last is the group the previous candidate went to (neighbours
// mostly share one).
type bitGroups struct {
	g    []bitGroup
	need int
	last int
}

// add offers record i, holding the terms of mask, to its group; it
// reports whether the group is full after.
func (gs *bitGroups) add(mask uint64, i int) bool {
	if gs.last >= len(gs.g) || gs.g[gs.last].mask != mask {
		gs.last = slices.IndexFunc(gs.g, func(g bitGroup) bool { return g.mask == mask })
		if gs.last < 0 {
			gs.g = append(gs.g, bitGroup{mask: mask})
			gs.last = len(gs.g) - 1
		}
	}
	g := &gs.g[gs.last]
	if len(g.first) < gs.need {
		g.first = append(g.first, int32(i))
	}
	return len(g.first) >= gs.need
}

// top returns the first need candidates of each group, in record order,
// and how many candidates there are. A candidate holding any term outside
// the dense ones is taken bit by bit (they are few); the rest hold only
// dense terms, and each of their at most 2^maxDense-1 groups is a word
// operation, left alone once full.
func (c *coldBits) top(need int) ([]bitGroup, int) {
	gs := bitGroups{need: need}
	dense := c.dense()
	var sparse []int
	for t := range c.terms {
		if !slices.Contains(dense, t) {
			sparse = append(sparse, t)
		}
	}
	subsets := 1<<len(dense) - 1
	full := make([]bool, subsets+1)
	nfull := 0
	count := 0
	for w := range words(c.n) {
		cand := c.cand(w)
		if cand == 0 {
			continue
		}
		count += bits.OnesCount64(cand)
		if need <= 0 {
			continue
		}
		var some uint64
		for _, t := range sparse {
			some |= c.terms[t][w]
		}
		for x := some & cand; x != 0; x &= x - 1 {
			i := w*64 + bits.TrailingZeros64(x)
			gs.add(c.mask(i), i)
		}
		rest := cand &^ some
		for sub := 1; sub <= subsets && rest != 0 && nfull < subsets; sub++ {
			if full[sub] {
				continue
			}
			g, mask := rest, uint64(0)
			for j, t := range dense {
				if sub&(1<<j) != 0 {
					g &= c.terms[t][w]
					mask |= 1 << t
				} else {
					g &^= c.terms[t][w]
				}
			}
			for ; g != 0 && !full[sub]; g &= g - 1 {
				if gs.add(mask, w*64+bits.TrailingZeros64(g)) {
					full[sub] = true
					nfull++
				}
			}
		}
	}
	return gs.g, count
}
