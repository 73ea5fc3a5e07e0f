package search

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/internal/hotbm25"
	"github.com/memidx/memidx/internal/index"
)

// The source slices a search gives back keep their capacity but nothing
// they pointed to (records, mapped tier data): a pooled slice must not
// hold a record the index dropped, nor bytes of a map that is gone. Over
// the bound, they are left to the collector.
func TestTakeSourcesKeepsCapacityNotContents(t *testing.T) {
	rec := &index.Record{Path: "/s.jsonl"}
	s := New(context.Background(), Plan{}, Filters{}, nil)
	s.Hot = append(s.Hot[:0], HotSource{Rec: rec}, HotSource{Rec: rec})
	s.Cold = append(s.Cold[:0], ColdSource{Rec: rec, Has: []bool{true}})
	s.hotLists = append(s.hotLists[:0], hotbm25.Postings{})
	hot, cold := s.Hot[:cap(s.Hot)], s.Cold[:cap(s.Cold)]

	b := s.takeSources()
	require.NotNil(t, b)
	assert.Nil(t, s.Hot)
	assert.Nil(t, s.Cold)
	assert.Empty(t, b.hot)
	assert.Equal(t, cap(hot), cap(b.hot))
	for i := range hot {
		assert.Nil(t, hot[i].Rec, "hot %d still points to its record", i)
	}
	for i := range cold {
		assert.Nil(t, cold[i].Rec, "cold %d still points to its record", i)
		assert.Nil(t, cold[i].Has)
	}

	s.Hot = make([]HotSource, 0, maxPooledSources+1)
	assert.Nil(t, s.takeSources(), "over the bound: not pooled")
	assert.Nil(t, s.Hot)
}

// A search's scratch tables (the hot docs' held terms, the hot records,
// the ranked items) go back to the pool empty, with their room: the next
// search takes them instead of making its own. Over the bound, they are
// left to the collector.
func TestScratchTablesArePooledEmpty(t *testing.T) {
	rec := &index.Record{Path: "/s.jsonl"}
	s := New(context.Background(), Plan{}, Filters{}, nil)
	s.spare = scratch{
		held:  map[uint32]uint64{7: 1, 9: 3},
		recs:  []*index.Record{rec, rec},
		items: []Item{{Score: 1, file: "/s.jsonl"}, {Score: 2}},
	}
	recs, items := s.spare.recs[:cap(s.spare.recs)], s.spare.items[:cap(s.spare.items)]
	b := s.takeSources()
	require.NotNil(t, b)
	assert.Equal(t, scratch{}, s.spare)
	assert.Empty(t, b.spare.held)
	assert.NotNil(t, b.spare.held, "the map is kept, emptied")
	assert.Empty(t, b.spare.recs)
	assert.Equal(t, cap(recs), cap(b.spare.recs))
	for i := range recs {
		assert.Nil(t, recs[i], "record %d still pointed to", i)
	}
	for i := range items {
		assert.Zero(t, items[i], "item %d kept", i)
	}

	if !RaceDetector {
		for sourcePool.Get() != nil { // what other tests left
		}
		sourcePool.Put(b)
		next := New(context.Background(), Plan{}, Filters{}, nil)
		assert.Equal(t, cap(recs), cap(next.spare.recs), "the next search takes them")
		next.Release()
	}

	s.spare.items = make([]Item, 0, maxPooledSources+1)
	s.Hot = make([]HotSource, 0, 8)
	b = s.takeSources()
	if assert.NotNil(t, b, "a broad query's items alone are dropped") {
		assert.Nil(t, b.spare.items)
		assert.Equal(t, 8, cap(b.hot))
	}
	s.spare.recs = make([]*index.Record, 0, maxPooledSources+1)
	assert.Nil(t, s.takeSources(), "over the bound: not pooled")
	assert.Equal(t, scratch{}, s.spare)
}
