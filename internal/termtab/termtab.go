package termtab

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/memidx/memidx/internal/blocksum"
)

var magic = []byte("TT1\x00")

const (
	flagPayloads = 1
	// flagHead: the table ends with its head (see headEvery).
	flagHead = 2
)

// headEvery is the sampling of a table's head: the first 8 bytes of every
// headEvery-th term, big-endian, so that a lookup first narrows its binary
// search to a run of about headEvery terms by reading the head (a few
// blocks in one place) instead of touching a block of offsets and one of
// terms at every step (about 24 blocks for a 20,000-term dictionary, each
// a page fault and a checksum the first time a process reads it).
const headEvery = 32

// ErrCorrupt is returned by Open for bytes that are not a valid table.
var ErrCorrupt = errors.New("termtab: corrupt table")

// Build encodes terms, which must be sorted in increasing byte order with no
// duplicates, and their payloads (nil for none; otherwise one per term).
func Build(terms []string, payloads [][]byte) ([]byte, error) {
	if payloads != nil && len(payloads) != len(terms) {
		return nil, fmt.Errorf("termtab: %d terms but %d payloads", len(terms), len(payloads))
	}
	size, flags := sections(payloads, len(terms))
	b, err := start(terms, size, flags)
	if err != nil {
		return nil, err
	}
	b = appendSection(b, terms)
	if payloads != nil {
		b = appendSection(b, payloads)
	}
	return appendHead(b, terms), nil
}

// Size is the length of Build(terms, payloads), which it does not check:
// what a caller that needs only the length (a digest counting its size)
// would otherwise build a table for.
func Size(terms []string, payloads [][]byte) int {
	termBytes, payloadBytes := 0, 0
	for _, t := range terms {
		termBytes += len(t)
	}
	for _, p := range payloads {
		payloadBytes += len(p)
	}
	if payloads == nil {
		payloadBytes = -1
	}
	return SizeOf(len(terms), termBytes, payloadBytes)
}

// SizeOf is Size of n terms of termBytes in all, with payloads of
// payloadBytes in all (-1: no payloads).
func SizeOf(n, termBytes, payloadBytes int) int {
	size := 12 + 4*(n+1) + headLen(n) + termBytes
	if payloadBytes >= 0 {
		size += 4*(n+1) + payloadBytes
	}
	return size
}

// sections returns the bytes of a table of n terms besides the terms'
// and the head's, and its flags.
func sections(payloads [][]byte, n int) (size int, flags uint32) {
	size = 12 + 4*(n+1)
	if payloads != nil {
		size += 4 * (n + 1)
		for _, p := range payloads {
			size += len(p)
		}
		flags |= flagPayloads
	}
	return size, flags
}

// start checks that terms are strictly increasing and the table, of size
// bytes besides the terms' and the head's, fits its 32-bit offsets, and
// returns a buffer of the table's whole size with the header written
// (every table gets a head: appendHead ends it).
func start(terms []string, size int, flags uint32) ([]byte, error) {
	size += headLen(len(terms))
	flags |= flagHead
	for i, t := range terms {
		if i > 0 && terms[i-1] >= t {
			return nil, fmt.Errorf("termtab: terms not strictly increasing at %d (%q, %q)", i, terms[i-1], t)
		}
		size += len(t)
	}
	if uint64(size) > 1<<32-1 {
		return nil, errors.New("termtab: table over 4 GiB")
	}
	b := make([]byte, 0, size)
	b = append(b, magic...)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(terms)))
	return binary.LittleEndian.AppendUint32(b, flags), nil
}

// BuildPacked is Build with the payloads back to back in pays, payload i
// ending at ends[i]: the same bytes, without a slice per payload (a
// shard of a million terms would spend 24 MB on their headers alone).
func BuildPacked(terms []string, pays []byte, ends []uint32) ([]byte, error) {
	if len(ends) != len(terms) || len(terms) > 0 && int(ends[len(ends)-1]) != len(pays) {
		return nil, fmt.Errorf("termtab: %d terms but %d payload ends for %d bytes", len(terms), len(ends), len(pays))
	}
	b, err := start(terms, 12+8*(len(terms)+1)+len(pays), flagPayloads)
	if err != nil {
		return nil, err
	}
	b = appendSection(b, terms)
	b = binary.LittleEndian.AppendUint32(b, 0)
	for _, e := range ends {
		b = binary.LittleEndian.AppendUint32(b, e)
	}
	b = append(b, pays...)
	return appendHead(b, terms), nil
}

