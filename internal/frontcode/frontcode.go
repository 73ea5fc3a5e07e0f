package frontcode

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"sync"
)

// The two layouts' magics (see the package doc): Encode writes rawMagic;
// deflatedMagic lists, written before, are still read.
var (
	setMagic      = []byte("FC3\x00")
	rawMagic      = []byte("FC2\x00")
	deflatedMagic = []byte("FC1\x00")
)

// magicLen is the length of either magic.
const magicLen = 4

// ErrCorrupt is returned by Decode for bytes that are not a valid list.
var ErrCorrupt = errors.New("frontcode: corrupt list")

// IsList reports whether b starts as a list does (its magic).
func IsList(b []byte) bool {
	return bytes.HasPrefix(b, setMagic) || bytes.HasPrefix(b, rawMagic) || bytes.HasPrefix(b, deflatedMagic)
}

// Count reads the number of strings from a list's head (its magic and
// count, at most 14 bytes), without decoding the list; ok is false when b
// does not start as a list does.
func Count(b []byte) (n uint64, ok bool) {
	if !IsList(b) {
		return 0, false
	}
	n, k := binary.Uvarint(b[magicLen:])
	return n, k > 0
}

// maxShared is the longest shared prefix the head byte can say; a longer
// one is cut to it, which costs only its rest's bytes.
const maxShared = 15

// appendStream appends the front-coded stream of terms to dst.
func appendStream(dst []byte, terms []string) ([]byte, error) {
	prev := ""
	for i, t := range terms {
		if i > 0 && t <= prev {
			return nil, fmt.Errorf("frontcode: strings not strictly increasing at %d (%q, %q)", i, prev, t)
		}
		shared := 0
		for shared < maxShared && shared < len(prev) && shared < len(t) && prev[shared] == t[shared] {
			shared++
		}
		rest := len(t) - shared
		if rest < 15 {
			dst = append(dst, byte(shared<<4|rest))
		} else {
			dst = append(dst, byte(shared<<4|15))
			dst = binary.AppendUvarint(dst, uint64(rest-15))
		}
		dst = append(dst, t[shared:]...)
		prev = t
	}
	return dst, nil
}

// Encode returns the list of terms, which must be in strictly increasing
// byte order. The stream is stored as it is: a cold digest's list is
// built for every session a rebuild reads but decoded only when the
// lexicon cannot answer, and deflating it was a fixed ~60 µs a session
// (the Huffman tables of each block), a tenth of a 100k rebuild's CPU.
func Encode(terms []string) ([]byte, error) {
	size := magicLen + binary.MaxVarintLen64
	for _, t := range terms {
		size += len(t) + 1
	}
	out := append(make([]byte, 0, size), rawMagic...)
	return appendStream(binary.AppendUvarint(out, uint64(len(terms))), terms)
}

// EncodeSet returns the list of terms, which must be distinct, in any
// order: each as its length and bytes (layout FC3). Decode gives it back
// sorted. A cold digest's vocabulary is kept in the order its terms were
// first seen: sorting and front-coding it for every session a rebuild
// reads (the list is decoded only when the lexicon cannot answer) was 7%
// of a 100k rebuild's CPU.
func EncodeSet(terms []string) []byte { return ListOf(terms).EncodeSet() }

// SetLen is the length of EncodeSet(terms), without encoding them: a cold
// digest counts its size from it, and encodes its vocabulary only when it
// is asked for the whole blob.
func SetLen(terms []string) int {
	n := magicLen + UvarintLen(uint64(len(terms)))
	for _, t := range terms {
		n += UvarintLen(uint64(len(t))) + len(t)
	}
	return n
}

// UvarintLen is the length of binary.AppendUvarint's encoding of v.
func UvarintLen(v uint64) int {
	n := 1
	for ; v >= 0x80; v >>= 7 {
		n++
	}
	return n
}

// EncodeSet is EncodeSet of the list's strings, in the list's order: a
// digest's kept vocabulary, encoded only when its whole blob is asked for.
func (l *List) EncodeSet() []byte {
	out := make([]byte, 0, magicLen+binary.MaxVarintLen64+len(l.buf)+2*len(l.ends))
	out = binary.AppendUvarint(append(out, setMagic...), uint64(len(l.ends)))
	for i := range l.ends {
		t := l.Term(i)
		out = binary.AppendUvarint(out, uint64(len(t)))
		out = append(out, t...)
	}
	return out
}

// List is a decoded list: its strings back to back in one buffer.
type List struct {
	buf  []byte
	ends []uint32 // ends[i] is where string i ends in buf
}

// ListOf is the list of terms as Decode would give it back from
// Encode(terms), without the round trip: the terms are copied. Given
// terms in another order (a digest builder's, as first seen), Len and
// Term still list them; Find and Has need them sorted.
func ListOf(terms []string) *List {
	size := 0
	for _, t := range terms {
		size += len(t)
	}
	l := &List{buf: make([]byte, 0, size), ends: make([]uint32, 0, len(terms))}
	for _, t := range terms {
		l.buf = append(l.buf, t...)
		l.ends = append(l.ends, uint32(len(l.buf)))
	}
	return l
}

