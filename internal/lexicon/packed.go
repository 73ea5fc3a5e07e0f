package lexicon

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/memidx/memidx/internal/blocksum"
)

// A packed table is how a segment stores its keys and postings since the
// lexicon became the archive's term store: the keys front-coded in runs
// of runLen, each run starting with a whole key, each key followed by its
// payload; after the entries, the offset of every run. A lookup
// binary-searches the runs' first keys in place, then scans one run. Of a
// termtab table it drops the two 4-byte offsets of every key and most of
// each key's bytes: the five real sessions' lexicon shrinks from 211 to
// about 120 KB.
//
//	"LX2\x00"  magic
//	n          uint32, number of keys
//	index      uint32, offset of the run index (the end of the entries)
//	entries    per key: uvarint shared, uvarint rest length, rest,
//	           uvarint payload length, payload (shared is 0 at a run's
//	           start)
//	runs       ceil(n/runLen) × uint32, each run's offset
var packedMagic = []byte("LX2\x00")

const (
	runLen          = 16
	packedHeaderLen = 12
	// maxEntryHead bounds the bytes of an entry's varints read at once.
	maxEntryHead = 2 * binary.MaxVarintLen32
)

// packedWriter builds a packed table from keys appended in strictly
// increasing order.
type packedWriter struct {
	b    []byte
	runs []uint32
	prev []byte
	n    int
}

// Append adds key and its payload (both copied).
func (w *packedWriter) Append(key, payload []byte) error {
	if len(w.b) == 0 {
		w.b = append(w.b, make([]byte, packedHeaderLen)...)
	}
	if w.n > 0 && bytes.Compare(w.prev, key) >= 0 {
		return fmt.Errorf("lexicon: keys not strictly increasing at %d (%q)", w.n, key)
	}
	shared := 0
	if w.n%runLen == 0 {
		w.runs = append(w.runs, uint32(len(w.b)))
	} else {
		for shared < len(w.prev) && shared < len(key) && w.prev[shared] == key[shared] {
			shared++
		}
	}
	w.b = binary.AppendUvarint(w.b, uint64(shared))
	w.b = binary.AppendUvarint(w.b, uint64(len(key)-shared))
	w.b = append(w.b, key[shared:]...)
	w.b = binary.AppendUvarint(w.b, uint64(len(payload)))
	w.b = append(w.b, payload...)
	w.prev = append(w.prev[:0], key...)
	w.n++
	if uint64(len(w.b))+4*uint64(len(w.runs)) > 1<<32-1 {
		return errors.New("lexicon: segment over 4 GiB")
	}
	return nil
}

// Bytes returns the table.
func (w *packedWriter) Bytes() []byte {
	if len(w.b) == 0 {
		w.b = append(w.b, make([]byte, packedHeaderLen)...)
	}
	copy(w.b, packedMagic)
	binary.LittleEndian.PutUint32(w.b[4:], uint32(w.n))
	binary.LittleEndian.PutUint32(w.b[8:], uint32(len(w.b)))
	for _, r := range w.runs {
		w.b = binary.LittleEndian.AppendUint32(w.b, r)
	}
	return w.b
}

// packedTable reads a packed table in place.
type packedTable struct {
	b     blocksum.Bytes
	n     int
	index int // offset of the run index
	// runKeys, when set, holds every run's first key and offset
	// (WithRunKeys).
	runKeys *RunKeys
	// giveBack, when set, is given the first key of each run a search
	// compared and passed (WithGiveBack).
	giveBack func(b []byte)
}

// openPacked checks the header and overall bounds.
func openPacked(b blocksum.Bytes) (packedTable, bool) {
	head, ok := b.Slice(0, packedHeaderLen)
	if !ok || !bytes.Equal(head[:4], packedMagic) {
		return packedTable{}, false
	}
	t := packedTable{b: b, n: int(binary.LittleEndian.Uint32(head[4:])), index: int(binary.LittleEndian.Uint32(head[8:]))}
	runs := (t.n + runLen - 1) / runLen
	if t.index < packedHeaderLen || t.index+4*runs != b.Len() || t.n > t.index {
		return packedTable{}, false
	}
	return t, true
}