func headLen(n int) int { return 8 * ((n + headEvery - 1) / headEvery) }

// prefix8 is the first 8 bytes of s, zero-padded, as a big-endian number:
// prefixes compare as their strings do, but for ties.
func prefix8[T string | []byte](s T) uint64 {
	var b [8]byte
	copy(b[:], s)
	return binary.BigEndian.Uint64(b[:])
}

// appendHead appends the head of terms.
func appendHead(b []byte, terms []string) []byte {
	for i := 0; i < len(terms); i += headEvery {
		b = binary.BigEndian.AppendUint64(b, prefix8(terms[i]))
	}
	return b
}

// appendSection appends n+1 offsets, then the n items' bytes.
func appendSection[T string | []byte](b []byte, items []T) []byte {
	off := uint32(0)
	for _, it := range items {
		b = binary.LittleEndian.AppendUint32(b, off)
		off += uint32(len(it))
	}
	b = binary.LittleEndian.AppendUint32(b, off)
	for _, it := range items {
		b = append(b, it...)
	}
	return b
}

// Table reads an encoded table in place, through [blocksum.Bytes]: every
// byte a lookup uses is verified against its block checksum first (when
// the table was sealed). It aliases the bytes it was opened on; it is
// valid only as long as they are (for a bbolt value: the transaction).
//
// A Table is small (positions into one view), since a query holds one
// per cold session of its scope.
type Table struct {
	b      blocksum.Bytes
	n      int
	terms  int // start of the term bytes; offsets start at headerLen
	poffs  int // start of the payload offsets (= end of the term bytes)
	pays   int // start of the payload bytes
	end    int // end of the payload bytes (or of the terms): the head's start
	hasPay bool
	head   bool
}

const headerLen = 12

// Open checks the header and the table's overall bounds in constant time
// and returns the table over b. Offsets are checked as they are read, so a
// damaged table yields empty terms and payloads, never a panic or a read
// outside b; damage that block checksums catch is reported by Err.
func Open(b blocksum.Bytes) (Table, error) {
	head, ok := b.Slice(0, headerLen)
	if !ok || !bytes.Equal(head[:4], magic) {
		return Table{}, ErrCorrupt
	}
	n := int(binary.LittleEndian.Uint32(head[4:]))
	flags := binary.LittleEndian.Uint32(head[8:])
	t := Table{b: b, n: n, hasPay: flags&flagPayloads != 0, head: flags&flagHead != 0}
	t.end = b.Len()
	if t.head {
		if t.end -= headLen(n); t.end < headerLen {
			return Table{}, ErrCorrupt
		}
	}
	// section returns the end of the section (offsets, then items) at pos.
	section := func(pos int) (items, end int, ok bool) {
		first, ok1 := b.Uint32(pos)
		size, ok2 := b.Uint32(pos + 4*n)
		if !ok1 || !ok2 || first != 0 {
			return 0, 0, false
		}
		items = pos + 4*(n+1)
		return items, items + int(size), items+int(size) <= t.end
	}
	var end int
	if t.terms, end, ok = section(headerLen); !ok {
		return Table{}, ErrCorrupt
	}
	t.poffs, t.pays = end, end
	if t.hasPay {
		if t.pays, end, ok = section(t.poffs); !ok {
			return Table{}, ErrCorrupt
		}
	}
	if end != t.end {
		return Table{}, ErrCorrupt
	}
	return t, nil
}

// Verify checks the whole table once (O(n)): its block checksums, every
// offset, the terms' order and the head. A table that verifies never
// yields an empty term or payload because of damage, and finds each of
// its terms.
func (t Table) Verify() error {
	if t.b.Verify() != nil || !t.checkOffsets(headerLen) {
		return ErrCorrupt
	}
	if t.hasPay && !t.checkOffsets(t.poffs) {
		return ErrCorrupt
	}
	for i := 1; i < t.n; i++ {
		if bytes.Compare(t.Term(i-1), t.Term(i)) >= 0 {
			return ErrCorrupt // a search would miss terms
		}
	}
	for j := 0; t.head && j*headEvery < t.n; j++ {
		if v, ok := t.sample(j); !ok || v != prefix8(t.Term(j*headEvery)) {
			return ErrCorrupt
		}
	}
	return nil
}

