package coldvocab

import (
	"fmt"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// has reports whether term is in the set (for tests: a builder asks find,
// which also gives the slot to add at).
func (t *termSet) has(term string) bool {
	_, _, found := t.find(term)
	return found
}

// add adds term, which the set must not hold.
func (t *termSet) add(term string) {
	slot, tag, _ := t.find(term)
	t.addAt(slot, tag, term)
}

// A term set holds what was added, in first-seen order, and nothing else,
// across its table's growth; emptied, it holds nothing and takes terms
// again, also when its generation wraps.
func TestTermSetHoldsWhatWasAdded(t *testing.T) {
	for _, n := range []int{0, 1, initialTerms - 1, initialTerms, initialTerms + 1, 3000, maxPooledTerms + 1} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			ts := getTerms()
			want := []string{}
			for i := range n {
				term := fmt.Sprintf("t%x", i*7919)
				slot, tag, found := ts.find(term)
				require.False(t, found, term)
				ts.addAt(slot, tag, term)
				want = append(want, term)
				require.True(t, ts.has(term), term)
				if i%97 == 0 { // every earlier one still there after growth
					for _, w := range want {
						require.True(t, ts.has(w), w)
					}
				}
			}
			assert.Equal(t, want, ts.list)
			assert.LessOrEqual(t, 2*len(ts.list), len(ts.slots), "at most half full")
			ts.reset()
			assert.LessOrEqual(t, len(ts.slots), maxKeptSlots, "a large table is not kept")
			for _, w := range want {
				require.False(t, ts.has(w), w)
			}
			for _, absent := range []string{"", "t", "T0", fmt.Sprintf("t%x", n*7919)} {
				assert.False(t, ts.has(absent), absent)
			}
		})
	}
	ts := termSets.New().(*termSet)
	ts.add("alpha")
	ts.gen = math.MaxUint32
	ts.slots[0] = termSlot{gen: 0, tag: 1, at: 0} // wraps to gen 0: must read as empty
	ts.reset()
	assert.Equal(t, uint32(1), ts.gen)
	for i, s := range ts.slots {
		require.Zero(t, s, "slot %d", i)
	}
	assert.False(t, ts.has("alpha"))
	ts.add("beta")
	assert.True(t, ts.has("beta"))
	assert.Equal(t, []string{"beta"}, ts.list)
}
