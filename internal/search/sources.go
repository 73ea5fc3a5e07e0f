package search

import (
	"errors"
	"slices"
	"sort"

	"github.com/memidx/memidx/internal/coldvocab"
	"github.com/memidx/memidx/internal/coverage"
	"github.com/memidx/memidx/internal/index"
)

// SortByState orders cold sources as v's states are ordered.
func SortByState(v *index.View, cold []ColdSource) {
	if len(cold) < 2 {
		return
	}
	order := make(map[*index.Record]int, len(cold))
	for i := range cold {
		order[cold[i].Rec] = -1
	}
	for i := range v.Len() {
		if _, ok := order[v.Record(i)]; ok {
			order[v.Record(i)] = i
		}
	}
	sort.Slice(cold, func(a, b int) bool { return order[cold[a].Rec] < order[cold[b].Rec] })
}

// openHot makes the states of each (hot records, and records built in
// memory) sources, in state order: from memory, from what this call built,
// or from their shards in the index, leaving unopened the shards the
// lexicon proves cannot match. It returns the states whose shards another
// process rewrote since the refresh.
func (s *Searcher) openHot(v *index.View, each []int) (raced []int) {
	rd := v.Reader()
	s.spare.recs = hotRecords(s.spare.recs[:0], v, each)
	hotTerms := s.hotTerms(rd, v.LexEpoch(), s.spare.recs)
	// A HotSource is some hundred bytes: growing the slice shard by shard
	// was a fifth of a server's garbage a call at 100k sessions.
	s.Hot = slices.Grow(s.Hot, len(each))
	for _, i := range each {
		st := v.State(i)
		rec := st.Record
		if l, ok := v.Memory(rec); ok && l.IsHot {
			s.Hot = append(s.Hot, hotSource(l))
			continue
		}
		if b := st.Built(); b != nil {
			// Built by this call's refresh, which the index could not
			// take (busy): answer from memory.
			l, err := b.Open()
			if err != nil {
				s.Reasons.Add(coverage.IndexError)
				continue
			}
			s.add(l)
			continue
		}
		var lacks uint64
		if hotTerms != nil {
			held, known := hotTerms(rec)
			if known && held == 0 {
				s.unopenedHot.add(rec)
				continue
			}
			if known {
				lacks = ^held
			}
		}
		sh, err := rd.Shard(rec)
		if errors.Is(err, index.ErrNoData) {
			raced = append(raced, i)
			continue
		}
		if err != nil {
			s.Fail(rec)
			continue
		}
		s.Hot = append(s.Hot, HotSource{Rec: rec, Shard: sh, Tier: index.Hot, First: -1, Last: -1, lacks: lacks})
	}
	return raced
}

// hotRecords appends to recs the records of states whose hot shards the
// index holds (not read into memory, not built by this call).
func hotRecords(recs []*index.Record, v *index.View, each []int) []*index.Record {
	for _, i := range each {
		if st := v.State(i); st.Built() == nil && st.Record.Tier == index.Hot {
			recs = append(recs, st.Record)
		}
	}
	return recs
}

// fromMemory takes the cold records read into memory for this call out of
// colds (rare: a hydrated single session, or an index that cannot be
// used), and returns the rest with their entries.
func (s *Searcher) fromMemory(v *index.View, colds []*index.Record) (rest []*index.Record, entries float64) {
	for _, rec := range colds {
		if l, ok := v.Memory(rec); ok {
			s.add(l)
		} else {
			rest = append(rest, rec)
			entries += float64(rec.EntryCount)
		}
	}
	return rest, entries
}

// hotSource is a hot session read into memory as a source.
func hotSource(l index.Loaded) HotSource {
	return HotSource{Rec: l.Record, Shard: l.Shard, Tier: l.Tier, First: -1, Last: -1}
}

// add takes a session read into memory as a hot or a cold source.
func (s *Searcher) add(l index.Loaded) {
	if l.IsHot {
		s.Hot = append(s.Hot, hotSource(l))
	} else {
		s.Cold = append(s.Cold, ColdSource{Rec: l.Record, View: l.Digest})
	}
}

// openCold opens the digests of colds as sources, each with the terms the
// lexicon found in it (so that no vocabulary is decoded), and returns the
// records whose digests another process rewrote since the refresh: their
// sessions are to be read from source.
func (s *Searcher) openCold(rd *index.Reader, colds []*index.Record) (raced []*index.Record) {
	first := len(s.Cold)
	rd.Digests(colds, func(rec *index.Record, _ []byte, v coldvocab.View, err error) {
		if errors.Is(err, index.ErrNoData) {
			raced = append(raced, rec)
			return
		}
		if err != nil {
			s.Fail(rec)
			return
		}
		s.Cold = append(s.Cold, ColdSource{Rec: rec, View: v, Has: s.openHas[rec]})
	})
	return append(raced, s.fromLexicon(rd, first)...)
}

// Open makes every state of v a source: hot shards (or the sessions in
// memory), then what the lexicon does not settle of the cold sessions (or
// the digests in memory), their digests. The states whose data another
// process rewrote since the refresh are read again from source, within
// the sync budget (View.Reread); it returns them.
func (s *Searcher) Open(v *index.View) (raced []int) {
	split := v.Split()
	raced = s.openHot(v, split.Each)
	colds, coldEntries := split.Cold, split.ColdEntries
	if v.InMemory() {
		colds, coldEntries = s.fromMemory(v, colds)
	}
	rd := v.Reader()
	// The archive lexicon settles most cold sessions without their
	// digests; the rest are opened.
	if open, ok := s.lexiconCold(rd, v.LexEpoch(), colds, coldEntries); ok {
		colds = open
	}
	for _, rec := range s.openCold(rd, colds) {
		raced = append(raced, stateIndex(v, rec))
	}
	for _, l := range v.Reread(raced) {
		s.add(l)
	}
	return raced
}

// stateIndex is the index of the state whose record is rec (rare: a
// session another process rewrote during the search).
func stateIndex(v *index.View, rec *index.Record) int {
	for i := range v.Len() {
		if v.Record(i) == rec {
			return i
		}
	}
	panic("search: a searched record has no state")
}
