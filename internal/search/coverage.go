package search

import (
	"github.com/memidx/memidx/internal/analyzer"
	"github.com/memidx/memidx/internal/analyzer/natural"
)

// A Coverage measures how much of a query a hit matched: the share of the
// query terms' idf mass (idf over the scope, as ranking takes it) that
// the hit holds. The query terms are the plan's terms, and for a natural
// plan its stems. A phrase counts whole when verified and not at all
// otherwise; regex and browsing have no measure.
type Coverage struct {
	kind  PlanKind
	idf   []float64 // by query term
	total float64
	terms map[string]int // canonical term → query term (literal, phrase)
	stems map[string]int // stem → query term (natural)
}

// Coverage returns the query's measure, valid once Run has ranked (it
// reads the corpus statistics); ok is false where the mode has none.
func (s *Searcher) Coverage() (c *Coverage, ok bool) {
	p := &s.plan
	if p.Kind != PlanTerms && p.Kind != PlanPhrase {
		return nil, false
	}
	c = &Coverage{kind: p.Kind}
	for i, t := range p.Terms[p.StemsFrom:] {
		idf := s.idf(t)
		c.idf = append(c.idf, idf)
		c.total += idf
		if stem, isStem := p.stemOf(t); isStem {
			if c.stems == nil {
				c.stems = map[string]int{}
			}
			c.stems[stem] = i
			continue
		}
		if c.terms == nil {
			c.terms = map[string]int{}
		}
		c.terms[t] = i
	}
	return c, true
}

// Entry is the coverage of an entry hit whose indexed text is text.
func (c *Coverage) Entry(text string) float64 {
	if c.kind == PlanPhrase {
		return 1 // an entry hit of a phrase query holds the phrase
	}
	held := make([]bool, len(c.idf))
	analyzer.Each(text, func(tok string) {
		if i, ok := c.terms[tok]; ok {
			held[i] = true
		}
		if c.stems != nil {
			if st, ok := natural.Term(tok); ok {
				if i, ok := c.stems[st]; ok {
					held[i] = true
				}
			}
		}
	})
	return c.share(func(i int) bool { return held[i] })
}

// Session is the coverage of a cold session hit: its matched terms, as
// far as the vocabulary proves them. A phrase is never verified in a
// cold session.
func (c *Coverage) Session(it *Item) float64 {
	if c.kind == PlanPhrase {
		return 0
	}
	if c.total <= 0 {
		return c.share(func(int) bool { return it.Matched == len(c.idf) })
	}
	return round4(it.covered / c.total)
}

// share is the idf share of the query terms held reports, rounded to
// four places as scores are to six: a share is read, not summed.
func (c *Coverage) share(held func(i int) bool) float64 {
	if c.total <= 0 {
		// Terms no session holds: all or nothing.
		for i := range c.idf {
			if !held(i) {
				return 0
			}
		}
		return 1
	}
	m := 0.0
	for i, idf := range c.idf {
		if held(i) {
			m += idf
		}
	}
	return round4(m / c.total)
}

func round4(f float64) float64 { return float64(int64(min(f, 1)*1e4+0.5)) / 1e4 }
