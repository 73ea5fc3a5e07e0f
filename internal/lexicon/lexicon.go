package lexicon

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"

	"github.com/memidx/memidx/internal/blocksum"
	"github.com/memidx/memidx/internal/termtab"
)

// ErrCorrupt is returned for a segment whose bytes are not a valid one.
var ErrCorrupt = errors.New("lexicon: corrupt segment")

// Source is one session's keys, distinct, read in place (a digest's
// tables): building a segment merges them without a map or a copy of any
// key but the segment's own. BuildSorted takes them in strictly
// increasing byte order; Gather (and BuildGathered) in any order.
type Source struct {
	Doc uint32
	Len int
	Key func(i int) []byte
}

// BuildSorted writes one sealed segment of the sessions in srcs.
func BuildSorted(srcs []Source) ([]byte, error) {
	var w segmentWriter
	err := mergeSorted(len(srcs),
		func(src, pos int) ([]byte, bool) {
			if pos >= srcs[src].Len {
				return nil, false
			}
			return srcs[src].Key(pos), true
		},
		func(c cursor) error { w.docs = append(w.docs, srcs[c.src].Doc); return nil },
		w.flush)
	if err != nil {
		return nil, err
	}
	return blocksum.Seal(w.out.Bytes())
}

// Builder collects the keys of sessions for one segment (tests and small
// segments; BuildSorted is the merge that needs no map).
type Builder struct {
	srcs []Source
}

// NewBuilder returns an empty Builder.
func NewBuilder() *Builder { return &Builder{} }

// Add records that session doc holds each of keys.
func (b *Builder) Add(doc uint32, keys []string) {
	keys = slices.Clone(keys)
	slices.Sort(keys)
	keys = slices.Compact(keys)
	b.srcs = append(b.srcs, Source{Doc: doc, Len: len(keys), Key: func(i int) []byte { return []byte(keys[i]) }})
}

// Build encodes and seals the segment.
func (b *Builder) Build() ([]byte, error) { return BuildSorted(b.srcs) }

// appendPostings appends the encoding of increasing doc numbers.
func appendPostings(b []byte, docs []uint32) []byte {
	b = binary.AppendUvarint(b, uint64(len(docs)))
	prev := uint32(0)
	for _, d := range docs {
		b = binary.AppendUvarint(b, uint64(d-prev))
		prev = d
	}
	return b
}

// Segment is one sealed segment read in place (from the memory map): valid
// as long as its bytes. A segment is a packed table (packed.go); one
// written before is a termtab table, still read.
type Segment struct {
	p      packedTable
	t      termtab.Table
	packed bool
}

// Open checks a sealed segment's header; lookups verify what they read.
func Open(sealed []byte) (Segment, error) { return OpenSeen(sealed, nil) }

