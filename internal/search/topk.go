package search

import (
	"math"
	"sync"

	"github.com/memidx/memidx/internal/coverage"
	"github.com/memidx/memidx/internal/hotbm25"
)

// topKMax is the deepest page end (offset+pageSize) that literal term
// queries rank with a bounded heap. A deeper page shows a large share of
// the retained items anyway, so it takes the exhaustive path.
const topKMax = 1000

// entryBudget and itemBudget are MaxEntryCandidates and MaxRankedItems,
// as variables so that tests can reach the budgets with small corpora.
var entryBudget, itemBudget = MaxEntryCandidates, MaxRankedItems

// useTopK reports whether run may rank the hot entries keeping only the
// best need of them. Only literal term queries: a phrase's total counts
// verified matches, so every candidate is verified anyway, and regex and
// browse have their own paths. need must stay within both item budgets,
// so that the best need of the hot matches are the best need of what the
// budgets retain.
func (s *Searcher) useTopK(need int) bool {
	return s.plan.Kind == PlanTerms && need > 0 && need <= topKMax &&
		need <= entryBudget && need <= itemBudget
}

// topHeap keeps the best k items by less, the worst at the root, so that
// an item that cannot enter is rejected with one comparison.
type topHeap struct {
	k  int
	it []Item
}

// full reports whether an item must beat the root to enter.
func (h *topHeap) full() bool { return len(h.it) >= h.k }

// offer adds it when the heap has room or it beats the worst kept item.
func (h *topHeap) offer(it Item) {
	if len(h.it) < h.k {
		h.it = append(h.it, it)
		h.up(len(h.it) - 1)
		return
	}
	if !less(&it, &h.it[0]) {
		return
	}
	h.it[0] = it
	h.down(0)
}

// worse orders the heap: the root is the item every other beats.
func (h *topHeap) worse(i, j int) bool { return less(&h.it[j], &h.it[i]) }

func (h *topHeap) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !h.worse(i, p) {
			return
		}
		h.it[i], h.it[p] = h.it[p], h.it[i]
		i = p
	}
}

func (h *topHeap) down(i int) {
	n := len(h.it)
	for {
		c := 2*i + 1
		if c >= n {
			return
		}
		if c+1 < n && h.worse(c+1, c) {
			c++
		}
		if !h.worse(c, i) {
			return
		}
		h.it[i], h.it[c] = h.it[c], h.it[i]
		i = c
	}
}

// searchHotTop ranks the hot entries of a literal term query keeping only
// the best k, and returns them (in no particular order) with the number of
// hot matches the entry budget retains. It yields exactly what the
// exhaustive searchHot would put first: every match is counted, and every
// one that could reach the page is scored, rounded and compared by less
// as there; none is materialised unless it can reach the page.
func (s *Searcher) searchHotTop(k int) ([]Item, int) {
	it := s.spare.items[:0]
	if cap(it) < k {
		it = make([]Item, 0, k)
	}
	h := topHeap{k: k, it: it}
	ts := s.newTermScan()
	defer ts.release()
	count := 0
	for si := range s.Hot {
		if !cursorOnly {
			if c, ok := s.shardColumns(si, &h, ts); ok {
				count += c
				continue
			}
		}
		count += s.shardTop(si, &h)
	}
	if count > entryBudget {
		count = entryBudget
		s.Reasons.Add(coverage.CandidateEntryBudget)
	}
	return h.it, count
}

// cursorOnly makes searchHotTop take the cursor path (shardTop), which
// only a damaged list takes otherwise: tests set it to check that path.
var cursorOnly = false

// The score bounds are tabled by term frequency (below ubTfs; any higher
// one takes the bound of an unbounded frequency) and by entry length in
// steps of ubStep (the bound of a step takes its shortest length; longer
// entries than the table's take its last step).
const (
	ubTfs  = 16
	ubStep = 4
	ubLens = 64
)

// termScan is the per-query state of the column scan. Its scratch is
// pooled: a broad query's columns are as large as the largest shard, and
// allocating them on every call fed the collector, whose pauses showed in
// the tail latency. Between uses the columns and seen are all zero.
type termScan struct {
	idf []float64
	// ub[t][f*ubLens+l] bounds term t's BM25 part at frequency f in an
	// entry of length step l; row ubTfs bounds every frequency.
	ub []*ubTable
	// tfs[t] holds term t's frequency per entry of the shard in hand;
	// seen marks, and union lists, the entries holding any term.
	tfs   [][]uint32
	seen  []bool
	union []uint32
	n     int // entries of the shard in hand
	lists []hotbm25.Postings
	want  int // terms an entry must hold: 1 (any) or all
	// ubAll and cols back ub and tfs across queries of more terms.
	ubAll []*ubTable
	cols  [][]uint32
}

// ubTable is one term's score bounds, by frequency row and length step.
// Its fixed size makes a bounds check a compare with a constant.
type ubTable [(ubTfs + 1) * ubLens]float64

