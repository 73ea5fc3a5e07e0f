package search_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/internal/analyzer/natural"
	"github.com/memidx/memidx/internal/coverage"
	"github.com/memidx/memidx/internal/regexiso"
	"github.com/memidx/memidx/internal/search"
)

var fields = search.NaturalFields{Canonical: search.Field{Weight: 1, B: 0.75}, Stem: search.Field{Weight: 0.3, B: 0.5}}

func TestNaturalPlan(t *testing.T) {
	canon, stem := fields.Canonical, fields.Stem
	for _, c := range []struct {
		query     string
		terms     []string
		natural   bool
		stemsFrom int
		fields    []search.Field
	}{
		// Stop words go, each term once, then each stem once.
		{"How did we deploy the servers? Deploying servers!", []string{"deploy", "servers", "deploying", natural.Key("deploy"), natural.Key("server")}, true, 3,
			[]search.Field{canon, canon, canon, stem, stem}},
		// A short or non-letter token is its own stem.
		{"go v2 go", []string{"go", "v2", natural.Key("go"), natural.Key("v2")}, true, 2, []search.Field{canon, canon, stem, stem}},
		// Stop words alone: the literal terms, not natural.
		{"what was it? What", []string{"what", "was", "it"}, false, 0, nil},
		{"?!", nil, false, 0, nil},
	} {
		p := search.NaturalPlan(c.query, fields)
		assert.Equal(t, search.PlanTerms, p.Kind, c.query)
		assert.Equal(t, c.terms, p.Terms, c.query)
		assert.Equal(t, c.natural, p.Natural, c.query)
		assert.Equal(t, c.stemsFrom, p.StemsFrom, c.query)
		assert.Equal(t, c.fields, p.Fields, c.query)
		assert.False(t, p.All, c.query)
	}
}

func TestLiteralAndPhrasePlans(t *testing.T) {
	p := search.LiteralPlan("Deploy the  DEPLOY, prod-db", true)
	assert.Equal(t, search.Plan{Kind: search.PlanTerms, Terms: []string{"deploy", "the", "prod", "db"}, All: true}, p)
	p = search.LiteralPlan("-- ;", false)
	assert.Equal(t, search.PlanTerms, p.Kind)
	assert.Empty(t, p.Terms, "punctuation alone has no terms")

	p = search.PhrasePlan("  to be or not to be ")
	assert.Equal(t, search.PlanPhrase, p.Kind)
	assert.Equal(t, []string{"to", "be", "or", "not", "to", "be"}, p.Phrase, "in order, with repeats")
	assert.Equal(t, []string{"to", "be", "or", "not"}, p.Terms, "each once")
	p = search.PhrasePlan(" ... ")
	assert.Equal(t, search.PlanBrowse, p.Kind, "a phrase without tokens browses")
}

func TestTokenMatcher(t *testing.T) {
	nat := search.NaturalPlan("deploying servers", fields)
	lit := search.LiteralPlan("deploying servers", false)
	// A literal term that looks like a stem key is a plain term.
	odd := search.Plan{Kind: search.PlanTerms, Terms: []string{natural.Key("deploy")}}
	for _, c := range []struct {
		plan search.Plan
		tok  string
		want bool
	}{
		{nat, "deploying", true},
		{nat, "deployed", true}, // a form of the stem
		{nat, "server", true},
		{nat, "the", false},
		{nat, "deport", false},
		{lit, "deploying", true},
		{lit, "deployed", false}, // literal: no stems
		{lit, "server", false},
		{odd, "deploy", false},
		{odd, natural.Key("deploy"), true},
	} {
		assert.Equal(t, c.want, c.plan.TokenMatcher()(c.tok), "%v %q", c.plan.Terms, c.tok)
	}
	browse := search.Plan{Kind: search.PlanBrowse}
	assert.Nil(t, browse.TokenMatcher(), "a plan without terms anchors nothing")
}

// PlanOf reads a query as its mode says: a blank query browses, a
// pattern that does not compile is a regex plan without its pattern and
// with its error.
func TestPlanOf(t *testing.T) {
	nat := search.NaturalFields{Canonical: search.DefaultField, Stem: search.Field{Weight: 0.5, B: 0.75}}
	lim := regexiso.DefaultLimits()
	small := lim
	small.MaxPatternBytes = 4
	for _, tc := range []struct {
		name, query string
		how         search.Planning
		want        search.Plan
		code        string
	}{
		{"blank browses", "  \t", search.Planning{Mode: "regex", Regex: lim}, search.Plan{Kind: search.PlanBrowse}, ""},
		{"literal any", "walrus tusk", search.Planning{Mode: "literal"}, search.LiteralPlan("walrus tusk", false), ""},
		{"literal all", "walrus tusk", search.Planning{Mode: "literal", All: true}, search.LiteralPlan("walrus tusk", true), ""},
		{"phrase", "walrus tusk", search.Planning{Mode: "phrase"}, search.PhrasePlan("walrus tusk"), ""},
		{"natural", "the walruses swam", search.Planning{Mode: "natural", Natural: nat}, search.NaturalPlan("the walruses swam", nat), ""},
		{"invalid pattern", "(", search.Planning{Mode: "regex", Regex: lim}, search.Plan{Kind: search.PlanRegex}, coverage.InvalidRegex},
		{"oversized pattern", "walrus", search.Planning{Mode: "regex", Regex: small}, search.Plan{Kind: search.PlanRegex}, coverage.RegexPatternTooLarge},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, cerr := search.PlanOf(tc.query, tc.how)
			if tc.code != "" {
				require.NotNil(t, cerr)
				assert.Equal(t, tc.code, cerr.Code)
			} else {
				assert.Nil(t, cerr)
			}
			assert.Equal(t, tc.want, got)
		})
	}
	got, cerr := search.PlanOf("wal[r]us", search.Planning{Mode: "regex", Regex: lim})
	require.Nil(t, cerr)
	assert.Equal(t, search.PlanRegex, got.Kind)
	assert.NotNil(t, got.Regex)
}
