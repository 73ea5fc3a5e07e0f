package search

import (
	"github.com/memidx/memidx/internal/index"
)

// Stored digests: the index stores a cold digest without its vocabulary
// (coldvocab.Stored), whose terms only the archive lexicon holds, under
// the record's doc. A source opened from one gets what it needs of its
// terms from the lexicon that the same read transaction sees, whatever its
// epoch: a record still stored with its doc and data stamp
// (Reader.Current) has every term there, since a merge drops only the
// docs no record names.

// fromLexicon completes the cold sources from first on whose digests hold
// no vocabulary: which of the plan's terms each holds (a regex reads their
// terms later, lexTerms). A source whose record is no longer current, or
// every one when the lexicon is missing or damaged, is taken out and
// returned: its session is read from source instead.
func (s *Searcher) fromLexicon(rd *index.Reader, first int) (raced []*index.Record) {
	var pending []int
	for i := first; i < len(s.Cold); i++ {
		if c := &s.Cold[i]; c.Has == nil && c.View.Vocabulary.InLexicon() {
			pending = append(pending, i)
		}
	}
	if len(pending) == 0 {
		return nil
	}
	lex := s.anyLexicon(rd)
	drop := make(map[int]bool)
	at := make(map[uint32]int, len(pending))
	for _, i := range pending {
		if lex == nil || !rd.Current(s.Cold[i].Rec) {
			drop[i] = true
			continue
		}
		at[s.Cold[i].Rec.Doc] = i
		s.Cold[i].Has = make([]bool, len(s.plan.Terms))
	}
	if lex != nil && s.plan.Kind != PlanRegex && !s.termHolders(lex, at) {
		for _, i := range pending {
			drop[i] = true
		}
	}
	if len(drop) == 0 {
		return nil
	}
	kept := s.Cold[:first]
	for i := first; i < len(s.Cold); i++ {
		if drop[i] {
			raced = append(raced, s.Cold[i].Rec)
			continue
		}
		kept = append(kept, s.Cold[i])
	}
	s.Cold = kept
	return raced
}

// termHolders marks in each source of at (by doc) the plan's terms the
// lexicon says it holds; false when the lexicon turned out damaged.
func (s *Searcher) termHolders(lex *index.Lexicon, at map[uint32]int) bool {
	for t := range s.plan.Terms {
		docs, err := s.termDocs(lex, t)
		if err != nil {
			s.lexiconFailed(err)
			return false
		}
		for _, d := range docs {
			if i, ok := at[d]; ok {
				s.Cold[i].Has[t] = true
			}
		}
	}
	return true
}

// firstTermsBatch is how many sources' terms a regex reads from the
// lexicon in its first pass; each further pass reads twice as many. A
// regex run's haystack budget (20,000 terms, 2 MiB by default) usually
// ends within the first pass: 128 sessions hold 40,000 to 400,000 terms
// on generated archives.
const firstTermsBatch = 128

// maxBatchTerms bounds the terms one pass of lexTerms holds (by the
// lexicon's census, which counts a doc's keys): a few MB, and three times
// a regex run's default budget of 20,000 terms, so that sessions of huge
// vocabularies are read a few at a time. The first source of a pass is
// always read.
var maxBatchTerms = 1 << 16

// termsBatchFrom picks the sources of the next pass from ci on: those
// whose digests hold no terms and that have none read yet, at most
// termsBatch of them and, past the first, maxBatchTerms terms.
func (s *Searcher) termsBatchFrom(ci int) (docs []uint32, at []int) {
	for i := ci; i < len(s.Cold) && len(docs) < s.termsBatch; i++ {
		if c := &s.Cold[i]; c.terms == nil && c.View.Vocabulary.InLexicon() {
			docs = append(docs, c.Rec.Doc)
			at = append(at, i)
		}
	}
	counts := s.lex.lex.KeyCounts(docs)
	sum := 0
	for k, d := range docs {
		if sum += counts[d]; k > 0 && sum > maxBatchTerms {
			return docs[:k], at[:k]
		}
	}
	return docs, at
}

// prefetchTerms reads the first pass of the cold sources' terms before
// the regex run starts, so that its time limit counts matching, not the
// lexicon's read (as a digest's own list was decoded in its open).
func (s *Searcher) prefetchTerms() {
	for ci := range s.Cold {
		if c := &s.Cold[ci]; c.terms == nil && c.View.Vocabulary.InLexicon() {
			s.lexTerms(ci)
			return
		}
	}
}

// lexTerms returns the terms of cold source ci, whose digest holds none,
// from the lexicon, reading those of the next sources that need them in
// the same pass over it. ok is false when the lexicon is damaged.
func (s *Searcher) lexTerms(ci int) (terms []string, ok bool) {
	if c := &s.Cold[ci]; c.terms != nil {
		return c.terms, true
	}
	if s.lex.lex == nil {
		return nil, false // fromLexicon left no such source without one
	}
	s.termsBatch = max(2*s.termsBatch, firstTermsBatch)
	docs, at := s.termsBatchFrom(ci)
	vocs, err := s.lex.lex.Vocabularies(docs)
	if err != nil {
		s.lexiconFailed(err)
		return nil, false
	}
	held := 0
	for k, i := range at {
		t := vocs[docs[k]]
		held += len(t)
		if t == nil {
			t = []string{}
		}
		s.Cold[i].terms = t
	}
	s.mostTermsHeld = max(s.mostTermsHeld, held)
	return s.Cold[ci].terms, true
}
