package coldvocab

import (
	"bytes"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/memidx/memidx/internal/analyzer/natural"
	"github.com/memidx/memidx/internal/blocksum"
	"github.com/memidx/memidx/internal/frontcode"
	"github.com/memidx/memidx/internal/termtab"
)

// Vocabulary is a digest's sorted unique terms. A digest stores them as a
// frontcode set (or, written before, a front-coded list), decoded and
// sorted on first use: on the query path the archive lexicon answers for
// cold terms, so
// a digest's vocabulary is read only by a regex query, by the lexicon's
// build, and when the lexicon cannot answer. A digest written before
// that stores a termtab table, read in place.
//
// A Vocabulary may be used from several goroutines.
type Vocabulary struct {
	// inLexicon: a stored digest, whose terms only the archive lexicon
	// holds (see Stored); the list is empty.
	inLexicon bool
	tab       termtab.Table // the older layout, when packed is empty
	packed    blocksum.Bytes
	once      sync.Once
	used      atomic.Bool // a read asked for the list
	list      *frontcode.List
	err       error
}

// openVocabulary reads the vocabulary value of a digest.
func openVocabulary(b blocksum.Bytes) (*Vocabulary, error) {
	if b.Len() == 0 {
		return &Vocabulary{inLexicon: true}, nil
	}
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

// termList is what the two layouts answer.
type termList interface {
	Len() int
	Term(i int) []byte
	Has(term string) bool
	Find(term string) (int, bool)
}

// noTerms answers for a vocabulary that is missing or does not decode.
var noTerms = &frontcode.List{}

// terms returns the vocabulary's terms: the older layout's table, or the
// list, decoded at the first read (none when damaged: then err says why).
func (v *Vocabulary) terms() termList {
	if v == nil || v.inLexicon {
		return noTerms
	}
	if v.packed.Len() == 0 {
		return &v.tab
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
		// Deflate (the oldest lists) expands at most 1032 to 1: a bound that damage
		// cannot raise.
		v.list, v.err = frontcode.Decode(b, min(len(b)*1032+64, 1<<31-1))
	})
	if v.list == nil {
		return noTerms
	}
	return v.list
}

// InLexicon reports that the digest's terms are not in it but in the
// archive lexicon, under its record's doc (a stored digest: see Stored),
// and that there is at least one. Len is then 0 and Has false for every
// term: the caller asks the lexicon.
func (v *Vocabulary) InLexicon() bool { return v != nil && v.inLexicon }

// Len returns the number of terms (0 for a damaged list: see Err).
func (v *Vocabulary) Len() int { return v.terms().Len() }

// Term returns term i (0 <= i < Len); the slice aliases the vocabulary.
func (v *Vocabulary) Term(i int) []byte { return v.terms().Term(i) }

// Has reports whether term is in the vocabulary.
func (v *Vocabulary) Has(term string) bool { return v.terms().Has(term) }

// HasStem reports whether the vocabulary holds a form of stem: a term
// whose natural form (natural.Term) is stem. The forms are among the
// terms that start with natural.FormPrefix(stem), a range of the sorted
// list.
func (v *Vocabulary) HasStem(stem string) bool {
	if natural.OwnFormOnly(stem) {
		return v.Has(stem)
	}
	l := v.terms()
	p := natural.FormPrefix(stem)
	i, _ := l.Find(p)
	for ; i < l.Len(); i++ {
		t := l.Term(i)
		if !bytes.HasPrefix(t, []byte(p)) {
			break
		}
		if natural.IsForm(t, stem) {
			return true
		}
	}
	return false
}

// Err reports damage met by a read so far: what was read after it may be
// wrong.
func (v *Vocabulary) Err() error {
	if v == nil || v.inLexicon {
		return nil
	}
	if v.packed.Len() == 0 {
		return v.tab.Err()
	}
	// Only a list some read asked for is decoded, and its error is read
	// only after the decoding (once orders it; a concurrent first read
	// may still be at it: terms waits for it).
	if !v.used.Load() {
		return v.packed.Err()
	}
	v.terms()
	if v.err != nil {
		return v.err
	}
	return v.packed.Err()
}
