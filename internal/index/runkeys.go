package index

import (
	"bytes"
	"sync"

	"github.com/memidx/memidx/internal/blocksum"
	"github.com/memidx/memidx/internal/lexicon"
)

// runKeysMemo keeps, for a long-lived Index, the run keys of the lexicon
// segments it read (lexicon.RunKeys): a lookup then reads one run of
// each segment instead of binary-searching it in place, which had the
// page cache map most of each segment (whole folios) on every call of a
// server. A segment is never rewritten under its key within a lexicon (a
// merge writes a new one), but a file put back from a copy (same lexicon
// id, an older sequence) can hold other bytes under a key the memo
// knows: so the run keys are kept with the stamp of the bytes they were
// read from (blocksum.Stamp: the block sums, not the data), checked again
// at each new commit, and trusted within the commit they were checked at
// (its bytes do not change). Those of a mode's segments no longer listed
// (merged away) are let go. Should run keys of other bytes slip through
// (equal stamps: the sums are CRCs, not a MAC), a lookup checks the runs
// it picks in place, searches in place instead and marks them stale, and
// they are read again here.
type runKeysMemo struct {
	mu   sync.Mutex
	id   string
	segs map[string]*runKeysOf
}

// runKeysOf are one segment's run keys, the stamp of its bytes and the
// commit they were last checked at.
type runKeysOf struct {
	rk    *lexicon.RunKeys
	stamp uint32
	at    commit
}

// with returns s, whose sealed bytes are raw, reading its run keys:
// kept from an earlier read, checked against raw at commit at, or read
// now (read is then called: reading them mapped the whole segment).
// listed are the keys of the lexicon's segments of s's mode now. A
// segment whose run keys or stamp do not read is returned as it is: its
// lookups meet the same damage.
func (m *runKeysMemo) with(id string, at commit, key []byte, listed [][]byte, raw []byte, s lexicon.Segment, read func()) lexicon.Segment {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.id != id || m.segs == nil {
		m.id, m.segs = id, map[string]*runKeysOf{}
	}
	e := m.segs[string(key)]
	if e != nil && e.rk.Stale() {
		e = nil // a lookup found them not to hold for the bytes it read
	}
	if e == nil || e.at != at {
		// One stamp of raw: to check the kept run keys, and to keep
		// those read now when they are not.
		stamp, ok := blocksum.Stamp(raw)
		if e != nil && ok && stamp == e.stamp {
			e.at = at
			return s.WithRunKeys(e.rk)
		}
		delete(m.segs, string(key))
		if !ok {
			return s
		}
		rk, err := s.RunKeys()
		if err != nil {
			return s
		}
		read()
		m.forgetUnlisted(listed)
		e = &runKeysOf{rk: rk, stamp: stamp, at: at}
		m.segs[string(key)] = e
	}
	return s.WithRunKeys(e.rk)
}

// forgetUnlisted drops the run keys of the segments of listed's mode
// that listed no longer holds (merged away); the other mode's stay.
func (m *runKeysMemo) forgetUnlisted(listed [][]byte) {
	if len(listed) == 0 {
		return
	}
	mode := listed[0][:bytes.IndexByte(listed[0], 0)+1] // "<mode>\x00", the keys' own prefix
	keep := make(map[string]bool, len(listed))
	for _, k := range listed {
		keep[string(k)] = true
	}
	for k := range m.segs {
		if !keep[k] && len(k) >= len(mode) && k[:len(mode)] == string(mode) {
			delete(m.segs, k)
		}
	}
}
