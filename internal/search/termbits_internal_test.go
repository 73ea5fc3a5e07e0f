package search

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/internal/analyzer/natural"
	"github.com/memidx/memidx/internal/index"
)

// topByRecord is coldBits.top one record at a time, as the record path
// groups them: the groups that got a candidate, by mask, and the count.
func topByRecord(c *coldBits, need int) (map[uint64][]int32, int) {
	groups := map[uint64][]int32{}
	count := 0
	for i := range c.n {
		m := c.mask(i)
		n := bits.OnesCount64(m)
		if n == 0 || c.all && n != len(c.terms) {
			continue
		}
		count++
		if len(groups[m]) < need {
			groups[m] = append(groups[m], int32(i))
		}
	}
	return groups, count
}

// Every split of the terms into word-by-word and bit-by-bit ones gives
// the groups and count of looking at each record: ends of words, dense
// and sparse terms, any and all, pages of none to all.
func TestColdBitsTopMatchesRecords(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	cases := []struct {
		n       int
		density []float64 // a term's share of the records
	}{
		{1, []float64{1}},
		{63, []float64{0.9, 0.01}},
		{64, []float64{0.5, 0.5}},
		{65, []float64{1, 0.02, 0.3}},
		{300, []float64{0.95, 0.003}},
		{1000, []float64{0.9, 0.7, 0.001, 0.2, 0.06}},
		{1000, []float64{0.01, 0.02}},
		{4097, []float64{0.8, 0.0005}},
	}
	for ci, tc := range cases {
		c := &coldBits{n: tc.n}
		for _, d := range tc.density {
			b := make([]uint64, words(tc.n))
			held := 0
			for i := range tc.n {
				if rng.Float64() < d {
					b[i>>6] |= 1 << (i & 63)
					held++
				}
			}
			c.terms, c.held = append(c.terms, b), append(c.held, held)
		}
		for _, all := range []bool{false, true} {
			c.all = all
			for _, need := range []int{0, 1, 3, 50, tc.n} {
				want, wantCount := topByRecord(c, need)
				for dense := range 4 {
					what := fmt.Sprintf("case %d, all %v, need %d, dense %d", ci, all, need, dense)
					setMaxDense(t, dense)
					groups, count := c.top(need)
					got := map[uint64][]int32{}
					for _, g := range groups {
						require.NotContains(t, got, g.mask, what)
						if len(g.first) > 0 {
							got[g.mask] = g.first
						}
					}
					for m, first := range want {
						if len(first) == 0 {
							delete(want, m)
						}
					}
					assert.Equal(t, wantCount, count, what)
					assert.Equal(t, want, got, what)
				}
			}
		}
	}
}

// The dense terms are the commonest, at most maxDense, each naming
// 1/denseShare of the records or more.
func TestColdBitsDense(t *testing.T) {
	cases := []struct {
		held []int
		max  int
		want []int
	}{
		{[]int{1, 900, 50}, 3, []int{1}},
		{[]int{700, 900, 63}, 3, []int{1, 0, 2}},
		{[]int{700, 900, 63}, 1, []int{1}},
		{[]int{700, 900, 62}, 3, []int{1, 0}},
		{[]int{0, 0}, 3, nil},
		{[]int{500, 600, 700, 800}, 3, []int{3, 2, 1}},
	}
	for _, tc := range cases {
		setMaxDense(t, tc.max)
		c := &coldBits{n: 1000, held: tc.held}
		assert.Equal(t, tc.want, c.dense(), "%v", tc.held)
	}
}