// OpenSeen is Open with the verified blocks kept in seen (see
// blocksum.Seen), when not nil.
func OpenSeen(sealed []byte, seen *blocksum.Seen) (Segment, error) {
	b, err := blocksum.OpenSeen(sealed, seen)
	if err != nil {
		return Segment{}, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	if p, ok := openPacked(b); ok {
		return Segment{p: p, packed: true}, nil
	}
	if head, ok := b.Slice(0, min(4, b.Len())); ok && bytes.Equal(head, packedMagic) {
		return Segment{}, fmt.Errorf("%w: packed table header", ErrCorrupt)
	}
	t, err := termtab.Open(b)
	if err != nil {
		return Segment{}, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	return Segment{t: t}, nil
}

// Err reports damage that a read of the segment met.
func (s Segment) Err() error {
	err := s.t.Err()
	if s.packed {
		err = s.p.b.Err()
	}
	if err != nil {
		return fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	return nil
}

// Len is the number of keys.
func (s Segment) Len() int {
	if s.packed {
		return s.p.n
	}
	return s.t.Len()
}

// AppendDocs appends the doc numbers that hold key to dst, in increasing
// order.
func (s Segment) AppendDocs(dst []uint32, key string) ([]uint32, error) {
	if s.packed {
		p, found, ok := s.p.find(key)
		if !ok {
			return dst, s.damaged()
		}
		if !found {
			return dst, s.Err()
		}
		return s.appendPostings(dst, p)
	}
	i, ok := s.t.Find(key)
	if !ok {
		return dst, s.Err()
	}
	return s.appendPostings(dst, s.t.Payload(i))
}

// AppendMatchingDocs appends to dst the docs of every key that starts with
// prefix and that match accepts (the key is valid only during the call),
// per key in increasing order; a doc held by several keys is appended
// once for each. The scan ends early when match says more is false.
func (s Segment) AppendMatchingDocs(dst []uint32, prefix string, match func(key []byte) (take, more bool)) ([]uint32, error) {
	if !s.packed {
		lo, hi := s.t.Prefix(prefix)
		for i := lo; i < hi; i++ {
			take, more := match(s.t.Term(i))
			if !more {
				break
			}
			if take {
				var err error
				if dst, err = s.appendPostings(dst, s.t.Payload(i)); err != nil {
					return dst, err
				}
			}
		}
		return dst, s.Err()
	}
	it, ok := s.p.iterFrom(prefix)
	if !ok {
		return dst, s.damaged()
	}
	it.keysOnly = true
	for {
		more, ok := it.next()
		if !ok {
			return dst, s.damaged()
		}
		if !more {
			return dst, s.Err()
		}
		k := it.key()
		if string(k) < prefix {
			continue
		}
		if !bytes.HasPrefix(k, []byte(prefix)) {
			return dst, s.Err()
		}
		take, more := match(k)
		if !more {
			return dst, s.Err()
		}
		if take {
			pay, ok := it.payload()
			if !ok {
				return dst, s.damaged()
			}
			var err error
			if dst, err = s.appendPostings(dst, pay); err != nil {
				return dst, err
			}
		}
	}
}

// damaged is the error of a read that found the segment's shape wrong.
func (s Segment) damaged() error {
	if err := s.Err(); err != nil {
		return err
	}
	return ErrCorrupt
}

// appendPostings decodes the postings p (nil: damaged) onto dst.
func (s Segment) appendPostings(dst []uint32, p []byte) ([]uint32, error) {
	if p == nil {
		return dst, s.damaged()
	}
	n, k := binary.Uvarint(p)
	if k <= 0 || n > uint64(len(p)) {
		return dst, ErrCorrupt
	}
	p = p[k:]
	cur := uint64(0)
	for j := uint64(0); j < n; j++ {
		d, k := binary.Uvarint(p)
		if k <= 0 {
			return dst, ErrCorrupt
		}
		p = p[k:]
		cur += d
		if cur > 1<<32-1 || (j > 0 && d == 0) {
			return dst, ErrCorrupt
		}
		dst = append(dst, uint32(cur))
	}
	return dst, s.Err()
}

// walker walks a segment's keys in order, whatever its layout.
type walker struct {
	s   Segment
	it  *packedIter
	pos int
}

func (s Segment) walk() *walker {
	w := &walker{s: s, pos: -1}
	if s.packed {
		w.it = s.p.iter()
	}
	return w
}

// next moves to the next key; false at the end, or on damage (then err).
func (w *walker) next() (bool, error) {
	if w.it != nil {
		more, ok := w.it.next()
		if !ok {
			return false, w.s.damaged()
		}
		return more, nil
	}
	w.pos++
	return w.pos < w.s.t.Len(), nil
}

// key is the current key: valid until the walker has moved on twice.
func (w *walker) key() []byte {
	if w.it != nil {
		return w.it.key()
	}
	return w.s.t.Term(w.pos)
}

// payload is the current key's postings (nil: damaged).
func (w *walker) payload() []byte {
	if w.it != nil {
		return w.it.pay
	}
	return w.s.t.Payload(w.pos)
}

// appendDocs appends the current key's docs to dst.
func (w *walker) appendDocs(dst []uint32) ([]uint32, error) {
	if w.it != nil {
		return w.s.appendPostings(dst, w.it.pay)
	}
	return w.s.appendPostings(dst, w.s.t.Payload(w.pos))
}

// Merge folds segments into one, keeping only the docs live reports true
// for; a key left with no doc is dropped. The result is sealed.
func Merge(segs []Segment, live func(doc uint32) bool) ([]byte, error) {
	return MergeEvery(segs, live, 0, nil)
}

// MergeEvery is Merge that calls every after each n keys it walked: a
// caller whose segments are mapped from a file lets go of the pages read
// so far (a merge of 8 inputs of 8 MB otherwise keeps them all mapped
// until it ends: some 100 MB of a rebuild's peak RSS at 100k sessions).
func MergeEvery(segs []Segment, live func(doc uint32) bool, n int, every func()) ([]byte, error) {
	w := segmentWriter{live: live, every: every, n: n}
	walks := make([]*walker, len(segs))
	size := 0
	for i, s := range segs {
		walks[i] = s.walk()
		if s.packed {
			size += s.p.index
		}
	}
	// The merge is at most its inputs' size (each key once instead of once
	// an input): room for it at once, not by doubling (a tenth of a
	// rebuild's allocation was merges' and gathers' segments growing).
	w.out.b = make([]byte, 0, size+packedHeaderLen)
	var walkErr error
	one := soleInput{w: &w, segs: segs, walks: walks, first: -1}
	err := mergeSorted(len(segs),
		func(src, pos int) ([]byte, bool) {
			// mergeSorted asks each input for its positions in turn.
			more, err := walks[src].next()
			if err != nil {
				walkErr = err
			}
			if !more || err != nil {
				return nil, false
			}
			return walks[src].key(), true
		},
		one.add, one.done)
	if err == nil {
		err = walkErr
	}
	if err != nil {
		return nil, err
	}
	for _, s := range segs {
		if err := s.Err(); err != nil {
			return nil, err
		}
	}
	return blocksum.Seal(w.out.Bytes())
}

// soleInput passes on as they are the postings of a key that only one
// input of an unfiltered merge holds, once checked: most keys of a
// rebuild's merges are rare words of one batch, and decoding their docs
// to encode them again was half of a merge's work. A key of several
// inputs, or of a merge that drops docs, goes through the writer's flush.
type soleInput struct {
	w     *segmentWriter
	segs  []Segment
	walks []*walker
	// first is the input the current key was found in first, while it
	// is the only one (-1: none, or decoded already); pay its postings.
	first int
	pay   []byte
}

func (o *soleInput) add(c cursor) (err error) {
	w := o.w
	if w.live == nil && o.first < 0 && len(w.docs) == 0 {
		o.first, o.pay = c.src, o.walks[c.src].payload()
		return nil
	}
	if o.first >= 0 { // a second input: the first's docs are needed too
		w.docs, err = o.segs[o.first].appendPostings(w.docs, o.pay)
		o.first = -1
		if err != nil {
			return err
		}
	}
	w.docs, err = o.walks[c.src].appendDocs(w.docs)
	return err
}

func (o *soleInput) done(key []byte) error {
	if o.first < 0 {
		return o.w.flush(key)
	}
	src, pay := o.first, o.pay
	o.first = -1
	if pay == nil {
		return o.segs[src].damaged()
	}
	if !canonicalPostings(pay) {
		return ErrCorrupt
	}
	o.w.counted()
	return o.w.out.Append(key, pay)
}

// canonicalPostings reports whether p is a postings list as
// appendPostings writes it: a count, then that many strictly increasing
// docs as deltas, each uvarint minimal, and nothing more.
func canonicalPostings(p []byte) bool {
	n, k := uvarintMinimal(p)
	if k <= 0 || n > uint64(len(p)) {
		return false
	}
	p = p[k:]
	cur := uint64(0)
	for j := uint64(0); j < n; j++ {
		d, k := uvarintMinimal(p)
		if k <= 0 || (j > 0 && d == 0) {
			return false
		}
		if cur += d; cur > 1<<32-1 {
			return false
		}
		p = p[k:]
	}
	return len(p) == 0
}

// uvarintMinimal is binary.Uvarint that also refuses a value written in
// more bytes than it needs (a last byte of 0 after others).
func uvarintMinimal(p []byte) (uint64, int) {
	v, k := binary.Uvarint(p)
	if k > 1 && p[k-1] == 0 {
		return 0, 0
	}
	return v, k
}

// segmentWriter writes the merged postings of each key in turn.
type segmentWriter struct {
	out  packedWriter
	docs []uint32
	pay  []byte
	live func(doc uint32) bool // nil: every doc
	// every is called after each n keys (MergeEvery); seen counts them.
	every func()
	n     int
	seen  int
}

// flush writes key with the docs gathered for it, if any is live.
func (w *segmentWriter) flush(key []byte) error {
	w.counted()
	docs := w.docs
	w.docs = w.docs[:0]
	if w.live != nil {
		docs = slices.DeleteFunc(docs, func(d uint32) bool { return !w.live(d) })
	}
	if len(docs) == 0 {
		return nil
	}
	slices.Sort(docs)
	w.pay = appendPostings(w.pay[:0], slices.Compact(docs))
	return w.out.Append(key, w.pay)
}

// counted counts a key walked, and calls every after each n of them.
func (w *segmentWriter) counted() {
	if w.every != nil {
		if w.seen++; w.seen%w.n == 0 {
			w.every()
		}
	}
}

// mergeSorted walks n sorted inputs in key order: for each key, add is
// called for every input positioned at it (which then moves on), then
// done with the key. keyAt returns an input's key at a position, or false
// past its end.
func mergeSorted(n int, keyAt func(src, pos int) ([]byte, bool), add func(cursor) error, done func(key []byte) error) error {
	h := &cursors{}
	for i := range n {
		if k, ok := keyAt(i, 0); ok {
			h.push(newCursor(i, 0, k))
		}
	}
	for h.Len() > 0 {
		key := h.top().key
		for h.Len() > 0 && bytes.Equal(h.top().key, key) {
			c := h.top()
			if err := add(c); err != nil {
				return err
			}
			if k, ok := keyAt(c.src, c.pos+1); ok {
				h.replaceTop(newCursor(c.src, c.pos+1, k))
			} else {
				h.pop()
			}
		}
		if err := done(key); err != nil {
			return err
		}
	}
	return nil
}

// cursor is a position in one sorted input of a merge. pre holds the
// key's first 8 bytes, big-endian and zero-padded: most comparisons of
// short words end there, without a call to bytes.Compare.
type cursor struct {
	src, pos int
	key      []byte
	pre      uint64
}

func newCursor(src, pos int, key []byte) cursor {
	var b [8]byte
	copy(b[:], key)
	return cursor{src: src, pos: pos, key: key, pre: binary.BigEndian.Uint64(b[:])}
}

// cursors is a min-heap of cursors by key, then input.
type cursors struct{ c []cursor }

func (h *cursors) Len() int    { return len(h.c) }
func (h *cursors) top() cursor { return h.c[0] }

func (h *cursors) less(i, j int) bool {
	a, b := &h.c[i], &h.c[j]
	if a.pre != b.pre {
		return a.pre < b.pre
	}
	if c := bytes.Compare(a.key, b.key); c != 0 {
		return c < 0
	}
	return a.src < b.src
}

func (h *cursors) push(c cursor) {
	h.c = append(h.c, c)
	for i := len(h.c) - 1; i > 0; {
		p := (i - 1) / 2
		if !h.less(i, p) {
			break
		}
		h.c[i], h.c[p] = h.c[p], h.c[i]
		i = p
	}
}

func (h *cursors) pop() {
	last := len(h.c) - 1
	h.c[0] = h.c[last]
	h.c = h.c[:last]
	h.down()
}

func (h *cursors) replaceTop(c cursor) {
	h.c[0] = c
	h.down()
}

func (h *cursors) down() {
	for i := 0; ; {
		l, small := 2*i+1, i
		if l < len(h.c) && h.less(l, small) {
			small = l
		}
		if r := l + 1; r < len(h.c) && h.less(r, small) {
			small = r
		}
		if small == i {
			return
		}
		h.c[i], h.c[small] = h.c[small], h.c[i]
		i = small
	}
}

// EachKey calls fn with every key of the segment, in order; the slice is
// valid only during the call.
func (s Segment) EachKey(fn func(key []byte)) error {
	return s.each(func(w *walker) error { fn(w.key()); return nil })
}

// each calls fn at every key of the segment, in order, until fn fails.
func (s Segment) each(fn func(w *walker) error) error {
	w := s.walk()
	for {
		more, err := w.next()
		if err != nil || !more {
			return err
		}
		if err := fn(w); err != nil {
			return err
		}
	}
}

// EachPostingIn calls fn with every key of the segment that holds a doc
// in [lo, hi], and those of its docs, in key order; both are valid only
// during the call. A key's postings are decoded only up to hi: a caller
// that wants a few docs of close numbers reads little more than the keys.
// It stops at the first error fn returns, or at damage.
func (s Segment) EachPostingIn(lo, hi uint32, fn func(key []byte, docs []uint32) error) error {
	var docs []uint32
	return s.each(func(w *walker) error {
		p := w.payload()
		if p == nil {
			return s.damaged()
		}
		var err error
		if docs, err = postingsIn(docs[:0], p, lo, hi); err != nil {
			return err
		}
		if len(docs) == 0 {
			return nil
		}
		return fn(w.key(), docs)
	})
}

// postingsIn appends the docs of postings p that are in [lo, hi].
func postingsIn(dst []uint32, p []byte, lo, hi uint32) ([]uint32, error) {
	n, k := binary.Uvarint(p)
	if k <= 0 || n > uint64(len(p)) {
		return dst, ErrCorrupt
	}
	p = p[k:]
	cur := uint64(0)
	for j := uint64(0); j < n; j++ {
		d, k := binary.Uvarint(p)
		if k <= 0 {
			return dst, ErrCorrupt
		}
		p = p[k:]
		cur += d
		if cur > 1<<32-1 || (j > 0 && d == 0) {
			return dst, ErrCorrupt
		}
		if cur > uint64(hi) {
			break
		}
		if cur >= uint64(lo) {
			dst = append(dst, uint32(cur))
		}
	}
	return dst, nil
}
