package index

import (
	"sync"

	"github.com/memidx/memidx/internal/lexicon"
)

// runKeysMemo keeps, for a long-lived Index, the run keys of the lexicon
// segments it read (lexicon.RunKeys): a lookup then reads one run of
// each segment instead of binary-searching it in place, which had the
// page cache map most of each segment (whole folios) on every call of a
// server. A segment is never rewritten under its key within a lexicon
// (a merge writes a new one), and a lexicon made anew has a new id, so
// run keys are kept by the lexicon's id and the segment's key, across
// commits; the run keys of segments no longer listed are let go.
type runKeysMemo struct {
	mu   sync.Mutex
	id   string
	segs map[string]*lexicon.RunKeys
}

// with returns s reading its run keys, read now (then read is called:
// reading them mapped the whole segment) or kept from an earlier read.
// listed are the keys of the lexicon's segments now. A segment whose run
// keys do not read is returned as it is: its lookups meet the same damage.
func (m *runKeysMemo) with(id string, key []byte, listed [][]byte, s lexicon.Segment, read func()) lexicon.Segment {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.id != id || m.segs == nil {
		m.id, m.segs = id, map[string]*lexicon.RunKeys{}
	}
	rk, ok := m.segs[string(key)]
	if !ok {
		var err error
		if rk, err = s.RunKeys(); err != nil {
			return s
		}
		read()
		m.forgetUnlisted(listed)
		m.segs[string(key)] = rk
	}
	return s.WithRunKeys(rk)
}

// forgetUnlisted drops the run keys of segments not in listed (merged
// away).
func (m *runKeysMemo) forgetUnlisted(listed [][]byte) {
	if len(m.segs) < len(listed) {
		return
	}
	keep := make(map[string]bool, len(listed))
	for _, k := range listed {
		keep[string(k)] = true
	}
	for k := range m.segs {
		if !keep[k] {
			delete(m.segs, k)
		}
	}
}