// The memo keeps a term's bitmaps for one lexicon and its current cold
// records, makes the bitmap over other records again from the docs (and
// keeps it only for its current ones), never keeps a stem's (whose lookup
// spends a budget), and keeps at most memoTerms terms.
func TestDocMemoTerms(t *testing.T) {
	colds := []*index.Record{{Doc: 3}, {Doc: 1}, {Doc: 7}, {Doc: 2}}
	docs := []uint64{1<<1 | 1<<7 | 1<<9}
	var m DocMemo
	_, ok := m.of(colds)
	require.True(t, ok)
	m.keep("L1", "error", colds, &termBits{docs: docs, cold: []uint64{0b110}, held: 2})

	assert.Equal(t, docs, m.docBits("L1", "error"))
	assert.Nil(t, m.docBits("L2", "error"), "another lexicon")
	assert.Nil(t, m.docBits("L1", "other"))

	cold, held, ok := m.coldOf("L1", "error", colds)
	require.True(t, ok)
	assert.Equal(t, []uint64{0b110}, cold, "kept")
	assert.Equal(t, 2, held)
	_, _, ok = m.coldOf("L2", "error", colds)
	assert.False(t, ok, "another lexicon")

	// Records the memo does not hold (another search's): from the docs,
	// records 0 (doc 7) and 2 (doc 1) of these, and not kept.
	other := []*index.Record{{Doc: 7}, {Doc: 3}, {Doc: 1}}
	cold, held, ok = m.coldOf("L1", "error", other)
	require.True(t, ok)
	assert.Equal(t, []uint64{0b101}, cold)
	assert.Equal(t, 2, held)
	assert.Equal(t, []uint64{0b110}, m.terms["error"].cold, "the current records' bitmap is kept")

	// The memo's records change (the same contents in another slice is
	// another slice): made again from the docs, and kept for them.
	moved := slices.Clone(other)
	_, ok = m.of(moved)
	require.True(t, ok)
	cold, _, _ = m.coldOf("L1", "error", moved)
	assert.Equal(t, []uint64{0b101}, cold)
	assert.Equal(t, m.gen, m.terms["error"].gen)
	// A term kept for records the memo no longer holds keeps no bitmap.
	m.keep("L1", "late", colds, &termBits{docs: docs, cold: []uint64{0b110}, held: 2})
	assert.Zero(t, m.terms["late"].gen)
	cold, _, _ = m.coldOf("L1", "late", moved)
	assert.Equal(t, []uint64{0b101}, cold)

	stem := natural.Key("err")
	m.keep("L1", stem, moved, &termBits{docs: docs})
	assert.Nil(t, m.docBits("L1", stem), "a stem is never kept")

	// A new lexicon drops the old one's terms.
	m.keep("L2", "other", moved, &termBits{docs: docs})
	assert.Nil(t, m.docBits("L2", "error"))
	assert.NotNil(t, m.docBits("L2", "other"))

	for i := range memoTerms + 5 {
		m.keep("L2", fmt.Sprintf("t%d", i), moved, &termBits{docs: docs})
	}
	assert.Len(t, m.terms, memoTerms)

	var none *DocMemo
	assert.Nil(t, none.docBits("L1", "error"))
	_, _, ok = none.coldOf("L1", "error", colds)
	assert.False(t, ok)
}

// setMaxDense sets maxDense until the test ends, however it ends.
func setMaxDense(t *testing.T, n int) {
	old := maxDense
	maxDense = n
	t.Cleanup(func() { maxDense = old })
}

// A term whose doc numbers run far past the sessions (an old index: every
// hot rebuild takes a new doc) is kept without its bitmap by doc: the
// memo answers its cold bitmap for the records it was made over, and for
// any others says it keeps nothing, so that the postings are decoded.
func TestDocMemoSparseDocs(t *testing.T) {
	for _, c := range []struct {
		top   uint32
		n     int
		dense bool
	}{
		{0, 0, true}, {4096, 0, true}, {4097, 0, false},
		{4*100 + 4096, 100, true}, {4*100 + 4097, 100, false}, {1 << 31, 100_000, false},
	} {
		assert.Equal(t, c.dense, docsDense(c.top, c.n), "docsDense(%d, %d)", c.top, c.n)
	}
	colds := []*index.Record{{Doc: 3}, {Doc: 1}}
	var m DocMemo
	_, ok := m.of(colds)
	require.True(t, ok)
	m.keep("L1", "error", colds, &termBits{cold: []uint64{0b11}, held: 2})
	cold, held, ok := m.coldOf("L1", "error", colds)
	require.True(t, ok)
	assert.Equal(t, []uint64{0b11}, cold)
	assert.Equal(t, 2, held)
	assert.Nil(t, m.docBits("L1", "error"), "no bitmap by doc: the hot side decodes")
	_, _, ok = m.coldOf("L1", "error", []*index.Record{{Doc: 1}})
	assert.False(t, ok, "other records: nothing to make their bitmap from")
}
