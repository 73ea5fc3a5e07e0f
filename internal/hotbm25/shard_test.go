package hotbm25

import (
	"encoding/binary"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/internal/normalize"
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

// readAll is everything a query can read from a shard, as text.
func readAll(s Shard) string {
	var b strings.Builder
	for _, key := range []string{"timeout", "why", "read", "tool", "a", "go", "again", "nothere",
		normalize.KeyTool + "bash", normalize.KeyRole + "user", normalize.KeyOutcome + "failed"} {
		p := s.Postings(key)
		fmt.Fprintf(&b, "%s:%d", key, p.Count())
		for {
			e, tf, ok := p.Next()
			if !ok {
				break
			}
			fmt.Fprintf(&b, " %d/%d", e, tf)
		}
		fmt.Fprintf(&b, " err=%v\n", p.Err() != nil)
	}
	for i := 0; i < s.Len(); i++ {
		ts, has := s.Timestamp(i)
		e, err := s.Entry(i)
		fmt.Fprintf(&b, "%d: %d %v %v %v %+v %v\n", i, s.DocLen(i), s.Weight(i), ts, has, e, err)
	}
	for i := 0; i < s.Terms().Len(); i++ {
		fmt.Fprintf(&b, "%q ", s.Terms().Term(i))
	}
	return b.String()
}

// Every single damaged byte of any of a shard's three values is caught:
// Open fails, or everything reads as before, or Err reports the damage.
// Nothing reads differently in silence.
func TestDamageIsNeverSilent(t *testing.T) {
	b, err := Build(testEntries())
	require.NoError(t, err)
	good, err := Open(b.Dict, b.Cols, b.Ents, b.Entries)
	require.NoError(t, err)
	want := readAll(good)
	require.NoError(t, good.Err())
	vals := [][]byte{b.Dict, b.Cols, b.Ents}
	caught := 0
	for v := range vals {
		for i := range vals[v] {
			bad := [][]byte{b.Dict, b.Cols, b.Ents}
			bad[v] = append([]byte(nil), vals[v]...)
			bad[v][i] ^= 0x10
			s, err := Open(bad[0], bad[1], bad[2], b.Entries)
			if err != nil {
				caught++
				continue
			}
			got := readAll(s)
			if s.Err() != nil {
				caught++
				continue
			}
			if got != want {
				t.Fatalf("value %d byte %d: reads changed with no error:\n%s\nwant\n%s", v, i, got, want)
			}
		}
	}
	assert.Equal(t, len(b.Dict)+len(b.Cols)+len(b.Ents), caught, "every byte is read by readAll, so every flip is caught")
}

// A damaged count (a value that passed its checksum can still be crafted)
// never claims more entries than the shard has.
func TestPostingsCountIsBounded(t *testing.T) {
	p := Postings{b: binary.AppendUvarint(nil, 1<<63+5), max: 7}
	p.count = p.uvarint()
	assert.Equal(t, 7, p.Count())
}