// Len returns the number of strings.
func (l *List) Len() int { return len(l.ends) }

// Term returns string i (0 <= i < Len). The slice aliases the list.
func (l *List) Term(i int) []byte {
	lo := uint32(0)
	if i > 0 {
		lo = l.ends[i-1]
	}
	return l.buf[lo:l.ends[i]]
}

// Find returns the index of term and whether it is present; when absent
// the index is where it would be inserted.
func (l *List) Find(term string) (int, bool) {
	i := sort.Search(len(l.ends), func(i int) bool { return string(l.Term(i)) >= term })
	return i, i < len(l.ends) && string(l.Term(i)) == term
}

// Has reports whether term is in the list.
func (l *List) Has(term string) bool {
	_, ok := l.Find(term)
	return ok
}

var readers = sync.Pool{New: func() any { return flate.NewReader(bytes.NewReader(nil)) }}

// Decode decodes a list whose front-coded stream is at most maxRaw bytes
// (a bound the container knows, so that damage cannot make it allocate
// more).
func Decode(b []byte, maxRaw int) (*List, error) {
	if !IsList(b) {
		return nil, ErrCorrupt
	}
	deflated, set := bytes.HasPrefix(b, deflatedMagic), bytes.HasPrefix(b, setMagic)
	b = b[magicLen:]
	n, k1 := binary.Uvarint(b)
	if k1 <= 0 {
		return nil, ErrCorrupt
	}
	b = b[k1:]
	if set {
		if len(b) > maxRaw || n > uint64(len(b)) {
			return nil, ErrCorrupt
		}
		return parseSet(b, int(n))
	}
	if !deflated {
		// Every string takes at least its head byte.
		if len(b) > maxRaw || n > uint64(len(b)) {
			return nil, ErrCorrupt
		}
		return parse(b, int(n))
	}
	raw, k2 := binary.Uvarint(b)
	if k2 <= 0 || raw > uint64(maxRaw) || n > raw {
		return nil, ErrCorrupt
	}
	r := readers.Get().(io.ReadCloser)
	defer readers.Put(r)
	if err := r.(flate.Resetter).Reset(bytes.NewReader(b[k2:]), nil); err != nil {
		return nil, ErrCorrupt
	}
	stream := make([]byte, raw)
	if _, err := io.ReadFull(r, stream); err != nil {
		return nil, fmt.Errorf("%w: stream is not %d bytes: %v", ErrCorrupt, raw, err)
	}
	// The deflate stream must end there, and end whole (a cut one ends
	// in io.ErrUnexpectedEOF).
	if k, err := r.Read(make([]byte, 1)); k != 0 || err != io.EOF {
		return nil, fmt.Errorf("%w: stream is not %d bytes", ErrCorrupt, raw)
	}
	return parse(stream, int(n))
}

// parseSet rebuilds n distinct strings written in any order (EncodeSet),
// sorted.
func parseSet(s []byte, n int) (*List, error) {
	terms := make([]string, 0, n)
	size := 0
	for len(terms) < n {
		l, k := binary.Uvarint(s)
		if k <= 0 || l > uint64(len(s)-k) {
			return nil, ErrCorrupt
		}
		terms = append(terms, string(s[k:k+int(l)]))
		size += int(l)
		s = s[k+int(l):]
	}
	if len(s) != 0 || uint64(size) > 1<<32-1 {
		return nil, ErrCorrupt
	}
	slices.Sort(terms)
	for i := 1; i < len(terms); i++ {
		if terms[i] == terms[i-1] {
			return nil, ErrCorrupt // not a set
		}
	}
	return ListOf(terms), nil
}

// parse rebuilds n strings from their front-coded stream.
func parse(s []byte, n int) (*List, error) {
	l := &List{buf: make([]byte, 0, len(s)+len(s)/2), ends: make([]uint32, 0, n)}
	prev := 0 // start of the previous string in buf
	for len(l.ends) < n {
		if len(s) == 0 {
			return nil, ErrCorrupt
		}
		shared, rest := int(s[0]>>4), int(s[0]&15)
		s = s[1:]
		if rest == 15 {
			x, k := binary.Uvarint(s)
			if k <= 0 || x > uint64(len(s)) {
				return nil, ErrCorrupt
			}
			rest += int(x)
			s = s[k:]
		}
		start := len(l.buf)
		if shared > start-prev || rest > len(s) || len(l.ends) == 0 && shared > 0 {
			return nil, ErrCorrupt
		}
		l.buf = append(l.buf, l.buf[prev:prev+shared]...)
		l.buf = append(l.buf, s[:rest]...)
		s = s[rest:]
		if len(l.ends) > 0 && bytes.Compare(l.buf[prev:start], l.buf[start:]) >= 0 {
			return nil, ErrCorrupt
		}
		if uint64(len(l.buf)) > 1<<32-1 {
			return nil, ErrCorrupt
		}
		l.ends = append(l.ends, uint32(len(l.buf)))
		prev = start
	}
	if len(s) != 0 {
		return nil, ErrCorrupt
	}
	return l, nil
}
