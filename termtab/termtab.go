package termtab

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"sort"
	"strings"
)

var magic = []byte("TT1\x00")

const flagPayloads = 1

// ErrCorrupt is returned by Open for bytes that are not a valid table.
var ErrCorrupt = errors.New("termtab: corrupt table")

// Build encodes terms, which must be sorted in increasing byte order with no
// duplicates, and their payloads (nil for none; otherwise one per term).
func Build(terms []string, payloads [][]byte) ([]byte, error) {
	if payloads != nil && len(payloads) != len(terms) {
		return nil, fmt.Errorf("termtab: %d terms but %d payloads", len(terms), len(payloads))
	}
	size := 12 + 4*(len(terms)+1)
	for i, t := range terms {
		if i > 0 && terms[i-1] >= t {
			return nil, fmt.Errorf("termtab: terms not strictly increasing at %d (%q, %q)", i, terms[i-1], t)
		}
		size += len(t)
	}
	if payloads != nil {
		size += 4 * (len(terms) + 1)
		for _, p := range payloads {
			size += len(p)
		}
	}
	if size > 1<<32-1 {
		return nil, errors.New("termtab: table over 4 GiB")
	}
	b := make([]byte, 0, size)
	b = append(b, magic...)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(terms)))
	flags := uint32(0)
	if payloads != nil {
		flags |= flagPayloads
	}
	b = binary.LittleEndian.AppendUint32(b, flags)
	b = appendSection(b, terms)
	if payloads != nil {
		b = appendSection(b, payloads)
	}
	return b, nil
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

// Table reads an encoded table in place. It aliases the bytes it was opened
// on; it is valid only as long as they are (for a bbolt value: the
// transaction).
type Table struct {
	n        int
	offs     []byte
	terms    []byte
	poffs    []byte
	payloads []byte
}

// Open checks the header and the table's overall bounds in constant time
// and returns the table over b. Offsets are checked as they are read, so a
// damaged table yields empty terms and payloads (and wrong answers), never a
// panic or a read outside b.
func Open(b []byte) (Table, error) {
	if len(b) < 12 || !bytes.Equal(b[:4], magic) {
		return Table{}, ErrCorrupt
	}
	n := int(binary.LittleEndian.Uint32(b[4:]))
	flags := binary.LittleEndian.Uint32(b[8:])
	rest := b[12:]
	if n < 0 || len(rest)/4 < n+1 {
		return Table{}, ErrCorrupt
	}
	t := Table{n: n, offs: rest[:4*(n+1)]}
	rest = rest[4*(n+1):]
	if binary.LittleEndian.Uint32(t.offs) != 0 {
		return Table{}, ErrCorrupt
	}
	tl := int(binary.LittleEndian.Uint32(t.offs[4*n:]))
	if tl > len(rest) {
		return Table{}, ErrCorrupt
	}
	t.terms, rest = rest[:tl], rest[tl:]
	if flags&flagPayloads != 0 {
		if len(rest)/4 < n+1 {
			return Table{}, ErrCorrupt
		}
		t.poffs, rest = rest[:4*(n+1)], rest[4*(n+1):]
		pl := int(binary.LittleEndian.Uint32(t.poffs[4*n:]))
		if binary.LittleEndian.Uint32(t.poffs) != 0 || pl > len(rest) {
			return Table{}, ErrCorrupt
		}
		t.payloads, rest = rest[:pl], rest[pl:]
	}
	if len(rest) != 0 {
		return Table{}, ErrCorrupt
	}
	return t, nil
}

// Verify checks every offset once (O(n)): a table that verifies never
// yields an empty term or payload because of damage.
func (t Table) Verify() error {
	if !checkOffsets(t.offs, t.n) {
		return ErrCorrupt
	}
	if t.poffs != nil {
		if !checkOffsets(t.poffs, t.n) {
			return ErrCorrupt
		}
	}
	return nil
}

// Len returns the number of terms.
func (t Table) Len() int { return t.n }

// slice returns data[offs[i]:offs[i+1]], or nil when the offsets are
// damaged.
func slice(offs, data []byte, i int) []byte {
	a := binary.LittleEndian.Uint32(offs[4*i:])
	b := binary.LittleEndian.Uint32(offs[4*i+4:])
	if a > b || int(b) > len(data) {
		return nil
	}
	return data[a:b]
}

// Term returns term i (0 <= i < Len). The slice aliases the table.
func (t Table) Term(i int) []byte { return slice(t.offs, t.terms, i) }

// Payload returns the payload of term i, or nil for a table without
// payloads. The slice aliases the table.
func (t Table) Payload(i int) []byte {
	if t.poffs == nil {
		return nil
	}
	return slice(t.poffs, t.payloads, i)
}

// Find returns the index of term, and whether it is present; when absent the
// index is where it would be inserted.
func (t Table) Find(term string) (int, bool) {
	i := sort.Search(t.n, func(i int) bool {
		return string(t.Term(i)) >= term // no allocation: compared in place
	})
	return i, i < t.n && string(t.Term(i)) == term
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

// checkOffsets verifies that offsets start at 0 and never decrease.
func checkOffsets(offs []byte, n int) bool {
	prev := uint32(0)
	if binary.LittleEndian.Uint32(offs) != 0 {
		return false
	}
	for i := 1; i <= n; i++ {
		o := binary.LittleEndian.Uint32(offs[4*i:])
		if o < prev {
			return false
		}
		prev = o
	}
	return true
}
