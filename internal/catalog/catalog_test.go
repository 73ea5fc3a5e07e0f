package catalog_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/internal/catalog"
	"github.com/memidx/memidx/internal/coverage"
)

func mustNew(t testing.TB, providers ...catalog.Provider) *catalog.Catalog {
	t.Helper()
	c, err := catalog.New(providers...)
	require.NoError(t, err)
	return c
}

// act returns a minimal valid action.
func act(name string) catalog.Action {
	return catalog.Action{Name: name, Risk: "read"}
}

func refs(t catalog.Tree) []string {
	var out []string
	for _, p := range t.Providers {
		for _, a := range p.Actions {
			out = append(out, a.Ref)
		}
	}
	return out
}

func providerNames(t catalog.Tree) []string {
	var out []string
	for _, p := range t.Providers {
		out = append(out, p.Name)
	}
	return out
}

func TestCatalog_Tree_WireFormat(t *testing.T) {
	c := mustNew(t, catalog.Provider{
		Name:        "p",
		Description: "P things",
		Actions: []catalog.Action{
			{Name: "b", Description: "B", Risk: "write", Namespace: "n", Effect: "e", InputSchema: json.RawMessage(`{"type":"object"}`)},
			{Name: "a", Description: "A", Risk: "read"},
		},
	})
	tree := c.Catalog(0)
	p := tree.Providers[0]
	a, b := p.Actions[0], p.Actions[1]
	want := fmt.Sprintf(`{"kind":"omp-fabric.capability-catalog","version":1,`+
		`"root":{"key":"capability:fabric","name":"Fabric capabilities","description":"Current registered provider and action metadata for navigation; not historical session evidence.","descriptorHash":%q},`+
		`"providers":[{"key":"provider:p","parentKey":"capability:fabric","name":"p","description":"P things","descriptorHash":%q,"actions":[`+
		`{"key":"action:p.a","parentKey":"provider:p","ref":"p.a","name":"a","description":"A","descriptorHash":%q,"risk":"read"},`+
		`{"key":"action:p.b","parentKey":"provider:p","ref":"p.b","name":"b","description":"B","descriptorHash":%q,"risk":"write","namespace":"n","effect":"e"}]}],`+
		`"totalActions":2,"indexedActions":2,"complete":true,"reasons":[]}`,
		tree.Root.DescriptorHash, p.DescriptorHash, a.DescriptorHash, b.DescriptorHash)
	got, err := json.Marshal(tree)
	require.NoError(t, err)
	assert.JSONEq(t, want, string(got))
	assert.Equal(t, want, string(got), "field order follows the reference")
	for _, h := range []string{tree.Root.DescriptorHash, p.DescriptorHash, a.DescriptorHash, b.DescriptorHash} {
		assert.Regexp(t, `^[0-9a-f]{64}$`, h)
	}
}

func TestCatalog_Tree_EmptyCatalog(t *testing.T) {
	var zero catalog.Catalog // the zero value is usable
	got, err := json.Marshal(zero.Catalog(0))
	require.NoError(t, err)
	assert.Contains(t, string(got), `"providers":[],"totalActions":0,"indexedActions":0,"complete":true,"reasons":[]`)
	require.NoError(t, zero.Register(catalog.Provider{Name: "p", Actions: []catalog.Action{act("x")}}))
	assert.Equal(t, []string{"p.x"}, refs(zero.Catalog(0)))
}

func TestCatalog_Tree_Ordering(t *testing.T) {
	tests := []struct {
		name      string
		providers []catalog.Provider
		wantProv  []string
		wantRefs  []string
	}{
		{
			name: "providers by name, actions by ref, whatever the registration order",
			providers: []catalog.Provider{
				{Name: "zeta", Actions: []catalog.Action{act("b"), act("a")}},
				{Name: "alpha", Actions: []catalog.Action{act("z"), act("m"), act("a")}},
				{Name: "Mid", Actions: []catalog.Action{act("x")}},
			},
			// Uppercase sorts before lowercase, as JavaScript sorts strings.
			wantProv: []string{"Mid", "alpha", "zeta"},
			wantRefs: []string{"Mid.x", "alpha.a", "alpha.m", "alpha.z", "zeta.a", "zeta.b"},
		},
		{
			name: "UTF-16 code unit order, not byte order",
			providers: []catalog.Provider{
				{Name: "p", Actions: []catalog.Action{act("\uFF21"), act("\U0001F600"), act("z")}},
			},
			wantProv: []string{"p"},
			// U+1F600 is the surrogate pair D83D DE00, before U+FF21 in
			// UTF-16 although after it in UTF-8.
			wantRefs: []string{"p.z", "p.\U0001F600", "p.\uFF21"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tree := mustNew(t, tt.providers...).Catalog(0)
			assert.Equal(t, tt.wantProv, providerNames(tree))
			assert.Equal(t, tt.wantRefs, refs(tree))
			// Deterministic: a catalog built in reverse order is identical.
			rev := make([]catalog.Provider, len(tt.providers))
			for i, p := range tt.providers {
				rev[len(rev)-1-i] = p
			}
			assert.Equal(t, tree, mustNew(t, rev...).Catalog(0))
		})
	}
}

