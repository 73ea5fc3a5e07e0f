package lexicon

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"slices"

	"github.com/memidx/memidx/internal/blocksum"
)

// DocKeys is how many keys of a segment name one doc: the doc's share of
// the segment's postings. A doc is in one segment only (it is numbered
// when its segment is built, and a merge moves it whole), so a segment's
// census says how much of it a dead doc keeps alive.
type DocKeys struct {
	Doc  uint32
	Keys uint32
}

// Census is a segment's docs in increasing order, with their key counts.
type Census []DocKeys

// Total is the number of postings the census counts.
func (c Census) Total() uint64 {
	var n uint64
	for _, d := range c {
		n += uint64(d.Keys)
	}
	return n
}

// CensusOf is the census of a segment built from srcs.
func CensusOf(srcs []Source) Census {
	c := make(Census, 0, len(srcs))
	for _, s := range srcs {
		c = append(c, DocKeys{Doc: s.Doc, Keys: uint32(s.Len)})
	}
	sortByDoc(c)
	return c
}

func sortByDoc(c Census) {
	slices.SortFunc(c, func(a, b DocKeys) int { return cmp.Compare(a.Doc, b.Doc) })
}

// Merged is the census of the merge of segments with these censuses,
// keeping the docs live reports true for (every doc when live is nil).
func Merged(cs []Census, live func(doc uint32) bool) Census {
	var out Census
	for _, c := range cs {
		for _, d := range c {
			if live == nil || live(d.Doc) {
				out = append(out, d)
			}
		}
	}
	sortByDoc(out)
	return out
}

// Census counts the segment's postings by doc, reading all of them: for a
// segment stored without its census.
func (s Segment) Census() (Census, error) {
	keys := map[uint32]uint32{}
	var docs []uint32
	err := s.each(func(w *walker) (err error) {
		docs, err = w.appendDocs(docs[:0])
		for _, d := range docs {
			keys[d]++
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	c := make(Census, 0, len(keys))
	for d, n := range keys {
		c = append(c, DocKeys{Doc: d, Keys: n})
	}
	sortByDoc(c)
	return c, nil
}

// Encode returns the census sealed: a uvarint count, then each doc as a
// uvarint delta and its key count.
func (c Census) Encode() ([]byte, error) {
	b := binary.AppendUvarint(make([]byte, 0, 2+4*len(c)), uint64(len(c)))
	prev := uint32(0)
	for _, d := range c {
		b = binary.AppendUvarint(b, uint64(d.Doc-prev))
		b = binary.AppendUvarint(b, uint64(d.Keys))
		prev = d.Doc
	}
	return blocksum.Seal(b)
}

// DecodeCensus reads a sealed census.
func DecodeCensus(sealed []byte) (Census, error) {
	b, err := blocksum.Unseal(sealed)
	if err != nil {
		return nil, fmt.Errorf("%w: census: %v", ErrCorrupt, err)
	}
	n, k := binary.Uvarint(b)
	if k <= 0 || n > uint64(len(b)) {
		return nil, fmt.Errorf("%w: census count", ErrCorrupt)
	}
	b = b[k:]
	c := make(Census, 0, n)
	cur := uint64(0)
	for range n {
		d, k1 := binary.Uvarint(b)
		if k1 <= 0 {
			return nil, fmt.Errorf("%w: census doc", ErrCorrupt)
		}
		keys, k2 := binary.Uvarint(b[k1:])
		cur += d
		if k2 <= 0 || cur > 1<<32-1 || keys > 1<<32-1 || len(c) > 0 && d == 0 {
			return nil, fmt.Errorf("%w: census doc", ErrCorrupt)
		}
		c = append(c, DocKeys{Doc: uint32(cur), Keys: uint32(keys)})
		b = b[k1+k2:]
	}
	if len(b) != 0 {
		return nil, fmt.Errorf("%w: census: trailing bytes", ErrCorrupt)
	}
	return c, nil
}