// sample returns the head's j-th sample: the prefix of term j*headEvery.
func (t Table) sample(j int) (uint64, bool) {
	b, ok := t.b.Slice(t.end+8*j, t.end+8*j+8)
	if !ok {
		return 0, false
	}
	return binary.BigEndian.Uint64(b), true
}

// Err reports damage that a read of the table (or of the value it lies
// in) met: a lookup that returned after it may be wrong.
func (t Table) Err() error { return t.b.Err() }

// Len returns the number of terms.
func (t Table) Len() int { return t.n }

// span returns the view of item i of the section whose offsets start at
// offs and items at items (and end at end), unread; false when its offsets
// are damaged.
func (t Table) span(offs, items, end, i int) (blocksum.Bytes, bool) {
	o, ok := t.b.Slice(offs+4*i, offs+4*i+8)
	if !ok {
		return blocksum.Bytes{}, false
	}
	a, b := int(binary.LittleEndian.Uint32(o)), int(binary.LittleEndian.Uint32(o[4:]))
	if a > b || items+b > end {
		return blocksum.Bytes{}, false
	}
	return t.b.Sub(items+a, items+b)
}

// read returns the bytes of v, or nil when they are damaged.
func read(v blocksum.Bytes, ok bool) []byte {
	if !ok {
		return nil
	}
	s, _ := v.Slice(0, v.Len())
	return s
}

// Term returns term i (0 <= i < Len). The slice aliases the table.
func (t Table) Term(i int) []byte { return read(t.span(headerLen, t.terms, t.poffs, i)) }

// Payload returns the payload of term i, or nil for a table without
// payloads. The slice aliases the table.
func (t Table) Payload(i int) []byte { return read(t.PayloadView(i)) }

// PayloadView returns the payload of term i as a view whose bytes are
// verified only as they are read: for a large payload of which a query
// needs a few bytes.
func (t Table) PayloadView(i int) (blocksum.Bytes, bool) {
	if !t.hasPay {
		return blocksum.Bytes{}, false
	}
	return t.span(t.poffs, t.pays, t.end, i)
}

// Find returns the index of term, and whether it is present; when absent the
// index is where it would be inserted.
func (t Table) Find(term string) (int, bool) {
	lo, hi := t.narrow(term)
	i := lo + sort.Search(hi-lo, func(j int) bool {
		return string(t.Term(lo+j)) >= term // no allocation: compared in place
	})
	return i, i < t.n && string(t.Term(i)) == term
}

// narrow returns a range [lo, hi] that holds term's place (the index of
// the first term not below it), from the head: every sample below term's
// prefix is of a term below term, every sample above it of one above. A
// table without a head, or whose head does not read (damage, which Err
// then reports), gives the whole table.
func (t Table) narrow(term string) (lo, hi int) {
	if !t.head || t.n <= headEvery {
		return 0, t.n
	}
	p, k := prefix8(term), (t.n+headEvery-1)/headEvery
	bad := false
	sampleAt := func(j int) uint64 {
		v, ok := t.sample(j)
		bad = bad || !ok
		return v
	}
	below := sort.Search(k, func(j int) bool { return sampleAt(j) >= p })
	above := below + sort.Search(k-below, func(j int) bool { return sampleAt(below+j) > p })
	if bad {
		return 0, t.n
	}
	lo, hi = max(0, (below-1)*headEvery), min(t.n, above*headEvery)
	return lo, hi
}

// Has reports whether term is in the table.
func (t Table) Has(term string) bool {
	_, ok := t.Find(term)
	return ok
}

// Prefix returns the range [lo, hi) of terms that start with p.
func (t Table) Prefix(p string) (lo, hi int) {
	lo, _ = t.Find(p)
	hi = lo + sort.Search(t.n-lo, func(j int) bool {
		return !strings.HasPrefix(string(t.Term(lo+j)), p)
	})
	return lo, hi
}

// checkOffsets verifies that the offsets at pos start at 0 and never
// decrease.
func (t Table) checkOffsets(pos int) bool {
	b, ok := t.b.Slice(pos, pos+4*(t.n+1))
	if !ok || binary.LittleEndian.Uint32(b) != 0 {
		return false
	}
	prev := uint32(0)
	for i := 1; i <= t.n; i++ {
		o := binary.LittleEndian.Uint32(b[4*i:])
		if o < prev {
			return false
		}
		prev = o
	}
	return true
}