func TestCatalog_Tree_Limit(t *testing.T) {
	c := mustNew(t,
		catalog.Provider{Name: "b", Actions: []catalog.Action{act("x"), act("y")}},
		catalog.Provider{Name: "a", Actions: []catalog.Action{act("z")}},
	)
	full := c.Catalog(0)
	tests := []struct {
		limit    int
		wantRefs []string
		complete bool
	}{
		{limit: 0, wantRefs: []string{"a.z", "b.x", "b.y"}, complete: true},
		{limit: -7, wantRefs: []string{"a.z", "b.x", "b.y"}, complete: true},
		{limit: 3, wantRefs: []string{"a.z", "b.x", "b.y"}, complete: true},
		{limit: 5000, wantRefs: []string{"a.z", "b.x", "b.y"}, complete: true},
		{limit: 2, wantRefs: []string{"a.z", "b.x"}, complete: false},
		{limit: 1, wantRefs: []string{"a.z"}, complete: false},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.limit), func(t *testing.T) {
			tree := c.Catalog(tt.limit)
			assert.Equal(t, tt.wantRefs, refs(tree))
			assert.Equal(t, 3, tree.TotalActions)
			assert.Equal(t, len(tt.wantRefs), tree.IndexedActions)
			assert.Equal(t, tt.complete, tree.Complete)
			if tt.complete {
				assert.Equal(t, []string{}, tree.Reasons)
			} else {
				assert.Equal(t, []string{catalog.ActionLimit}, tree.Reasons)
			}
			// Every provider stays listed, and no hash depends on the limit.
			assert.Equal(t, []string{"a", "b"}, providerNames(tree))
			assert.Equal(t, full.Root, tree.Root)
			for i := range tree.Providers {
				assert.Equal(t, full.Providers[i].DescriptorHash, tree.Providers[i].DescriptorHash)
			}
		})
	}
}

func TestCatalog_Tree_LimitIsOverGlobalRefOrder(t *testing.T) {
	// Provider "a" sorts before "a-x", but ref "a-x.c" sorts before "a.b"
	// ('-' < '.'): the limit keeps the first refs, not the first provider.
	c := mustNew(t,
		catalog.Provider{Name: "a", Actions: []catalog.Action{act("b")}},
		catalog.Provider{Name: "a-x", Actions: []catalog.Action{act("c")}},
	)
	tree := c.Catalog(1)
	require.Equal(t, []string{"a", "a-x"}, providerNames(tree))
	assert.Empty(t, tree.Providers[0].Actions)
	assert.NotNil(t, tree.Providers[0].Actions, "encodes as []")
	assert.Equal(t, []string{"a-x.c"}, refs(tree))
	assert.False(t, tree.Complete)
}

