package lexicon

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"sort"

	"github.com/memidx/memidx/blocksum"
	"github.com/memidx/memidx/termtab"
)

// ErrCorrupt is returned for a segment whose bytes are not a valid one.
var ErrCorrupt = errors.New("lexicon: corrupt segment")

// Builder collects the keys of sessions for one segment.
type Builder struct {
	post map[string][]uint32
}

// NewBuilder returns an empty Builder.
func NewBuilder() *Builder { return &Builder{post: map[string][]uint32{}} }

// Add records that session doc holds each of keys. Each doc is added once.
func (b *Builder) Add(doc uint32, keys []string) {
	for _, k := range keys {
		b.post[k] = append(b.post[k], doc)
	}
}

// AddKey records that session doc holds key, which may be a view into
// memory the caller reuses: only a key new to the segment is copied.
func (b *Builder) AddKey(doc uint32, key []byte) {
	if p, ok := b.post[string(key)]; ok {
		b.post[string(key)] = append(p, doc)
		return
	}
	b.post[string(key)] = []uint32{doc}
}

// Len is the number of distinct keys added.
func (b *Builder) Len() int { return len(b.post) }

// Build encodes and seals the segment.
func (b *Builder) Build() ([]byte, error) {
	keys := make([]string, 0, len(b.post))
	for k := range b.post {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	pays := make([][]byte, len(keys))
	for i, k := range keys {
		docs := b.post[k]
		slices.Sort(docs)
		pays[i] = appendPostings(nil, slices.Compact(docs))
	}
	return seal(keys, pays)
}

func seal(keys []string, pays [][]byte) ([]byte, error) {
	t, err := termtab.Build(keys, pays)
	if err != nil {
		return nil, err
	}
	return blocksum.Seal(t)
}

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
// as long as its bytes.
type Segment struct {
	t termtab.Table
}

// Open checks a sealed segment's header; lookups verify what they read.
func Open(sealed []byte) (Segment, error) {
	b, err := blocksum.Open(sealed)
	if err != nil {
		return Segment{}, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	t, err := termtab.Open(b)
	if err != nil {
		return Segment{}, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	return Segment{t: t}, nil
}

// Err reports damage that a read of the segment met.
func (s Segment) Err() error {
	if err := s.t.Err(); err != nil {
		return fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	return nil
}

// Len is the number of keys.
func (s Segment) Len() int { return s.t.Len() }

// AppendDocs appends the doc numbers that hold key to dst, in increasing
// order.
func (s Segment) AppendDocs(dst []uint32, key string) ([]uint32, error) {
	i, ok := s.t.Find(key)
	if !ok {
		return dst, s.Err()
	}
	return s.appendAt(dst, i)
}

func (s Segment) appendAt(dst []uint32, i int) ([]uint32, error) {
	p := s.t.Payload(i)
	if p == nil {
		return dst, ErrCorrupt
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

// Merge folds segments into one, keeping only the docs live reports true
// for; a key left with no doc is dropped. The result is sealed.
func Merge(segs []Segment, live func(doc uint32) bool) ([]byte, error) {
	var (
		keys []string
		pays [][]byte
		docs []uint32
	)
	pos := make([]int, len(segs))
	for {
		// The smallest key at any segment's position.
		var next []byte
		for si, s := range segs {
			if pos[si] < s.t.Len() {
				if k := s.t.Term(pos[si]); next == nil || string(k) < string(next) {
					next = k
				}
			}
		}
		if next == nil {
			break
		}
		key := string(next)
		docs = docs[:0]
		for si, s := range segs {
			if pos[si] < s.t.Len() && string(s.t.Term(pos[si])) == key {
				var err error
				if docs, err = s.appendAt(docs, pos[si]); err != nil {
					return nil, err
				}
				pos[si]++
			}
		}
		docs = slices.DeleteFunc(docs, func(d uint32) bool { return !live(d) })
		if len(docs) == 0 {
			continue
		}
		slices.Sort(docs)
		keys = append(keys, key)
		pays = append(pays, appendPostings(nil, slices.Compact(docs)))
	}
	for _, s := range segs {
		if err := s.Err(); err != nil {
			return nil, err
		}
	}
	return seal(keys, pays)
}
