package engine_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/engine"
	"github.com/memidx/memidx/internal/catalog"
)

// The typed catalog methods answer what the catalog itself answers, with
// the same JSON, and a refused request as {"error":…} with its code.
func TestTypedToolMethods(t *testing.T) {
	w := newWorld(t)
	// HTML characters stay unescaped, as the wire writes them.
	shell := catalog.Provider{Name: "shell", Description: "runs <cmd> & more", Actions: []catalog.Action{
		{Name: "run", Description: "run a <session> command & wait", Risk: "execute", InputSchema: json.RawMessage(`{"type":"object","description":"a <b>"}`)},
	}}
	// The engine's catalog holds what cat, the oracle, holds.
	cat := catalog.Default()
	require.NoError(t, cat.Register(shell))
	served := engine.DefaultCatalog()
	require.NoError(t, served.Register(engine.CatalogProvider{Name: shell.Name, Description: shell.Description,
		Actions: []engine.CatalogAction{engine.CatalogAction(shell.Actions[0])}}))
	e := w.engine(func(o *engine.Options) { o.Catalog = served })
	defer e.Close()
	jsonOf := func(v any, err error) string {
		t.Helper()
		require.NoError(t, err)
		var b strings.Builder
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		require.NoError(t, enc.Encode(v))
		return strings.TrimSuffix(b.String(), "\n")
	}
	describe := func(ref, hash string) (any, error) { return cat.Describe(ref, hash) }
	search := func(q string, limit int) (any, error) { return cat.Search(q, limit) }
	tree := cat.Catalog(2)
	recall, err := cat.Describe("memory.recall", "")
	require.NoError(t, err)
	for _, tc := range []struct {
		name string
		got  func() (any, error)
		want string
	}{
		{"catalog", func() (any, error) { return e.ToolCatalog(ctx, engine.ToolCatalogRequest{}) }, jsonOf(cat.Catalog(0), nil)},
		{"catalog limited", func() (any, error) { return e.ToolCatalog(ctx, engine.ToolCatalogRequest{Limit: 2}) }, jsonOf(tree, nil)},
		{"search", func() (any, error) { return e.SearchTools(ctx, engine.ToolSearchRequest{Query: "session", Limit: 2}) }, jsonOf(search("session", 2))},
		{"search html", func() (any, error) { return e.SearchTools(ctx, engine.ToolSearchRequest{Query: "command"}) }, jsonOf(search("command", 0))},
		{"search no hit", func() (any, error) { return e.SearchTools(ctx, engine.ToolSearchRequest{Query: "zqxj"}) }, `[]`},
		{"describe", func() (any, error) { return e.DescribeTool(ctx, engine.ToolDescribeRequest{Ref: "expand"}) }, jsonOf(describe("memory.expand", ""))},
		{"describe pinned", func() (any, error) {
			return e.DescribeTool(ctx, engine.ToolDescribeRequest{Ref: "memory.recall", DescriptorHash: recall.DescriptorHash})
		}, jsonOf(recall, nil)},
		{"unknown ref", func() (any, error) { return e.DescribeTool(ctx, engine.ToolDescribeRequest{Ref: "nope.nothing"}) }, `{"error":{"code":"action_not_found"`},
		{"changed hash", func() (any, error) {
			return e.DescribeTool(ctx, engine.ToolDescribeRequest{Ref: "memory.recall", DescriptorHash: "sha256:0"})
		}, `{"error":{"code":"descriptor_changed"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := jsonOf(tc.got())
			if tc.want[0] == '{' && tc.want[1:8] == `"error"` {
				require.Contains(t, got, tc.want)
				return
			}
			require.JSONEq(t, tc.want, got)
			require.Equal(t, tc.want, got, "byte for byte")
		})
	}
}

// The requests decode the wire's arguments strictly, a bare string being a
// search's query.
func TestToolRequestsDecode(t *testing.T) {
	var s engine.ToolSearchRequest
	require.NoError(t, json.Unmarshal([]byte(`"grep files"`), &s))
	require.Equal(t, engine.ToolSearchRequest{Query: "grep files"}, s)
	require.NoError(t, json.Unmarshal([]byte(`{"query":"x","limit":3}`), &s))
	require.Equal(t, engine.ToolSearchRequest{Query: "x", Limit: 3}, s)
	var c engine.ToolCatalogRequest
	err := json.Unmarshal([]byte(`{"limit":1,"depth":2}`), &c)
	require.ErrorIs(t, err, engine.ErrInvalidRequest)
	require.Contains(t, err.Error(), `unknown argument "depth"; valid arguments: limit`)
	var d engine.ToolDescribeRequest
	require.NoError(t, json.Unmarshal([]byte(`{"ref":"memory.recall","descriptorHash":"h"}`), &d))
	require.Equal(t, engine.ToolDescribeRequest{Ref: "memory.recall", DescriptorHash: "h"}, d)
}