func TestCatalog_Quarantine(t *testing.T) {
	c := mustNew(t,
		catalog.Provider{Name: "p", Actions: []catalog.Action{act("keep"), {Name: "hidden", Risk: "write", Description: "secret sauce", Quarantined: true}}},
		catalog.Provider{Name: "q", Actions: []catalog.Action{act("hidden")}},
	)
	tree := c.Catalog(0)
	assert.Equal(t, []string{"p.keep", "q.hidden"}, refs(tree))
	assert.Equal(t, 2, tree.TotalActions)
	assert.True(t, tree.Complete)

	hits, err := c.Search("secret sauce", 0)
	require.NoError(t, err)
	assert.Empty(t, hits)
	hits, err = c.Search("p.hidden", 0)
	require.NoError(t, err)
	for _, h := range hits {
		assert.NotEqual(t, "p.hidden", h.Ref)
	}

	_, err = c.Describe("p.hidden", "")
	assertCode(t, err, coverage.ActionQuarantined)
	// The bare name resolves to the only visible action.
	d, err := c.Describe("hidden", "")
	require.NoError(t, err)
	assert.Equal(t, "q.hidden", d.Ref)

	// A quarantined action is not hashed into its provider: quarantining
	// changes the provider's hash, and it is the hash of a provider without
	// that action.
	without := mustNew(t,
		catalog.Provider{Name: "p", Actions: []catalog.Action{act("keep")}},
		catalog.Provider{Name: "q", Actions: []catalog.Action{act("hidden")}},
	).Catalog(0)
	assert.Equal(t, without.Root, tree.Root)

	require.NoError(t, c.SetQuarantined("p.hidden", false))
	restored := c.Catalog(0)
	assert.Equal(t, []string{"p.hidden", "p.keep", "q.hidden"}, refs(restored))
	assert.NotEqual(t, tree.Providers[0].DescriptorHash, restored.Providers[0].DescriptorHash)
	assert.Equal(t, tree.Providers[1].DescriptorHash, restored.Providers[1].DescriptorHash)
	_, err = c.Describe("hidden", "")
	assertCode(t, err, coverage.AmbiguousAction)

	require.NoError(t, c.SetQuarantined("q.hidden", true))
	assert.Equal(t, []string{"p.hidden", "p.keep"}, refs(c.Catalog(0)))
	assertCode(t, c.SetQuarantined("q.nope", true), coverage.ActionNotFound)
}

func TestNew_Validation(t *testing.T) {
	schema := func(s string) json.RawMessage { return json.RawMessage(s) }
	tests := []struct {
		name      string
		providers []catalog.Provider
		wantErr   string
	}{
		{"missing provider name", []catalog.Provider{{Actions: []catalog.Action{act("x")}}}, "missing name"},
		{"missing action name", []catalog.Provider{{Name: "p", Actions: []catalog.Action{{Risk: "read"}}}}, "missing name"},
		{"provider name with a dot", []catalog.Provider{{Name: "p.q"}}, `must not contain "."`},
		{"name with a space", []catalog.Provider{{Name: "p", Actions: []catalog.Action{act("a b")}}}, "whitespace"},
		{"name with a control character", []catalog.Provider{{Name: "p\x00"}}, "control"},
		{"invalid UTF-8", []catalog.Provider{{Name: "p", Actions: []catalog.Action{act("\xff")}}}, "UTF-8"},
		{"missing risk", []catalog.Provider{{Name: "p", Actions: []catalog.Action{{Name: "x"}}}}, "missing risk"},
		{"ref is not provider.name", []catalog.Provider{{Name: "p", Actions: []catalog.Action{{Ref: "q.x", Name: "x", Risk: "read"}}}}, "not provider.name"},
		{"provider field differs", []catalog.Provider{{Name: "p", Actions: []catalog.Action{{Provider: "q", Name: "x", Risk: "read"}}}}, "differs"},
		{"duplicate ref", []catalog.Provider{{Name: "p", Actions: []catalog.Action{act("x"), act("x")}}}, `duplicate action ref "p.x"`},
		{"duplicate provider", []catalog.Provider{{Name: "p"}, {Name: "p"}}, `duplicate provider "p"`},
		{"schema not JSON", []catalog.Provider{{Name: "p", Actions: []catalog.Action{{Name: "x", Risk: "read", InputSchema: schema(`{`)}}}}, "inputSchema"},
		{"schema a string", []catalog.Provider{{Name: "p", Actions: []catalog.Action{{Name: "x", Risk: "read", OutputSchema: schema(`"x"`)}}}}, "outputSchema: a schema must be an object or a boolean, not string"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := catalog.New(tt.providers...)
			require.Error(t, err)
			assert.ErrorIs(t, err, catalog.ErrInvalid)
			assert.Contains(t, err.Error(), tt.wantErr)
		})
	}
}

