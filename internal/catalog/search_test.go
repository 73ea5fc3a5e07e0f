package catalog_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/internal/catalog"
	"github.com/memidx/memidx/internal/coverage"
)

// TestSearch_Bonuses isolates every row of the scoring table: each case is
// a one-action catalog, and why spells out the exact sum.
func TestSearch_Bonuses(t *testing.T) {
	zeta := func(edit func(p *catalog.Provider, a *catalog.Action)) catalog.Provider {
		p := catalog.Provider{Name: "prov"}
		a := catalog.Action{Name: "zeta", Risk: "read"}
		if edit != nil {
			edit(&p, &a)
		}
		p.Actions = []catalog.Action{a}
		return p
	}
	tests := []struct {
		name     string
		provider catalog.Provider
		query    string
		want     int
		why      string
	}{
		{
			name:     "ref equals",
			provider: catalog.Provider{Name: "p", Actions: []catalog.Action{act("x")}},
			query:    "p.x", want: 1395,
			why: "1000 ref equals + 300 ref prefix + p: 30 ref + 20 provider + x: 30 ref + 15 every token",
		},
		{
			name: "name equals", provider: zeta(nil), query: "zeta", want: 965,
			why: "800 name equals + 120 ref contains (prov.zeta) + 30 ref-or-name once + 15",
		},
		{
			name: "ref starts with", provider: zeta(nil), query: "prov", want: 365,
			why: "300 ref prefix + 30 ref + 20 provider + 15",
		},
		{
			name: "ref starts with, several tokens", provider: zeta(nil), query: "prov.ze", want: 395,
			why: "300 ref prefix + prov: 30 + 20 + ze: 30 + 15",
		},
		{
			name: "ref contains", provider: zeta(nil), query: "eta", want: 165,
			why: "120 ref contains + 30 ref-or-name + 15",
		},
		{
			name: "description contains",
			provider: zeta(func(p *catalog.Provider, a *catalog.Action) {
				a.Description = "Will frobnicate widgets quickly."
			}),
			query: "frobnicate widgets", want: 71,
			why: "40 description + frobnicate: 8 + widgets: 8 + 15",
		},
		{
			name: "provider description contains",
			provider: zeta(func(p *catalog.Provider, a *catalog.Action) {
				p.Description = "Frobnicate widgets here."
			}),
			query: "frobnicate widgets", want: 43,
			why: "20 provider description + 4 + 4 + 15",
		},
		{
			name: "JSON of the input schema contains",
			provider: zeta(func(p *catalog.Provider, a *catalog.Action) {
				a.InputSchema = json.RawMessage(`{"properties": {"frobnicate": {}}}`)
			}),
			query: "frobnicate", want: 27,
			why: "10 schema + 2 schema token + 15",
		},
		{
			name: "the schema is matched as compact JSON",
			provider: zeta(func(p *catalog.Provider, a *catalog.Action) {
				a.InputSchema = json.RawMessage(`{"type" : "object"}`)
			}),
			query: `"type":"object"`, want: 29,
			why: "10 schema (whitespace removed) + type: 2 + object: 2 + 15, ref contains neither",
		},
		{
			name: "namespace token",
			provider: zeta(func(p *catalog.Provider, a *catalog.Action) {
				a.Namespace = "quux"
			}),
			query: "quux", want: 21,
			why: "no whole-query namespace bonus; 6 namespace token + 15",
		},
		{
			name: "provider token, one token unmatched",
			provider: zeta(func(p *catalog.Provider, a *catalog.Action) {
				p.Name = "acme"
			}),
			query: "acme nothing", want: 50,
			why: "acme: 30 ref + 20 provider; nothing unmatched: no +15",
		},
		{
			name: "every token matched, no whole-query match",
			provider: zeta(func(p *catalog.Provider, a *catalog.Action) {
				a.Description = "frobnicate and widgets"
			}),
			query: "widgets frobnicate", want: 31,
			why: "8 + 8 + 15",
		},
		{
			name: "some tokens matched",
			provider: zeta(func(p *catalog.Provider, a *catalog.Action) {
				a.Description = "frobnicate and widgets"
			}),
			query: "widgets nothing", want: 8,
			why: "8 only",
		},
		{
			name: "one token in every field",
			provider: catalog.Provider{Name: "kk", Description: "kk", Actions: []catalog.Action{
				{Name: "kk", Description: "kk", Risk: "read", Namespace: "kk", InputSchema: json.RawMessage(`{"kk":true}`)},
			}},
			query: "kk", want: 800 + 300 + 40 + 20 + 10 + 30 + 20 + 8 + 4 + 6 + 2 + 15,
			why: "name equals, ref prefix (kk.kk), description, provider description, schema; every token row; +15",
		},
		{
			name: "the output schema is not searched",
			provider: zeta(func(p *catalog.Provider, a *catalog.Action) {
				a.OutputSchema = json.RawMessage(`{"frobnicate":true}`)
			}),
			query: "frobnicate", want: 0,
			why: "no field matches",
		},
		{
			name: "NFKC, lowercase and trim on both sides",
			provider: zeta(func(p *catalog.Provider, a *catalog.Action) {
				a.Description = "FROBNICATE"
			}),
			query: "  \uFF26\uFF32\uFF2F\uFF22\uFF2E\uFF29\uFF23\uFF21\uFF34\uFF25\t", want: 63,
			why: "fullwidth FROBNICATE normalizes to frobnicate: 40 + 8 + 15",
		},
		{
			name: "a repeated token counts once",
			provider: zeta(func(p *catalog.Provider, a *catalog.Action) {
				a.Description = "frobnicate"
			}),
			query: "frobnicate frobnicate", want: 23,
			why: "8 + 15",
		},
		{
			name: "tokens are substrings of fields",
			provider: zeta(func(p *catalog.Provider, a *catalog.Action) {
				a.Description = "threads"
			}),
			query: "read", want: 63,
			why: "read is inside threads: 40 whole-query description + 8 + 15",
		},
		{
			name:     "punctuation only: no tokens, no +15",
			provider: zeta(nil), query: "...", want: 0,
			why: "nothing contains ... and there are no tokens",
		},
		{
			name:     "punctuation that is in the ref",
			provider: zeta(nil), query: ".", want: 120,
			why: "ref contains . (not a prefix); no tokens so no token bonus",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := mustNew(t, tt.provider)
			hits, err := c.Search(tt.query, 0)
			require.NoError(t, err)
			if tt.want == 0 {
				assert.Empty(t, hits, tt.why)
				return
			}
			require.Len(t, hits, 1)
			assert.Equal(t, tt.want, hits[0].Score, tt.why)
		})
	}
}

