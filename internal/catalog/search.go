package catalog

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/memidx/memidx/internal/analyzer"
	"github.com/memidx/memidx/internal/coverage"
)

// Limits of [Catalog.Search].
const (
	DefaultSearchLimit = 30
	MaxSearchLimit     = 100
)

// The scoring table of tools.search, exactly as the reference has it.
const (
	// Whole-query bonuses, once per action.
	bonusRefEquals       = 1000
	bonusNameEquals      = 800
	bonusRefPrefix       = 300 // ref starts with the query
	bonusRefContains     = 120 // ref contains it, but not as a prefix
	bonusDescription     = 40
	bonusProviderDesc    = 20
	bonusInputSchemaJSON = 10

	// Per query token, per field containing it.
	tokenRefOrName    = 30 // once when the ref or the name contains it
	tokenProvider     = 20
	tokenDescription  = 8
	tokenProviderDesc = 4
	tokenNamespace    = 6
	tokenSchema       = 2

	// Once when every query token is contained in some field.
	bonusEveryTokenMatched = 15
)

// Hit is one ranked action of a search: its head, its schemas and its
// score.
type Hit struct {
	ActionHead
	InputSchema  json.RawMessage `json:"inputSchema,omitempty"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	Score        int             `json:"score"`
}

// Search ranks the visible actions for query with the reference's scoring
// table and returns those that score above zero, by score descending and
// then ref ascending (UTF-16 code unit order), at most limit of them (0 or
// less means [DefaultSearchLimit], more than [MaxSearchLimit] means that
// maximum). The result is never nil.
//
// Matching: the query is NFKC-normalized, lowercased (JavaScript rules) and
// trimmed ([analyzer.NormalizePhrase] and [strings.TrimSpace]); every field
// is NFKC-normalized and lowercased the same way (ref and name are trimmed
// too, for the equality tests), so matching is case- and
// compatibility-insensitive. "Contains" is a substring test. The fields are
// the action's ref, name, description and namespace, its provider's name
// and description, and the JSON of its input schema (JSON.stringify of the
// schema, the author's key order, no whitespace); the output schema is not
// searched. Whole-query bonuses, once per action:
//
//	ref equals the query                       +1000
//	name equals the query                      +800
//	ref starts with the query                  +300
//	  otherwise, ref contains it               +120
//	description contains the query             +40
//	provider description contains the query    +20
//	input schema JSON contains the query       +10
//
// Query tokens are the canonical tokens of the query ([analyzer.Tokens]),
// each counted once however often it occurs. For every token, every field
// that contains it adds:
//
//	ref or name (once for both)   +30
//	provider name                 +20
//	description                   +8
//	provider description          +4
//	namespace                     +6
//	input schema JSON             +2
//
// When the query has tokens and every one of them is contained in some
// field, the action gets +15 more.
//
// Unlike the reference, which searches the first 1000 actions by ref,
// Search ranks every visible action. An empty query (after trimming) is a
// [*coverage.Error] with code [coverage.InvalidRequest].
func (c *Catalog) Search(query string, limit int) ([]Hit, error) {
	q := strings.TrimSpace(analyzer.NormalizePhrase(query))
	if q == "" {
		return nil, &coverage.Error{Code: coverage.InvalidRequest, Message: "Capability search requires a non-empty query."}
	}
	if limit <= 0 {
		limit = DefaultSearchLimit
	}
	limit = min(limit, MaxSearchLimit)
	tokens := uniqueTokens(q)
	s := c.snapshot()
	type scored struct {
		v     *visible
		score int
	}
	var ranked []scored
	for _, v := range s.actions {
		if sc := score(v.a, v.p, q, tokens); sc > 0 {
			ranked = append(ranked, scored{v, sc})
		}
	}
	slices.SortFunc(ranked, func(a, b scored) int {
		if a.score != b.score {
			return b.score - a.score
		}
		return analyzer.CompareUTF16(a.v.a.Ref, b.v.a.Ref)
	})
	hits := make([]Hit, 0, min(len(ranked), limit))
	for _, r := range ranked[:min(len(ranked), limit)] {
		hits = append(hits, Hit{
			ActionHead:   r.v.a.head,
			InputSchema:  slices.Clone(r.v.a.InputSchema),
			OutputSchema: slices.Clone(r.v.a.OutputSchema),
			Score:        r.score,
		})
	}
	return hits, nil
}

// score is the search score of action a of provider p for the normalized
// query q and its unique tokens.
func score(a *action, p *provider, q string, tokens []string) int {
	s := 0
	if a.lref == q {
		s += bonusRefEquals
	}
	if a.lname == q {
		s += bonusNameEquals
	}
	if strings.HasPrefix(a.lref, q) {
		s += bonusRefPrefix
	} else if strings.Contains(a.lref, q) {
		s += bonusRefContains
	}
	if strings.Contains(a.ldesc, q) {
		s += bonusDescription
	}
	if strings.Contains(p.ldesc, q) {
		s += bonusProviderDesc
	}
	if strings.Contains(a.lschema, q) {
		s += bonusInputSchemaJSON
	}
	every := len(tokens) > 0
	for _, t := range tokens {
		matched := false
		add := func(field string, bonus int) {
			if strings.Contains(field, t) {
				s += bonus
				matched = true
			}
		}
		if strings.Contains(a.lref, t) || strings.Contains(a.lname, t) {
			s += tokenRefOrName
			matched = true
		}
		add(p.lname, tokenProvider)
		add(a.ldesc, tokenDescription)
		add(p.ldesc, tokenProviderDesc)
		add(a.lns, tokenNamespace)
		add(a.lschema, tokenSchema)
		if !matched {
			every = false
		}
	}
	if every {
		s += bonusEveryTokenMatched
	}
	return s
}

func uniqueTokens(q string) []string {
	var out []string
	for _, t := range analyzer.Tokens(q) {
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}
