package coldvocab

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/internal/normalize"
)

// addrEntriesOf is what a builder keeps of ents for its address table.
func addrEntriesOf(ents []normalize.Entry) []addrEntry {
	b := NewBuilder(Digest{}, roomy)
	out := make([]addrEntry, len(ents))
	for i := range ents {
		out[i] = b.addressOf(&ents[i])
	}
	return out
}

// A plan gives the termtab form's length, the compact form and the
// structural keys the whole table gives: on random sessions (repeated,
// missing and hex ids, operations, odd timestamps), and on entries with a
// key the plan does not know, which take the whole table's path.
func TestPlanIsTheTable(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	var cases [][]addrEntry
	for range 200 {
		cases = append(cases, addrEntriesOf(randomEntries(r, r.Intn(200))))
	}
	cases = append(cases, addrEntriesOf(entriesN(300)))
	odd := addrEntriesOf(entriesN(5))
	odd[2].keys = append(odd[2].keys, "\x04other")
	cases = append(cases, odd)
	for i, entries := range cases {
		name := fmt.Sprint("case ", i)
		table := collectAddresses(entries)
		tt, err := table.termtab()
		require.NoError(t, err, name)
		plan := planAddresses(entries)
		require.Equal(t, len(tt), plan.size, name)
		got, err := plan.termtab()
		require.NoError(t, err, name)
		assert.Equal(t, tt, got, name)
		assert.Equal(t, table, plan.table(), name)
		wantC, wantOK := table.compact()
		gotC, gotOK := plan.compact()
		require.Equal(t, wantOK, gotOK, name)
		assert.Equal(t, wantC, gotC, name)
		assert.Equal(t, table.structuralKeys(), plan.structuralKeys(), name)
		if i == len(cases)-1 {
			assert.NotNil(t, plan.whole, "an unknown key takes the table's path")
		}
	}
}

// An entry's address keys are its structural keys, as EachStructuralKey
// spells them, entry after entry of one builder.
func TestAddressKeysAreTheStructuralKeys(t *testing.T) {
	ents := randomEntries(rand.New(rand.NewSource(9)), 300)
	ents = append(ents, entriesN(40)...)
	got := addrEntriesOf(ents)
	for i := range ents {
		var want []string
		ents[i].EachStructuralKey(func(k string) { want = append(want, k) })
		require.Equal(t, want, got[i].keys, "entry %d", i)
	}
}