func (t packedTable) runs() int { return (t.n + runLen - 1) / runLen }

// runAt returns the offset of run r, or false when it is out of bounds.
func (t packedTable) runAt(r int) (int, bool) {
	v, ok := t.b.Uint32(t.index + 4*r)
	if !ok || int(v) < packedHeaderLen || int(v) >= t.index {
		return 0, false
	}
	return int(v), true
}

// entry is one decoded entry: the rest of its key after shared bytes of
// the one before, where its payload lies, and where the next entry
// starts. The payload is read (and its blocks verified) only by payload:
// a search passes over the postings of every key it compares, and those
// of a common word run to kilobytes.
type entry struct {
	shared int
	rest   []byte
	payAt  int
	payLen int
	next   int
}

// payload returns e's payload, verified; false when it is damaged.
func (t packedTable) payload(e entry) ([]byte, bool) {
	return t.b.Slice(e.payAt, e.payAt+e.payLen)
}

// entryAt reads the entry at off; false when it is damaged.
func (t packedTable) entryAt(off int) (entry, bool) {
	head, ok := t.b.Slice(off, min(off+maxEntryHead, t.index))
	if !ok {
		return entry{}, false
	}
	shared, k1 := binary.Uvarint(head)
	if k1 <= 0 {
		return entry{}, false
	}
	rest, k2 := binary.Uvarint(head[k1:])
	if k2 <= 0 || rest > uint64(t.index) || shared > uint64(t.index) {
		return entry{}, false
	}
	pos := off + k1 + k2
	e := entry{shared: int(shared)}
	if e.rest, ok = t.b.Slice(pos, pos+int(rest)); !ok {
		return entry{}, false
	}
	pos += int(rest)
	head, ok = t.b.Slice(pos, min(pos+binary.MaxVarintLen32, t.index))
	if !ok {
		return entry{}, false
	}
	plen, k3 := binary.Uvarint(head)
	if k3 <= 0 || plen > uint64(t.index) {
		return entry{}, false
	}
	pos += k3
	e.payAt, e.payLen = pos, int(plen)
	e.next = pos + int(plen)
	return e, e.next <= t.index
}

// lastRunAtMost returns the number of runs whose first key is at most
// key (0: key sorts before the first key) and, when it is not 0, where
// the last of them starts; ok is false when the table is damaged. With
// run keys, their choice is checked in place: the first keys of the run
// chosen and of the one after it must be theirs. Run keys that do not
// hold are of other bytes: they are marked stale (a reader that keeps
// them reads them again) and the search runs in place, so that run keys
// cost at most time, never an answer.
func (t packedTable) lastRunAtMost(key string) (lo, off int, ok bool) {
	if rk := t.runKeys; rk != nil && !rk.Stale() {
		lo := rk.atMost(key)
		if t.runKeyHolds(lo-1) && t.runKeyHolds(lo) {
			if lo == 0 {
				return 0, 0, true
			}
			return lo, int(rk.offs[lo-1]), true
		}
		rk.stale.Store(true)
	}
	hi := t.runs()
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		off, ok := t.runAt(mid)
		if !ok {
			return 0, 0, false
		}
		first, ok := t.runFirstAt(off)
		if !ok {
			return 0, 0, false
		}
		if string(first) <= key {
			lo = mid + 1
		} else {
			hi = mid
		}
		if t.giveBack != nil {
			t.giveBack(first)
		}
	}
	if lo == 0 {
		return 0, 0, true
	}
	off, ok = t.runAt(lo - 1)
	return lo, off, ok
}

// runKeyHolds reports whether the entry at run r's offset in the run
// keys starts a run with their first key (true for an r past either end:
// nothing to check).
func (t packedTable) runKeyHolds(r int) bool {
	rk := t.runKeys
	if r < 0 || r >= len(rk.offs) {
		return true
	}
	first, ok := t.runFirstAt(int(rk.offs[r]))
	return ok && string(first) == string(rk.key(r))
}

