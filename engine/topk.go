package engine

import (
	"github.com/memidx/memidx/coverage"
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
func (s *searcher) useTopK(need int) bool {
	return s.plan.kind == planTerms && need > 0 && need <= topKMax &&
		need <= entryBudget && need <= itemBudget
}

// topHeap keeps the best k items by less, the worst at the root, so that
// an item that cannot enter is rejected with one comparison.
type topHeap struct {
	k  int
	it []item
}

// full reports whether an item must beat the root to enter.
func (h *topHeap) full() bool { return len(h.it) >= h.k }

// offer adds it when the heap has room or it beats the worst kept item.
func (h *topHeap) offer(it item) {
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
// exhaustive searchHot would put first: every match is scored, rounded and
// compared by less as there, but none is materialised unless it can reach
// the page, and the count needs no ranking.
func (s *searcher) searchHotTop(k int) ([]item, int) {
	h := topHeap{k: k, it: make([]item, 0, k)}
	count := 0
	for si := range s.hot {
		count += s.shardTop(si, &h)
	}
	if count > entryBudget {
		count = entryBudget
		s.reasons.Add(coverage.CandidateEntryBudget)
	}
	return h.it, count
}

// shardTop scores the matches of one shard into h and returns their
// number. The sums add the terms in query order, as searchHot does, so
// that every score is bit-identical to the exhaustive path's.
func (s *searcher) shardTop(si int, h *topHeap) int {
	src := &s.hot[si]
	cand := s.candidates(src)
	n := src.shard.Len()
	if cap(s.acc) < n {
		s.acc = make([]float64, n)
		s.hits = make([]uint16, n)
	}
	acc, hits := s.acc[:n], s.hits[:n]
	touched := s.touched[:0]
	for _, t := range s.plan.terms {
		idf := s.idf(t)
		p := src.shard.Postings(t)
		for {
			e, tf, more := p.Next()
			if !more {
				break
			}
			if cand != nil && !cand[e] {
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
	return s.offerShard(si, h, acc, hits)
}

// offerShard offers the shard's accumulated matches to h, resets the
// scratch for the next shard, and returns the number of matches.
func (s *searcher) offerShard(si int, h *topHeap, acc []float64, hits []uint16) int {
	src := &s.hot[si]
	mtime, file := src.rec.Identity.MtimeNs, src.rec.Path
	want := 1
	if s.plan.all {
		want = len(s.plan.terms)
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
		if h.full() && score < h.it[0].score {
			continue // cannot beat the worst kept item
		}
		h.offer(item{score: score, mtime: mtime, entry: true, src: si, index: int(e), file: file})
	}
	return count
}
