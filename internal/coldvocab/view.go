package coldvocab

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"

	"github.com/vmihailenco/msgpack/v5"

	"github.com/memidx/memidx/internal/analyzer/natural"
	"github.com/memidx/memidx/internal/blocksum"
	"github.com/memidx/memidx/internal/indexfile"
)

// View reads the two tables of a digest blob in place, without decoding the
// rest; every byte it reads is verified against the blob's block checksums
// first. It is valid as long as the blob.
type View struct {
	Vocabulary *Vocabulary
	Addresses  Addresses
}

// Open finds the vocabulary and address tables at the head of a sealed
// digest blob.
func Open(blob []byte) (View, error) {
	b, err := blocksum.Open(blob)
	if err != nil {
		return View{}, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	h := head{b: b, ok: true}
	if n := h.mapLen(); !h.ok || n < 2 {
		return View{}, ErrCorrupt
	}
	var vals [2]blocksum.Bytes
	for i, want := range []string{"vocabulary", "addresses"} {
		if key := h.str(); !h.ok || string(key) != want {
			return View{}, fmt.Errorf("%w: field %d is not %s", ErrCorrupt, i, want)
		}
		if vals[i] = h.bin(); !h.ok {
			return View{}, ErrCorrupt
		}
	}
	var v View
	if v.Vocabulary, err = openVocabulary(vals[0]); err != nil {
		return View{}, fmt.Errorf("%w: vocabulary: %v", ErrCorrupt, err)
	}
	if v.Addresses, err = openAddresses(vals[1]); err != nil {
		return View{}, fmt.Errorf("%w: addresses: %v", ErrCorrupt, err)
	}
	if err := v.Err(); err != nil {
		return View{}, err
	}
	return v, nil
}

// Err reports damage that any read of the digest met: what was read after
// it may be wrong, and the digest should be rebuilt.
func (v View) Err() error {
	// Both tables and the timestamps are views of the one sealed blob:
	// the addresses' guard is the blob's.
	err := v.Addresses.Err()
	if err == nil && v.Vocabulary != nil {
		err = v.Vocabulary.Err() // a list that does not decode
	}
	if err != nil {
		return fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	return nil
}

// Decode verifies and decodes a whole sealed digest, whole or stored (see
// Stored: a stored one comes back without its identity).
func Decode(blob []byte) (*Digest, error) {
	data, err := blocksum.Unseal(blob)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	d := new(Digest)
	if h := (head{b: blocksum.Trusted(data), ok: true}); h.mapLen() == storedFields && h.ok {
		d, err = decodeStored(data)
	} else {
		err = msgpack.Unmarshal(data, d)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	if d.CacheVersion != indexfile.CacheVersion || d.Kind != "digest" {
		return nil, fmt.Errorf("%w: version %d kind %q", ErrCorrupt, d.CacheVersion, d.Kind)
	}
	return d, nil
}

// storedFields is the length of a stored digest's map (see Stored); a
// whole digest's has every field of Digest.
const storedFields = 3

// HasTerm reports whether the vocabulary holds term, or for a stem's
// natural.Key, one of the stem's forms.
func (v View) HasTerm(term string) bool {
	if stem, ok := strings.CutPrefix(term, natural.KeyPrefix); ok {
		return v.Vocabulary.HasStem(stem)
	}
	return v.Vocabulary.Has(term)
}

// Structural is a digest's structural postings and timestamps, for
// filters.
type Structural struct {
	addr       Addresses
	entries    int
	timestamps blocksum.Bytes // 8 bytes an entry, verified as read
	// lazy, for the compact form's deltas, decodes them at the first
	// Timestamp: most digests a filter reads match no entry.
	lazy *lazyTimes
}

type lazyTimes struct {
	done bool
	dec  []float64
}

// Structural finds the digest's timestamps (one lookup, or one decode of
// the compact form's): a query with filters calls it once per digest; a
// plain term lookup never pays it.
func (v View) Structural() Structural {
	s := Structural{addr: v.Addresses}
	if a := v.Addresses; a.deltaTimes() {
		s.entries, s.lazy = a.entries, &lazyTimes{}
		return s
	}
	s.timestamps, _, s.entries = v.Addresses.timestamps() // raw: no decode
	return s
}

// Count is the number of entries the addresses cover.
func (s Structural) Count() int { return s.entries }

// Entries returns the entry numbers that carry a structural key (one of
// the Key* prefixes plus a value), in increasing order.
func (s Structural) Entries(key string) []uint32 {
	p := s.addr.payload(key)
	n, k := binary.Uvarint(p)
	if k <= 0 || n > uint64(s.entries) {
		return nil
	}
	p = p[k:]
	out := make([]uint32, 0, n)
	cur := uint32(0)
	for j := uint64(0); j < n; j++ {
		d, k := binary.Uvarint(p)
		if k <= 0 {
			return out
		}
		p = p[k:]
		cur += uint32(d)
		if int(cur) >= s.entries {
			return out
		}
		out = append(out, cur)
	}
	return out
}

// Timestamp returns entry i's timestamp.
func (s Structural) Timestamp(i int) (float64, bool) {
	if i < 0 || i >= s.entries {
		return 0, false
	}
	if s.lazy != nil && !s.lazy.done {
		_, s.lazy.dec, _ = s.addr.timestamps()
		s.lazy.done = true
	}
	if s.lazy != nil {
		if i >= len(s.lazy.dec) {
			return 0, false // damaged: Err says so
		}
		f := s.lazy.dec[i]
		return f, !math.IsNaN(f)
	}
	u, ok := s.timestamps.Uint64(8 * i)
	f := math.Float64frombits(u)
	return f, ok && !math.IsNaN(f)
}

// HasEntryID reports whether an entry of the session has this id.
func (v View) HasEntryID(id string) bool { return v.Addresses.HasEntryID(id) }

// head reads the few msgpack forms a digest's head uses, verifying each
// byte it reads; ok turns false at the first one that is not there.
type head struct {
	b   blocksum.Bytes
	pos int
	ok  bool
}

func (h *head) next(n int) []byte {
	s, ok := h.b.Slice(h.pos, h.pos+n)
	if !ok {
		h.ok = false
		return nil
	}
	h.pos += n
	return s
}

// uint reads an n-byte big-endian length.
func (h *head) uint(n int) int {
	v := 0
	for _, c := range h.next(n) {
		v = v<<8 | int(c)
	}
	return v
}

func (h *head) mapLen() int {
	switch c := h.uint(1); {
	case c >= 0x80 && c <= 0x8f:
		return c & 0x0f
	case c == 0xde:
		return h.uint(2)
	case c == 0xdf:
		return h.uint(4)
	}
	h.ok = false
	return 0
}

func (h *head) str() []byte {
	switch c := h.uint(1); {
	case c >= 0xa0 && c <= 0xbf:
		return h.next(c & 0x1f)
	case c == 0xd9:
		return h.next(h.uint(1))
	case c == 0xda:
		return h.next(h.uint(2))
	}
	h.ok = false
	return nil
}

// bin returns a bin value's bytes as a view, unread.
func (h *head) bin() blocksum.Bytes {
	var n int
	switch c := h.uint(1); c {
	case 0xc4:
		n = h.uint(1)
	case 0xc5:
		n = h.uint(2)
	case 0xc6:
		n = h.uint(4)
	default:
		h.ok = false
	}
	if !h.ok {
		return blocksum.Bytes{}
	}
	v, ok := h.b.Sub(h.pos, h.pos+n)
	if !ok {
		h.ok = false
	}
	h.pos += n
	return v
}
