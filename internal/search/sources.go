package search

import (
	"errors"
	"sort"

	"github.com/memidx/memidx/internal/coldvocab"
	"github.com/memidx/memidx/internal/coverage"
	"github.com/memidx/memidx/internal/index"
)

// SortByState orders cold sources as their states are ordered.
func SortByState(rep *index.Report, cold []ColdSource) {
	if len(cold) < 2 {
		return
	}
	order := make(map[*index.Record]int, len(cold))
	for i := range cold {
		order[cold[i].Rec] = -1
	}
	for i := range rep.States {
		if _, ok := order[rep.States[i].Record]; ok {
			order[rep.States[i].Record] = i
		}
	}
	sort.Slice(cold, func(a, b int) bool { return order[cold[a].Rec] < order[cold[b].Rec] })
}

// openHot makes the states of each (hot records, and records built in
// memory) sources, in state order: from mem, from what this call built,
// or from their shards in the index, leaving unopened the shards the
// lexicon proves cannot match. It returns the states whose shards another
// process rewrote since the refresh.
func (s *Searcher) openHot(rd *index.Reader, rep *index.Report, each []int, mem map[*index.Record]HotSource) (raced []int) {
	hotTerms := s.hotTerms(rd, rep.LexEpoch, hotRecords(rep, each))
	for _, i := range each {
		rec := rep.States[i].Record
		if h, ok := mem[rec]; ok {
			s.Hot = append(s.Hot, h)
			continue
		}
		if b := rep.States[i].Built; b != nil {
			// Built by this call's refresh, which the index could not
			// take (busy): answer from memory.
			h, c, err := OpenBuilt(b)
			if err != nil {
				s.Reasons.Add(coverage.IndexError)
			}
			s.Add(h, c)
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

// hotRecords are the records of states whose hot shards the index holds
// (not read into memory, not built by this call).
func hotRecords(rep *index.Report, each []int) []*index.Record {
	recs := make([]*index.Record, 0, len(each))
	for _, i := range each {
		if st := &rep.States[i]; st.Built == nil && st.Record.Tier == index.Hot {
			recs = append(recs, st.Record)
		}
	}
	return recs
}

// fromMemory takes the cold records read into memory for this call out of
// colds (rare: a hydrated single session, or an index that cannot be
// used), and returns the rest with their entries.
func (s *Searcher) fromMemory(colds []*index.Record, mem map[*index.Record]HotSource, memCold map[*index.Record]ColdSource) (rest []*index.Record, entries float64) {
	for _, rec := range colds {
		if h, ok := mem[rec]; ok {
			s.Hot = append(s.Hot, h)
		} else if c, ok := memCold[rec]; ok {
			s.Cold = append(s.Cold, c)
		} else {
			rest = append(rest, rec)
			entries += float64(rec.EntryCount)
		}
	}
	return rest, entries
}

// OpenBuilt opens a session built in memory as a hot or a cold source.
func OpenBuilt(b *index.Built) (*HotSource, *ColdSource, error) {
	if b.Hot != nil {
		sh, err := b.Hot.Open()
		if err != nil {
			return nil, nil, err
		}
		return &HotSource{Rec: b.Record, Shard: sh, Tier: index.Hot, First: -1, Last: -1}, nil, nil
	}
	v, err := coldvocab.Open(b.Cold)
	if err != nil {
		return nil, nil, err
	}
	return nil, &ColdSource{Rec: b.Record, View: v}, nil
}

// openCold opens the digests of colds as sources, each with the terms the
// lexicon found in it (so that no vocabulary is decoded), and returns the
// records whose digests another process rewrote since the refresh: their
// sessions are to be read from source.
func (s *Searcher) openCold(rd *index.Reader, colds []*index.Record) (raced []*index.Record) {
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
	return raced
}

// Open makes every state of rep a source: hot shards (or the sessions in
// mem), then what the lexicon does not settle of the cold sessions (or the
// digests in memCold), their digests. It returns the states whose data
// another process rewrote since the refresh: the caller reads them from
// source (Add).
func (s *Searcher) Open(rd *index.Reader, rep *index.Report, mem map[*index.Record]HotSource, memCold map[*index.Record]ColdSource) (raced []int) {
	split := rep.Split()
	raced = s.openHot(rd, rep, split.Each, mem)
	colds, coldEntries := split.Cold, split.ColdEntries
	if len(mem)+len(memCold) > 0 {
		colds, coldEntries = s.fromMemory(colds, mem, memCold)
	}
	// The archive lexicon settles most cold sessions without their
	// digests; the rest are opened.
	if open, ok := s.lexiconCold(rd, rep.LexEpoch, colds, coldEntries); ok {
		colds = open
	}
	for _, rec := range s.openCold(rd, colds) {
		raced = append(raced, stateIndex(rep, rec))
	}
	return raced
}

// stateIndex is the index of the state whose record is rec (rare: a
// session another process rewrote during the search).
func stateIndex(rep *index.Report, rec *index.Record) int {
	for i := range rep.States {
		if rep.States[i].Record == rec {
			return i
		}
	}
	panic("search: a searched record has no state")
}
