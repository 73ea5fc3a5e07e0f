package index

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestSplitSortsStatesByWhereTheirDataIs(t *testing.T) {
	hot := &Record{Tier: Hot, EntryCount: 5}
	cold1 := &Record{Tier: Cold, EntryCount: 7}
	cold2 := &Record{Tier: Cold, EntryCount: 11}
	builtCold := &Record{Tier: Cold, EntryCount: 13}
	rep := &Report{States: []State{
		{Record: cold1},
		FailedState("", "source_unavailable", ""), // no record: not searched
		{Record: hot},
		{Record: builtCold, note: &stateNote{built: &Built{Record: builtCold}}},
		{Record: cold2},
	}}
	sp := rep.Split()
	require.Equal(t, []int{2, 3}, sp.Each)
	require.Equal(t, []*Record{cold1, cold2}, sp.Cold)
	require.Equal(t, 18.0, sp.ColdEntries)
	require.Same(t, sp, rep.Split(), "computed once")

	// A changed state goes through Own, which drops the split.
	rep.shared = true
	states := rep.States
	rep.own()
	rep.States[0].Record = nil
	require.Same(t, cold1, states[0].Record, "Own copied the shared states")
	require.Equal(t, []*Record{cold2}, rep.Split().Cold)
}
