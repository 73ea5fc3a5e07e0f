package hotbm25

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/normalize"
)

func sp(s string) *string { return &s }

func testEntries() []normalize.Entry {
	ts := 1700000000000.0
	return []normalize.Entry{
		{Index: 0, EntryID: sp("u1"), Type: "message", Role: sp("user"), Text: "Why does the timeout fire? timeout again", Timestamp: &ts},
		{Index: 1, EntryID: sp("a1"), Type: "message", Role: sp("assistant"), Tool: sp("read"), Tools: []string{"read", "bash"}, Ref: sp("omp.read"), Provider: sp("omp"), Action: sp("read"), Text: "Tool: read({\"path\":\"a.go\"})"},
		{Index: 2, EntryID: sp("r1"), Type: "message", Role: sp("toolResult"), Tool: sp("bash"), Ref: sp("omp.bash"), Provider: sp("omp"), Action: sp("bash"), Outcome: sp("failed"), IsError: true, Text: "toolResult(bash) [error]: timeout"},
	}
}

func TestShardRoundTrip(t *testing.T) {
	b, err := Build(testEntries())
	require.NoError(t, err)
	s, err := Open(b.Dict, b.Cols, b.Ents, b.Entries)
	require.NoError(t, err)
	require.Equal(t, 3, s.Len())

	p := s.Postings("timeout")
	assert.Equal(t, 2, p.Count())
	var got [][2]uint32
	for {
		e, tf, ok := p.Next()
		if !ok {
			break
		}
		got = append(got, [2]uint32{e, tf})
	}
	require.NoError(t, p.Err())
	assert.Equal(t, [][2]uint32{{0, 2}, {2, 1}}, got)

	list := func(key string) []uint32 {
		p := s.Postings(key)
		var out []uint32
		for {
			e, _, ok := p.Next()
			if !ok {
				return out
			}
			out = append(out, e)
		}
	}
	assert.Equal(t, []uint32{1, 2}, list(normalize.KeyTool+"bash"), "every tool call is searchable")
	assert.Equal(t, []uint32{1}, list(normalize.KeyTool+"read"))
	assert.Equal(t, []uint32{1, 2}, list(normalize.KeyRef+"omp.bash"))
	assert.Equal(t, []uint32{2}, list(normalize.KeyOutcome+"failed"))
	assert.Equal(t, []uint32{0}, list(normalize.KeyRole+"user"))
	assert.Nil(t, list("nothere"))

	assert.Equal(t, uint32(7), s.DocLen(0))
	assert.Equal(t, float32(2.25), s.Weight(0))
	assert.Equal(t, float32(0.7), s.Weight(1))
	assert.Equal(t, float32(0.75), s.Weight(2))
	ts, ok := s.Timestamp(0)
	assert.True(t, ok)
	assert.Equal(t, 1700000000000.0, ts)
	_, ok = s.Timestamp(1)
	assert.False(t, ok)

	e, err := s.Entry(2)
	require.NoError(t, err)
	assert.Equal(t, "r1", e.EntryID)
	assert.Equal(t, "failed", e.Outcome)
	assert.Equal(t, "toolResult(bash) [error]: timeout", e.Text)
	_, err = s.Entry(3)
	assert.Error(t, err)
}

func TestWeightTable(t *testing.T) {
	for _, c := range []struct {
		role, tool string
		w          float32
	}{
		{"assistant", "", 2.5}, {"user", "", 2.25}, {"custom", "", 1.5}, {"compactionSummary", "", 1.5},
		{"toolResult", "read", 0.75}, {"fabricOperation", "x", 0.75}, {"assistant", "read", 0.7},
		{"bashExecution", "bash", 0.7}, {"compaction", "", 1}, {"branchSummary", "", 1},
	} {
		assert.Equal(t, c.w, Weight(c.role, c.tool), "%s/%s", c.role, c.tool)
	}
}

func TestOpenRejectsMismatch(t *testing.T) {
	b, err := Build(testEntries())
	require.NoError(t, err)
	_, err = Open(b.Dict, b.Cols, b.Ents, 4)
	assert.ErrorIs(t, err, ErrCorrupt)
	_, err = Open(b.Dict, b.Cols[:5], b.Ents, 3)
	assert.ErrorIs(t, err, ErrCorrupt)
	_, err = Open(b.Dict[:10], b.Cols, b.Ents, 3)
	assert.ErrorIs(t, err, ErrCorrupt)
}