// runFirstAt returns the whole key of the entry at off, which starts a
// run (it shares nothing with a key before it); false when it does not,
// or is damaged.
func (t packedTable) runFirstAt(off int) ([]byte, bool) {
	e, ok := t.entryAt(off)
	return e.rest, ok && e.shared == 0
}

// iterFrom returns an iterator whose walk starts at the run that holds
// key's place: every key from key on comes out of it, after at most a
// run's worth of smaller ones.
func (t packedTable) iterFrom(key string) (*packedIter, bool) {
	lo, off, ok := t.lastRunAtMost(key)
	if !ok {
		return nil, false
	}
	it := t.iter()
	if lo <= 1 {
		return it, true
	}
	// A run starts with a whole key: the walk resumes there as if the
	// keys before it had been read.
	it.i, it.off = (lo-1)*runLen-1, off
	it.keys[it.i&1] = it.keys[it.i&1][:0]
	return it, true
}

// find returns the payload of key; found is false when key is absent, ok
// false when the table is damaged.
func (t packedTable) find(key string) (pay []byte, found, ok bool) {
	// The last run whose first key is at most key.
	lo, off, ok := t.lastRunAtMost(key)
	if !ok {
		return nil, false, false
	}
	if lo == 0 {
		return nil, false, true // before the first key
	}
	// Keys are short (words, structural keys); a longer one grows cur once.
	var buf [256]byte
	cur := buf[:0]
	for i := (lo - 1) * runLen; i < min(lo*runLen, t.n); i++ {
		e, ok := t.entryAt(off)
		if !ok || e.shared > len(cur) {
			return nil, false, false
		}
		cur = append(cur[:e.shared], e.rest...)
		// Compared as strings in place: no copy of either.
		switch {
		case string(cur) == key:
			pay, ok := t.payload(e)
			return pay, ok, ok
		case string(cur) > key:
			return nil, false, true
		}
		off = e.next
	}
	return nil, false, true
}

// packedIter walks a packed table in order. Its key stays valid until
// the walk has moved on twice (a merge compares the key of one input's
// previous position with the others' while that input is already on its
// next one).
type packedIter struct {
	t    packedTable
	i    int // position of the current entry; -1 before the first
	off  int // offset of the next entry
	keys [2][]byte
	pay  []byte
	// keysOnly leaves each payload unread (and unverified) until
	// payload asks for it: a scan of keys passes over most postings.
	keysOnly bool
	cur      entry
}

func (t packedTable) iter() *packedIter {
	return &packedIter{t: t, i: -1, off: packedHeaderLen}
}

// next moves to the next entry; false at the end or on damage (ok says
// which).
func (it *packedIter) next() (more, ok bool) {
	if it.i+1 >= it.t.n {
		return false, true
	}
	e, ok := it.t.entryAt(it.off)
	prev := it.keys[it.i&1]
	if it.i < 0 {
		prev = nil
	}
	if !ok || e.shared > len(prev) || it.i+1 == 0 && e.shared != 0 {
		return false, false
	}
	// Decoded into the other buffer, and refused unless it sorts after
	// the one before: a merge holds the previous key while it moves on,
	// and a repeated key would overwrite it in place.
	slot := &it.keys[(it.i+1)&1]
	*slot = append(append((*slot)[:0], prev[:e.shared]...), e.rest...)
	if it.i >= 0 && bytes.Compare(*slot, prev) <= 0 {
		return false, false
	}
	it.cur, it.pay = e, nil
	if !it.keysOnly {
		pay, ok := it.t.payload(e)
		if !ok {
			return false, false
		}
		it.pay = pay
	}
	it.i++
	it.off = e.next
	return true, true
}

// payload returns the current entry's payload, verified; false when it is
// damaged.
func (it *packedIter) payload() ([]byte, bool) {
	if it.pay != nil {
		return it.pay, true
	}
	return it.t.payload(it.cur)
}

func (it *packedIter) key() []byte { return it.keys[it.i&1] }
