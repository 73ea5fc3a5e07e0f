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