func TestNew_FillsAndCopies(t *testing.T) {
	in := json.RawMessage(`{ "type" : "object" }`)
	p := catalog.Provider{Name: "p", Actions: []catalog.Action{
		{Name: "x", Risk: "read", InputSchema: in},
		{Ref: "p.y", Provider: "p", Name: "y", Risk: "read", InputSchema: json.RawMessage(`true`), OutputSchema: json.RawMessage(`null`)},
	}}
	c := mustNew(t, p)
	before := c.Catalog(0)
	in[3] = 'X' // the caller's bytes are not kept
	p.Actions[0].Name = "changed"
	assert.Equal(t, before, c.Catalog(0))

	got := c.Providers()
	require.Len(t, got, 1)
	x := got[0].Actions[0]
	assert.Equal(t, "p.x", x.Ref)
	assert.Equal(t, "p", x.Provider)
	assert.Equal(t, `{"type":"object"}`, string(x.InputSchema), "stored compacted")
	assert.Nil(t, got[0].Actions[1].OutputSchema, "null means no schema")
	x.InputSchema[0] = '[' // Providers returns copies
	d, err := c.Describe("p.x", "")
	require.NoError(t, err)
	assert.Equal(t, `{"type":"object"}`, string(d.InputSchema))
}

func TestCatalog_RegisterReplacesAndUnregister(t *testing.T) {
	c := mustNew(t, catalog.Provider{Name: "p", Actions: []catalog.Action{act("x"), act("y")}})
	require.NoError(t, c.Register(catalog.Provider{Name: "p", Actions: []catalog.Action{act("z")}}))
	assert.Equal(t, []string{"p.z"}, refs(c.Catalog(0)))
	require.NoError(t, c.Register(catalog.Provider{Name: "q", Actions: []catalog.Action{act("x")}}))
	assert.Equal(t, []string{"p.z", "q.x"}, refs(c.Catalog(0)))

	before := c.Catalog(0)
	err := c.Register(catalog.Provider{Name: "q", Actions: []catalog.Action{act("x"), act("x")}})
	assert.ErrorIs(t, err, catalog.ErrInvalid)
	assert.Equal(t, before, c.Catalog(0), "a refused provider changes nothing")

	assert.True(t, c.Unregister("p"))
	assert.False(t, c.Unregister("p"))
	assert.Equal(t, []string{"q.x"}, refs(c.Catalog(0)))
}

func TestDefault(t *testing.T) {
	c := catalog.Default()
	tree := c.Catalog(0)
	require.Equal(t, []string{"memory"}, providerNames(tree))
	assert.Equal(t, []string{"memory.expand", "memory.recall", "memory.sessions"}, refs(tree))
	for _, a := range tree.Providers[0].Actions {
		assert.Equal(t, "read", a.Risk, a.Ref)
		assert.Equal(t, "memory", a.Namespace, a.Ref)
		assert.NotEmpty(t, a.Description, a.Ref)
		d, err := c.Describe(a.Ref, a.DescriptorHash)
		require.NoError(t, err)
		assert.NotEmpty(t, d.InputSchema, a.Ref)
		assert.NotEmpty(t, d.OutputSchema, a.Ref)
	}
	// Each call is a fresh catalog.
	require.NoError(t, c.Register(catalog.Provider{Name: "x"}))
	assert.Len(t, catalog.Default().Catalog(0).Providers, 1)
}

func TestProvider_List(t *testing.T) {
	p := catalog.MemoryProvider()
	names := func(as []catalog.Action) []string {
		var out []string
		for _, a := range as {
			out = append(out, a.Name)
		}
		return out
	}
	assert.Equal(t, []string{"recall", "expand", "sessions"}, names(p.List("")))
	assert.Equal(t, []string{"expand"}, names(p.List("EXPAND")))
	assert.Equal(t, []string{"sessions"}, names(p.List("sessions list")), `"name description" is one string`)
	assert.Equal(t, []string{"recall", "expand", "sessions"}, names(p.List("session")))
	assert.Empty(t, p.List("no such words"))
	p.Actions[0].Quarantined = true
	assert.Equal(t, []string{"expand", "sessions"}, names(p.List("")))
}

func assertCode(t *testing.T, err error, code string) {
	t.Helper()
	var ce *coverage.Error
	if assert.True(t, errors.As(err, &ce), "want a *coverage.Error, got %v", err) {
		assert.Equal(t, code, ce.Code, ce.Message)
	}
}