// at bounds the term's part in an entry holding it f times, of length
// step l (below ubLens).
func (u *ubTable) at(f uint32, l uint32) float64 { return u[min(f, ubTfs)*ubLens+l] }

var scanPool = sync.Pool{New: func() any { return new(termScan) }}

func (s *Searcher) newTermScan() *termScan {
	terms := s.plan.Terms
	ts := scanPool.Get().(*termScan)
	for len(ts.ubAll) < len(terms) {
		// Row 0 (frequency 0) stays 0: a term an entry lacks adds nothing.
		ts.ubAll = append(ts.ubAll, new(ubTable))
		ts.cols = append(ts.cols, nil)
	}
	ts.ub, ts.tfs = ts.ubAll[:len(terms)], ts.cols[:len(terms)]
	ts.idf = append(ts.idf[:0], make([]float64, len(terms))...)
	ts.want = 1
	if s.plan.All {
		ts.want = len(terms)
	}
	for i := range terms {
		ts.idf[i] = s.termIDF(i)
		bf := s.plan.field(i).B
		ub := ts.ub[i]
		for f := 1; f <= ubTfs; f++ {
			for l := range ubLens {
				norm := k1 * (1 - bf + bf*float64(l*ubStep)/s.avgdl)
				ub[f*ubLens+l] = ts.idf[i] * float64(f) * (k1 + 1) / (float64(f) + norm)
				if f == ubTfs {
					ub[f*ubLens+l] = ts.idf[i] * (k1 + 1)
				}
			}
		}
	}
	return ts
}

// release returns ts to the pool, its columns clean, without the
// cursors, which point into the shards' bytes.
func (ts *termScan) release() {
	clear(ts.lists)
	ts.lists = ts.lists[:0]
	scanPool.Put(ts)
}

// fillColumns decodes the query's postings in src into ts.tfs, and their
// union into ts.union. It reports false, with nothing recorded, when a
// damaged list holds a frequency of 0, which a column cannot tell from
// absence: the cursor path (shardTop) takes that shard.
func (s *Searcher) fillColumns(si int, ts *termScan) bool {
	src := &s.Hot[si]
	n := src.Shard.Len()
	if cap(ts.seen) < n {
		ts.seen, ts.union = make([]bool, n), make([]uint32, 0, n)
	}
	for i := range ts.tfs {
		if cap(ts.tfs[i]) < n {
			ts.tfs[i] = make([]uint32, n)
		}
	}
	ts.n, ts.union = n, ts.union[:0]
	ts.lists = ts.lists[:0]
	damaged := false
	for i, t := range s.plan.Terms {
		ts.lists = append(ts.lists, s.postings(si, i, t))
		var zero bool
		ts.union, zero = ts.lists[i].Fill(ts.tfs[i][:n], ts.seen[:n], ts.union)
		damaged = damaged || zero
	}
	if damaged {
		ts.reset()
		return false
	}
	for i := range ts.lists {
		if ts.lists[i].Err() != nil {
			s.Fail(src.Rec)
		}
	}
	return true
}

// postings returns hot source si's postings of term ti (t), from the
// cursors stats looked up when it did.
func (s *Searcher) postings(si, ti int, t string) hotbm25.Postings {
	if i := ti*len(s.Hot) + si; len(s.hotLists) == len(s.Hot)*len(s.plan.Terms) {
		return s.hotLists[i]
	}
	return s.Hot[si].postings(ti, t)
}

// reset clears the columns of the union's entries for the next shard:
// whole when the union is a large share of them, which is faster.
func (ts *termScan) reset() {
	if len(ts.union)*16 >= ts.n {
		clear(ts.seen[:ts.n])
		for _, col := range ts.tfs {
			clear(col[:ts.n])
		}
		return
	}
	for _, e := range ts.union {
		ts.seen[e] = false
		for _, col := range ts.tfs {
			col[e] = 0
		}
	}
}

// shardColumns ranks one shard's matches from its columns and returns their
// number; ok is false, with nothing done, when fillColumns declines. Every
// entry holding enough terms and passing the filters is counted, but
// scored only when its bound can reach the heap.
func (s *Searcher) shardColumns(si int, h *topHeap, ts *termScan) (count int, ok bool) {
	src := &s.Hot[si]
	if !s.fillColumns(si, ts) {
		return 0, false
	}
	defer ts.reset()
	cand := s.candidates(src)
	// Every union entry holds a term: without filters an any-query
	// counts them all, with no look at each.
	count = len(ts.union)
	if ts.want > 1 || cand != nil {
		count = 0
		for _, e := range ts.union {
			if ts.held(e) >= ts.want && (cand == nil || cand[e]) {
				count++
			}
		}
	}
	cols := src.Shard.Columns()
	op := s.filt.Operational
	floor := ts.floor(h)
	for i := ts.skip(0, cols, op, floor); i < len(ts.union); i = ts.skip(i+1, cols, op, floor) {
		e := ts.union[i]
		if ts.want > 1 && ts.held(e) < ts.want || cand != nil && !cand[e] {
			continue
		}
		dl, w := lenWeight(cols, e, op)
		h.offer(Item{Score: ts.score(s, e, dl, w), mtime: src.Rec.Identity.MtimeNs, Entry: true, Src: si, Index: int(e), file: src.Rec.Path})
		floor = ts.floor(h)
	}
	return count, true
}

