package index

import "sync"

// Split sorts a report's states by how a search reaches their data. A
// search over a whole archive asks for it on every call; a report answered
// from a kept quiet refresh shares its Split with every call that gets it,
// so a quiet call walks only the records it searches, not every record.
type Split struct {
	// Each lists, in state order, the states a search looks at one by
	// one: hot records, and records built in memory (State.Built).
	Each []int
	// Cold are the other cold records, whose digests the index holds;
	// ColdEntries is the sum of their EntryCount.
	Cold        []*Record
	ColdEntries float64
}

type splitOnce struct {
	once  sync.Once
	split Split
}

// Split returns the states split by where their data is. The caller must
// not change what it returns; a change to States goes through own, which
// drops it.
func (rep *Report) Split() *Split {
	if rep.split == nil {
		rep.split = &splitOnce{}
	}
	s := rep.split
	s.once.Do(func() { s.split = splitStates(rep.States) })
	return &s.split
}

func splitStates(states []State) Split {
	// Sized first: an archive's cold list grown by appends left twice
	// its size behind as garbage.
	each, cold := 0, 0
	for i := range states {
		switch rec := states[i].Record; {
		case rec == nil:
		case rec.Tier == Hot || states[i].Built() != nil:
			each++
		default:
			cold++
		}
	}
	var sp Split
	if each > 0 {
		sp.Each = make([]int, 0, each)
	}
	if cold > 0 {
		sp.Cold = make([]*Record, 0, cold)
	}
	for i := range states {
		st := &states[i]
		switch rec := st.Record; {
		case rec == nil:
		case rec.Tier == Hot || st.Built() != nil:
			sp.Each = append(sp.Each, i)
		default:
			sp.Cold = append(sp.Cold, rec)
			sp.ColdEntries += float64(rec.EntryCount)
		}
	}
	return sp
}
