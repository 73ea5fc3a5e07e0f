package coldvocab

import (
	"math/rand/v2"
	"sync"
	"unsafe"

	"github.com/memidx/memidx/internal/analyzer"
)

// termSet is a builder's vocabulary in first-seen order, its terms'
// bytes in chunks of its own. Builders take one from a pool and give it
// back, emptied, when they finish: a map, a list and a copy of every term
// a session were 4.4 GB of a 100k rebuild's 24 GB of allocation.
//
// Its lookup table is its own (open addressing, linear probing, a tag
// of the hash in each slot, termHash), not a map: a token is hashed once whether
// it is new or not (a map hashed a new one twice, to look and to store),
// and emptying the set moves it to a new generation instead of clearing
// the table. The map's lookups, stores and clears were 8.3 of a 100k
// rebuild's 121 CPU-s under the profiler.
type termSet struct {
	seed  uint64     // termHash's, random
	slots []termSlot // a power of two, at most half in use
	gen   uint32     // a slot holds a term of the set when its gen is this
	// list is the terms in first-seen order, until the builder sorts
	// it (Finish): the slots' indexes into it hold only before.
	list   []string
	chunks [][]byte
	used   int // chunks in use; the last has room
	// tok tokenizes the builder's texts in memory it keeps: a token that
	// must be lowercased costs no allocation (0.28 of a 100k rebuild's
	// 8.9 GB).
	tok analyzer.Tokenizer
}

// termSlot is a slot of the table: the term list[at], the top half of
// whose hash is tag, when gen is the set's.
type termSlot struct{ gen, tag, at uint32 }

// Sized for a short session: most archive sessions are a few KB, and
// presizing for thousands of terms cost each of them 260 KB of garbage;
// a long one grows these as it goes. A set that grew past maxPooledTerms
// is not kept: a table that large would cost every later session cache
// misses.
const (
	initialTerms   = 256
	maxPooledTerms = 4096
	termChunk      = 8 << 10
	maxKeptSlots   = 8 * 2 * initialTerms
)

var termSets = sync.Pool{New: func() any {
	return &termSet{seed: rand.Uint64(), slots: make([]termSlot, 2*initialTerms), gen: 1,
		list: make([]string, 0, initialTerms)}
}}

func getTerms() *termSet { return termSets.Get().(*termSet) }

func putTerms(t *termSet) {
	if len(t.list) <= maxPooledTerms {
		t.reset()
		termSets.Put(t)
	}
}

// reset empties the set. A table grown past maxKeptSlots goes back to
// its first size: the next sessions, mostly short, would probe a large
// sparse one.
func (t *termSet) reset() {
	t.gen++
	switch {
	case len(t.slots) > maxKeptSlots:
		t.slots = make([]termSlot, 2*initialTerms)
		t.gen = 1
	case t.gen == 0: // wrapped: old slots could read as in use
		clear(t.slots)
		t.gen = 1
	}
	clear(t.list) // no string of a chunk outlives the set in a pooled list
	t.list = t.list[:0]
	for i := range t.used {
		t.chunks[i] = t.chunks[i][:0]
	}
	t.used = 0
}

// find returns where term is in the table (found), or the slot and tag
// addAt takes to add it.
func (t *termSet) find(term string) (slot int, tag uint32, found bool) {
	h := termHash(term, t.seed)
	tag = uint32(h >> 32)
	mask := len(t.slots) - 1
	for i := int(h) & mask; ; i = (i + 1) & mask {
		s := &t.slots[i]
		if s.gen != t.gen {
			return i, tag, false
		}
		if s.tag == tag && t.list[s.at] == term {
			return i, tag, true
		}
	}
}

// addAt copies term into the set's chunks, lists it and puts it in slot
// with tag, both from the find that did not find it, with no add since.
func (t *termSet) addAt(slot int, tag uint32, term string) {
	if t.used == 0 || len(t.chunks[t.used-1])+len(term) > cap(t.chunks[t.used-1]) {
		if t.used == len(t.chunks) {
			t.chunks = append(t.chunks, make([]byte, 0, max(termChunk, len(term))))
		} else if cap(t.chunks[t.used]) < len(term) {
			t.chunks[t.used] = make([]byte, 0, len(term))
		}
		t.used++
	}
	c := &t.chunks[t.used-1]
	at := len(*c)
	*c = append(*c, term...)
	s := unsafe.String(unsafe.SliceData((*c)[at:]), len(term))
	t.slots[slot] = termSlot{gen: t.gen, tag: tag, at: uint32(len(t.list))}
	t.list = append(t.list, s)
	if 2*len(t.list) > len(t.slots) {
		t.grow()
	}
}

// grow doubles the table and puts every term back in it.
func (t *termSet) grow() {
	t.slots = make([]termSlot, 2*len(t.slots))
	t.gen = 1
	for at, term := range t.list {
		slot, tag, _ := t.find(term) // the terms are distinct: never found
		t.slots[slot] = termSlot{gen: t.gen, tag: tag, at: uint32(at)}
	}
}