// lenWeight returns entry e's length and weight: 1 for an operational
// filter, as s.weight says.
func lenWeight(cols hotbm25.Columns, e uint32, op bool) (uint32, float64) {
	dl, w := cols.LenWeight(int(e))
	if op {
		return dl, 1
	}
	return dl, float64(w)
}

// skip returns the first position of the union, from i, whose entry's
// bound can reach floor (len(union) if none): every entry the scan
// passes over is one shardColumns would not score. An odd weight (not
// positive) has no bound: such an entry is not passed over.
func (ts *termScan) skip(i int, cols hotbm25.Columns, op bool, floor float64) int {
	if len(ts.tfs) == 2 {
		return skip2(ts.union, i, ts.tfs[0][:ts.n], ts.tfs[1][:ts.n], ts.ub[0], ts.ub[1], cols, op, floor)
	}
	for ; i < len(ts.union); i++ {
		e := ts.union[i]
		dl, w := lenWeight(cols, e, op)
		if !(w > 0 && ts.bound(e, dl)*w*(1+1e-9) < floor) {
			return i
		}
	}
	return i
}

// skip2 is skip for two terms, of columns a and b and bounds ua and ub:
// the commonest broad query, whose scan is most of its time. A leaf, so
// that its loop keeps what it reads in registers.
func skip2(union []uint32, i int, a, b []uint32, ua, ub *ubTable, cols hotbm25.Columns, op bool, floor float64) int {
	for ; i < len(union); i++ {
		e := union[i]
		dl, w := lenWeight(cols, e, op)
		l := min(dl/ubStep, ubLens-1)
		if !(w > 0 && (ua.at(a[e], l)+ub.at(b[e], l))*w*(1+1e-9) < floor) {
			return i
		}
	}
	return i
}

// floor is the least bound an entry needs to reach h: anything while h
// has room, else the worst kept score, less a slack for round6's half
// unit and the float error of the bound (an entry that ties the worst
// after rounding may still win on mtime, index or file).
func (ts *termScan) floor(h *topHeap) float64 {
	if !h.full() {
		return math.Inf(-1)
	}
	return h.it[0].Score - 1e-6
}

// held returns how many of the query's terms entry e holds.
func (ts *termScan) held(e uint32) (m int) {
	for _, col := range ts.tfs {
		if col[e] != 0 {
			m++
		}
	}
	return m
}

// bound bounds the unweighted score of entry e, of length dl. Row 0 of
// the tables is 0, so a term the entry lacks adds nothing, without a
// branch the processor could mispredict.
func (ts *termScan) bound(e uint32, dl uint32) (ub float64) {
	l := min(dl/ubStep, ubLens-1)
	for t, col := range ts.tfs {
		ub += ts.ub[t].at(col[e], l)
	}
	return ub
}

// score is entry e's rounded score, summed in query term order as
// shardTop sums it, so that the two paths agree to the bit.
func (ts *termScan) score(s *Searcher, e uint32, dl uint32, w float64) float64 {
	sc := 0.0
	for t, col := range ts.tfs {
		if f := col[e]; f != 0 {
			sc += s.bm25(ts.idf[t], f, dl, s.plan.field(t).B)
		}
	}
	return round6(sc * w)
}

// shardTop scores the matches of one shard into h and returns their
// number. The sums add the terms in query order, as searchHot does, so
// that every score is bit-identical to the exhaustive path's.
func (s *Searcher) shardTop(si int, h *topHeap) int {
	src := &s.Hot[si]
	cand := s.candidates(src)
	acc, hits := s.accumulate(src, func(e int) bool { return cand == nil || cand[e] })
	return s.offerShard(si, h, acc, hits)
}

// offerShard offers the shard's accumulated matches to h, resets the
// scratch for the next shard, and returns the number of matches.
func (s *Searcher) offerShard(si int, h *topHeap, acc []float64, hits []uint16) int {
	src := &s.Hot[si]
	mtime, file := src.Rec.Identity.MtimeNs, src.Rec.Path
	want := 1
	if s.plan.All {
		want = len(s.plan.Terms)
	}
	count := 0
	for _, e := range s.touched {
		sc, m := acc[e], int(hits[e])
		acc[e], hits[e] = 0, 0
		if m < want {
			continue
		}
		count++
		score := round6(sc * s.weight(src, int(e)))
		if h.full() && score < h.it[0].Score {
			continue // cannot beat the worst kept item
		}
		h.offer(Item{Score: score, mtime: mtime, Entry: true, Src: si, Index: int(e), file: file})
	}
	return count
}
