package lexicon

import (
	"sort"
	"sync/atomic"
)

// RunKeys is the first key and the offset of every run of a packed
// segment, held in the heap by a reader that looks terms up again and
// again (a server): a lookup then binary-searches them instead of the
// runs in place, and reads one run of the segment. In place, the search
// touches some 13 runs spread over an 8 MB segment, and the page cache,
// which maps whole folios on a fault, mapped most of the segment for it.
// It is pointer-free (the keys in one array): some 17 bytes a run, about
// 1 MB for a 100k archive's 55,000 runs.
type RunKeys struct {
	keys []byte   // the first keys, one after another
	ends []uint32 // run i's key ends at ends[i] in keys
	offs []uint32 // run i's offset in the table
	// stale is set by a lookup that found them not to hold for the
	// bytes it read (see lastRunAtMost): they are used no more.
	stale atomic.Bool
}

// Stale reports whether a lookup found rk not to hold for its segment's
// bytes: the reader that keeps them reads them again.
func (rk *RunKeys) Stale() bool { return rk.stale.Load() }

// RunKeys reads the first key of every run of s; nil for a segment
// written before packed tables, whose lookups stay in place. It reads
// (and verifies) every run's first entry once.
func (s Segment) RunKeys() (*RunKeys, error) {
	if !s.packed {
		return nil, nil
	}
	t := s.p
	n := t.runs()
	rk := &RunKeys{ends: make([]uint32, 0, n), offs: make([]uint32, 0, n)}
	for r := range n {
		off, ok := t.runAt(r)
		if !ok {
			return nil, s.damaged()
		}
		first, ok := t.runFirstAt(off)
		if !ok {
			return nil, s.damaged()
		}
		rk.keys = append(rk.keys, first...)
		rk.ends = append(rk.ends, uint32(len(rk.keys)))
		rk.offs = append(rk.offs, uint32(off))
	}
	return rk, nil
}

// key is run i's first key.
func (rk *RunKeys) key(i int) []byte {
	from := uint32(0)
	if i > 0 {
		from = rk.ends[i-1]
	}
	return rk.keys[from:rk.ends[i]]
}

// WithRunKeys returns s reading rk for its lookups; s as it is when rk
// does not fit it (another run count). rk should have been read from
// the same bytes (package index keeps them with their blocksum.Stamp);
// run keys of other bytes cost time, never an answer: each lookup checks
// the first keys of the run it picks and of the next in place, and when
// they are not rk's, marks rk stale and searches in place.
func (s Segment) WithRunKeys(rk *RunKeys) Segment {
	if s.packed && rk != nil && len(rk.offs) == s.p.runs() {
		s.p.runKeys = rk
	}
	return s
}

// WithGiveBack returns s giving fn the first key of each run a lookup's
// binary search compares, once compared: a caller that reads s from a
// file's map can give back the pages each probe mapped. The probes of a
// large segment fall in pages megabytes apart, and a page cache that
// holds the file in large folios maps a whole folio (up to 2 MiB) for
// each: 10 MB a lookup at 100k sessions. fn must not keep b.
func (s Segment) WithGiveBack(fn func(b []byte)) Segment {
	if s.packed {
		s.p.giveBack = fn
	}
	return s
}

// GivesBack reports whether s has a give-back hook (WithGiveBack).
func (s Segment) GivesBack() bool { return s.p.giveBack != nil }

// atMost returns the number of runs whose first key is at most key.
func (rk *RunKeys) atMost(key string) int {
	return sort.Search(len(rk.offs), func(i int) bool { return string(rk.key(i)) > key })
}
