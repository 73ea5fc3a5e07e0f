package coldvocab

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/vmihailenco/msgpack/v5"

	"github.com/memidx/memidx/bucket"
	"github.com/memidx/memidx/termtab"
)

// View reads the two tables of a digest blob in place, without decoding the
// rest. It is valid as long as the blob.
type View struct {
	Vocabulary termtab.Table
	Addresses  termtab.Table
	entries    int
	timestamps []byte // 8 bytes an entry, found once at Open
}

// Open finds the vocabulary and address tables at the head of blob.
func Open(blob []byte) (View, error) {
	b := blob
	n, b, ok := mapHeader(b)
	if !ok || n < 2 {
		return View{}, ErrCorrupt
	}
	var tables [2][]byte
	for i, want := range []string{"vocabulary", "addresses"} {
		var key []byte
		key, b, ok = strValue(b)
		if !ok || string(key) != want {
			return View{}, fmt.Errorf("%w: field %d is not %s", ErrCorrupt, i, want)
		}
		tables[i], b, ok = binValue(b)
		if !ok {
			return View{}, ErrCorrupt
		}
	}
	voc, err := termtab.Open(tables[0])
	if err != nil {
		return View{}, fmt.Errorf("%w: vocabulary: %v", ErrCorrupt, err)
	}
	addr, err := termtab.Open(tables[1])
	if err != nil {
		return View{}, fmt.Errorf("%w: addresses: %v", ErrCorrupt, err)
	}
	v := View{Vocabulary: voc, Addresses: addr}
	if i, ok := addr.Find(keyTimestamps); ok {
		v.timestamps = addr.Payload(i)
		v.entries = len(v.timestamps) / 8
	}
	return v, nil
}

// Decode decodes a whole digest.
func Decode(blob []byte) (*Digest, error) {
	var d Digest
	if err := msgpack.Unmarshal(blob, &d); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	if d.CacheVersion != bucket.CacheVersion || d.Kind != "digest" {
		return nil, fmt.Errorf("%w: version %d kind %q", ErrCorrupt, d.CacheVersion, d.Kind)
	}
	return &d, nil
}

// HasTerm reports whether the vocabulary holds term.
func (v View) HasTerm(term string) bool { return v.Vocabulary.Has(term) }

// AddressCount is the number of entries the addresses cover.
func (v View) AddressCount() int { return v.entries }

// Entries returns the entry numbers that carry a structural key (one of
// the Key* prefixes plus a value), in increasing order.
func (v View) Entries(key string) []uint32 {
	i, ok := v.Addresses.Find(key)
	if !ok {
		return nil
	}
	p := v.Addresses.Payload(i)
	n, k := binary.Uvarint(p)
	if k <= 0 || n > uint64(v.entries) {
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
		if int(cur) >= v.entries {
			return out
		}
		out = append(out, cur)
	}
	return out
}

// Timestamp returns entry i's timestamp.
func (v View) Timestamp(i int) (float64, bool) {
	if i < 0 || i >= v.entries {
		return 0, false
	}
	f := math.Float64frombits(binary.LittleEndian.Uint64(v.timestamps[8*i:]))
	return f, !math.IsNaN(f)
}

// HasEntryID reports whether an entry of the session has this id.
func (v View) HasEntryID(id string) bool { return v.Addresses.Has(keyEntryID + id) }

// msgpack header readers for the few forms the digest head uses.

func mapHeader(b []byte) (int, []byte, bool) {
	if len(b) == 0 {
		return 0, nil, false
	}
	switch c := b[0]; {
	case c >= 0x80 && c <= 0x8f:
		return int(c & 0x0f), b[1:], true
	case c == 0xde && len(b) >= 3:
		return int(binary.BigEndian.Uint16(b[1:])), b[3:], true
	case c == 0xdf && len(b) >= 5:
		return int(binary.BigEndian.Uint32(b[1:])), b[5:], true
	}
	return 0, nil, false
}

func strValue(b []byte) ([]byte, []byte, bool) {
	if len(b) == 0 {
		return nil, nil, false
	}
	var n, h int
	switch c := b[0]; {
	case c >= 0xa0 && c <= 0xbf:
		n, h = int(c&0x1f), 1
	case c == 0xd9 && len(b) >= 2:
		n, h = int(b[1]), 2
	case c == 0xda && len(b) >= 3:
		n, h = int(binary.BigEndian.Uint16(b[1:])), 3
	default:
		return nil, nil, false
	}
	if len(b) < h+n {
		return nil, nil, false
	}
	return b[h : h+n], b[h+n:], true
}

func binValue(b []byte) ([]byte, []byte, bool) {
	if len(b) == 0 {
		return nil, nil, false
	}
	var n, h int
	switch c := b[0]; {
	case c == 0xc4 && len(b) >= 2:
		n, h = int(b[1]), 2
	case c == 0xc5 && len(b) >= 3:
		n, h = int(binary.BigEndian.Uint16(b[1:])), 3
	case c == 0xc6 && len(b) >= 5:
		n, h = int(binary.BigEndian.Uint32(b[1:])), 5
	default:
		return nil, nil, false
	}
	if n < 0 || len(b) < h+n {
		return nil, nil, false
	}
	return b[h : h+n], b[h+n:], true
}