func TestSearch_OrderAndLimit(t *testing.T) {
	var actions []catalog.Action
	for i := range 120 {
		actions = append(actions, catalog.Action{Name: fmt.Sprintf("a%03d", i), Description: "common", Risk: "read"})
	}
	actions = append(actions, catalog.Action{Name: "zz", Description: "common common", Risk: "read", Namespace: "common"})
	c := mustNew(t, catalog.Provider{Name: "p", Actions: actions})

	hits, err := c.Search("common", 0)
	require.NoError(t, err)
	require.Len(t, hits, catalog.DefaultSearchLimit)
	assert.Equal(t, "p.zz", hits[0].Ref, "the higher score first")
	assert.Equal(t, 40+8+6+15, hits[0].Score)
	for i, h := range hits[1:] {
		assert.Equal(t, fmt.Sprintf("p.a%03d", i), h.Ref, "ties by ref ascending")
		assert.Equal(t, 40+8+15, h.Score)
	}
	for _, tt := range []struct{ limit, want int }{{1, 1}, {-3, 30}, {100, 100}, {101, 100}, {100000, 100}} {
		hits, err := c.Search("common", tt.limit)
		require.NoError(t, err)
		assert.Len(t, hits, tt.want, "limit %d", tt.limit)
	}
}

func TestSearch_SearchesBeyondTheCatalogLimit(t *testing.T) {
	var actions []catalog.Action
	for i := range 1200 {
		actions = append(actions, act(fmt.Sprintf("a%04d", i)))
	}
	c := mustNew(t, catalog.Provider{Name: "p", Actions: actions})
	assert.False(t, c.Catalog(0).Complete)
	hits, err := c.Search("a1199", 0)
	require.NoError(t, err)
	require.NotEmpty(t, hits)
	assert.Equal(t, "p.a1199", hits[0].Ref)
}

func TestSearch_EmptyQuery(t *testing.T) {
	c := catalog.Default()
	for _, q := range []string{"", "   ", "\t\n"} {
		hits, err := c.Search(q, 0)
		assert.Nil(t, hits)
		assertCode(t, err, coverage.InvalidRequest)
	}
}

func TestSearch_HitShape(t *testing.T) {
	c, err := catalog.Load("testdata/catalog.json")
	require.NoError(t, err)
	hits, err := c.Search("search source files", 3)
	require.NoError(t, err)
	require.NotEmpty(t, hits)
	h := hits[0]
	assert.Equal(t, "omp.grep", h.Ref)
	d, err := c.Describe("omp.grep", "")
	require.NoError(t, err)
	assert.Equal(t, d.ActionHead, h.ActionHead)
	assert.Equal(t, d.InputSchema, h.InputSchema)
	assert.Equal(t, d.OutputSchema, h.OutputSchema)

	b, err := json.Marshal(h)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	for _, k := range []string{"key", "parentKey", "ref", "name", "description", "descriptorHash", "risk", "namespace", "inputSchema", "outputSchema", "score"} {
		assert.Contains(t, m, k)
	}
	assert.NotContains(t, m, "effect", "empty effect omitted")
	assert.Len(t, m, 11)

	// Hits are copies.
	h.InputSchema[0] = '['
	again, err := c.Search("search source files", 1)
	require.NoError(t, err)
	assert.Equal(t, byte('{'), again[0].InputSchema[0])
}
