package search

import (
	"strings"

	"github.com/memidx/memidx/internal/analyzer"
	"github.com/memidx/memidx/internal/analyzer/natural"
	"github.com/memidx/memidx/internal/coverage"
	"github.com/memidx/memidx/internal/regexiso"
)

// NaturalFields are the two fields of a natural-language query.
type NaturalFields struct{ Canonical, Stem Field }

// NaturalPlan plans a natural-language query: its canonical terms less
// English stop words (the canonical field), then their stems' keys (the
// stemmed field, natural.Key), each term once. A query of stop words
// alone ("what was it?") keeps its canonical terms, as literal mode would,
// so that it still finds what holds them.
func NaturalPlan(query string, f NaturalFields) Plan {
	toks := analyzer.Tokens(query)
	p := Plan{Kind: PlanTerms, Natural: true}
	var stems []string
	seen := map[string]bool{}
	for _, tok := range toks {
		st, ok := natural.Term(tok)
		if !ok || seen[tok] {
			continue
		}
		seen[tok] = true
		p.Terms = append(p.Terms, strings.Clone(tok))
		if key := natural.Key(st); !seen[key] {
			seen[key] = true
			stems = append(stems, key)
		}
	}
	if len(p.Terms) == 0 {
		p.Terms = unique(toks)
		p.Natural = false
		return p
	}
	p.Fields = make([]Field, 0, len(p.Terms)+len(stems))
	for range p.Terms {
		p.Fields = append(p.Fields, f.Canonical)
	}
	for range stems {
		p.Fields = append(p.Fields, f.Stem)
	}
	p.StemsFrom = len(p.Terms)
	p.Terms = append(p.Terms, stems...)
	return p
}

// LiteralPlan plans a literal query: its canonical terms, each once; all
// asks for every term in one entry (queryMatch "all"). A query of
// punctuation alone has no terms, and then nothing matches.
func LiteralPlan(query string, all bool) Plan {
	return Plan{Kind: PlanTerms, Terms: unique(analyzer.Tokens(query)), All: all}
}

// PhrasePlan plans a phrase query: its tokens in order, and each once as
// the terms that find candidates. A phrase without tokens browses.
func PhrasePlan(query string) Plan {
	p := Plan{Kind: PlanPhrase, Phrase: analyzer.Tokens(strings.TrimSpace(query))}
	if p.Terms = unique(p.Phrase); len(p.Terms) == 0 {
		p.Kind = PlanBrowse
	}
	return p
}

// unique returns toks without repeats, in first-seen order, each cloned
// (a token may share memory with the query).
func unique(toks []string) []string {
	seen := make(map[string]bool, len(toks))
	var out []string
	for _, t := range toks {
		if !seen[t] {
			seen[t] = true
			out = append(out, strings.Clone(t))
		}
	}
	return out
}

// stemOf returns the stem of plan term t when t is a natural plan's stem
// key (natural.Key).
func (p *Plan) stemOf(t string) (string, bool) {
	if !p.Natural {
		return "", false
	}
	return strings.CutPrefix(t, natural.KeyPrefix)
}

// TokenMatcher reports whether a canonical token of an entry's text
// matches one of the plan's terms (for a natural plan, a term or a form
// of one of its stems): a snippet is anchored on such a token. It is nil
// for a plan without terms.
func (p *Plan) TokenMatcher() func(tok string) bool {
	if len(p.Terms) == 0 {
		return nil
	}
	terms := make(map[string]bool, len(p.Terms))
	stems := map[string]bool{}
	for _, t := range p.Terms {
		if st, isStem := p.stemOf(t); isStem {
			stems[st] = true
		} else {
			terms[t] = true
		}
	}
	return func(tok string) bool {
		if terms[tok] {
			return true
		}
		if len(stems) == 0 {
			return false
		}
		st, ok := natural.Term(tok)
		return ok && stems[st]
	}
}

// Planning is how a query is read: its mode ("literal", "phrase", "regex"
// or "natural"), whether a literal query needs all its terms, the bounds
// of a regex and the fields of a natural query.
type Planning struct {
	Mode    string
	All     bool
	Regex   regexiso.Limits
	Natural NaturalFields
}

// PlanOf plans query: a blank query browses; an invalid or oversized
// pattern is a regex plan without its pattern, with its error.
func PlanOf(query string, how Planning) (Plan, *coverage.Error) {
	switch {
	case strings.TrimSpace(query) == "":
		return Plan{Kind: PlanBrowse}, nil
	case how.Mode == "regex":
		m, cerr := regexiso.Compile(query, how.Regex)
		if cerr != nil {
			return Plan{Kind: PlanRegex}, cerr
		}
		return Plan{Kind: PlanRegex, Regex: m}, nil
	case how.Mode == "phrase":
		return PhrasePlan(query), nil
	case how.Mode == "natural":
		return NaturalPlan(query, how.Natural), nil
	}
	return LiteralPlan(query, how.All), nil
}
