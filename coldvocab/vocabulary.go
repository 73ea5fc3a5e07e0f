package coldvocab

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/memidx/memidx/blocksum"
	"github.com/memidx/memidx/frontcode"
	"github.com/memidx/memidx/termtab"
)

// Vocabulary is a digest's sorted unique terms. A digest stores them as a
// frontcode list, a quarter of a termtab table's size, decoded on first
// use: on the query path the archive lexicon answers for cold terms, so
// a digest's vocabulary is read only by a regex query, by the lexicon's
// build, and when the lexicon cannot answer. A digest written before
// that stores a termtab table, read in place.
//
// A Vocabulary may be used from several goroutines.
type Vocabulary struct {
	tab    termtab.Table // the older layout, when packed is empty
	packed blocksum.Bytes
	once   sync.Once
	used   atomic.Bool // a read asked for the list
	list   *frontcode.List
	err    error
}

// openVocabulary reads the vocabulary value of a digest.
func openVocabulary(b blocksum.Bytes) (*Vocabulary, error) {
	head, ok := b.Slice(0, min(4, b.Len()))
	if ok && frontcode.IsList(head) {
		return &Vocabulary{packed: b}, nil
	}
	t, err := termtab.Open(b)
	if err != nil {
		return nil, err
	}
	return &Vocabulary{tab: t}, nil
}

// decodes counts the lists decoded in this process (DecodeCount).
var decodes atomic.Int64

// DecodeCount is how many vocabularies this process has decoded: tests
// use it to check that a query decoded none it did not need.
func DecodeCount() int64 { return decodes.Load() }

// decoded returns the decoded list, or nil for the older layout or a
// damaged list (then err says why).
func (v *Vocabulary) decoded() *frontcode.List {
	if v.packed.Len() == 0 {
		return nil
	}
	if !v.used.Load() {
		v.used.Store(true)
	}
	v.once.Do(func() {
		decodes.Add(1)
		b, ok := v.packed.Slice(0, v.packed.Len())
		if !ok {
			v.err = fmt.Errorf("vocabulary: %w", v.packed.Err())
			return
		}
		// Deflate expands at most 1032 to 1: a bound that damage
		// cannot raise.
		v.list, v.err = frontcode.Decode(b, min(len(b)*1032+64, 1<<31-1))
	})
	return v.list
}

// Len returns the number of terms (0 for a damaged list: see Err).
func (v *Vocabulary) Len() int {
	if v == nil {
		return 0
	}
	if l := v.decoded(); l != nil {
		return l.Len()
	}
	if v.packed.Len() != 0 {
		return 0
	}
	return v.tab.Len()
}

// Term returns term i (0 <= i < Len); the slice aliases the vocabulary.
func (v *Vocabulary) Term(i int) []byte {
	if l := v.decoded(); l != nil {
		return l.Term(i)
	}
	return v.tab.Term(i)
}

// Has reports whether term is in the vocabulary.
func (v *Vocabulary) Has(term string) bool {
	if v == nil {
		return false
	}
	if l := v.decoded(); l != nil {
		return l.Has(term)
	}
	return v.packed.Len() == 0 && v.tab.Has(term)
}

// Err reports damage met by a read so far: what was read after it may be
// wrong.
func (v *Vocabulary) Err() error {
	if v == nil {
		return nil
	}
	if v.packed.Len() == 0 {
		return v.tab.Err()
	}
	// Only a list some read asked for is decoded, and its error is read
	// only after the decoding (once orders it; a concurrent first read
	// may still be at it: decoded waits for it).
	if !v.used.Load() {
		return v.packed.Err()
	}
	v.decoded()
	if v.err != nil {
		return v.err
	}
	return v.packed.Err()
}
