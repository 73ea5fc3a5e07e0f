package catalog_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/internal/catalog"
)

func sha(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// TestDescriptorHash_Definition pins the documented definition: SHA-256 hex
// of canonical JSON (sorted keys by UTF-16 code units, JSON.stringify
// escaping and numbers, no whitespace, empty optional members omitted).
func TestDescriptorHash_Definition(t *testing.T) {
	tests := []struct {
		name      string
		action    catalog.Action
		canonical string
	}{
		{
			name:      "minimal: description always present, empty optionals omitted",
			action:    catalog.Action{Name: "x", Risk: "read"},
			canonical: `{"description":"","ref":"p.x","risk":"read"}`,
		},
		{
			name:      "all fields",
			action:    catalog.Action{Name: "x", Description: "d", Risk: "write", Namespace: "n", Effect: "e", InputSchema: json.RawMessage(`{"type":"object"}`), OutputSchema: json.RawMessage(`true`)},
			canonical: `{"description":"d","effect":"e","inputSchema":{"type":"object"},"namespace":"n","outputSchema":true,"ref":"p.x","risk":"write"}`,
		},
		{
			name: "schema keys sorted recursively, JavaScript numbers, no whitespace, no HTML escaping",
			action: catalog.Action{Name: "x", Description: "a <b> & \u2028 \"q\"", Risk: "read",
				InputSchema: json.RawMessage("{\"b\": [true, null, 1.0, 1e21, -0.5], \"a\": {\"z\": 1, \"y\": \"<&>\"}}")},
			canonical: `{"description":"a <b> & ` + "\u2028" + ` \"q\"","inputSchema":{"a":{"y":"<&>","z":1},"b":[true,null,1,1e+21,-0.5]},"ref":"p.x","risk":"read"}`,
		},
		{
			name: "keys in UTF-16 code unit order: a surrogate pair before U+E000",
			action: catalog.Action{Name: "x", Risk: "read",
				InputSchema: json.RawMessage("{\"\uE000\": 1, \"\U0001F600\": 2, \"Z\": 3}")},
			canonical: "{\"description\":\"\",\"inputSchema\":{\"Z\":3,\"\U0001F600\":2,\"\uE000\":1},\"ref\":\"p.x\",\"risk\":\"read\"}",
		},
		{
			name: "duplicate schema keys: JSON.parse keeps the last value; lone surrogates as escapes",
			action: catalog.Action{Name: "x", Risk: "read",
				InputSchema: json.RawMessage(`{"a":1,"s":"\ud800","a":2}`)},
			canonical: `{"description":"","inputSchema":{"a":2,"s":"\ud800"},"ref":"p.x","risk":"read"}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := mustNew(t, catalog.Provider{Name: "p", Description: "P", Actions: []catalog.Action{tt.action}})
			tree := c.Catalog(0)
			ah := sha(tt.canonical)
			assert.Equal(t, ah, tree.Providers[0].Actions[0].DescriptorHash)
			ph := sha(`{"actions":["` + ah + `"],"description":"P","name":"p"}`)
			assert.Equal(t, ph, tree.Providers[0].DescriptorHash)
			assert.Equal(t, sha(`["`+ph+`"]`), tree.Root.DescriptorHash)
		})
	}
}

func TestDescriptorHash_RootAndProviderShapes(t *testing.T) {
	assert.Equal(t, sha(`[]`), mustNew(t).Catalog(0).Root.DescriptorHash)
	tree := mustNew(t,
		catalog.Provider{Name: "b", Actions: []catalog.Action{act("y"), act("x")}},
		catalog.Provider{Name: "a"},
	).Catalog(0)
	a, b := tree.Providers[0], tree.Providers[1]
	assert.Equal(t, sha(`{"actions":[],"description":"","name":"a"}`), a.DescriptorHash)
	x, y := b.Actions[0].DescriptorHash, b.Actions[1].DescriptorHash
	assert.Equal(t, sha(`{"actions":["`+x+`","`+y+`"],"description":"","name":"b"}`), b.DescriptorHash, "action hashes in ref order")
	assert.Equal(t, sha(`["`+a.DescriptorHash+`","`+b.DescriptorHash+`"]`), tree.Root.DescriptorHash, "provider hashes in name order")
}

func TestDescriptorHash_Stable(t *testing.T) {
	// The fixture's hashes, built twice, and from the file's own encoding.
	c1, err := catalog.Load("testdata/catalog.json")
	require.NoError(t, err)
	c2, err := catalog.Load("testdata/catalog.json")
	require.NoError(t, err)
	assert.Equal(t, c1.Catalog(0), c2.Catalog(0))
	c3, err := catalog.Decode(c1.Encode())
	require.NoError(t, err)
	assert.Equal(t, c1.Catalog(0), c3.Catalog(0))

	// Formatting and key order of a schema are not part of its identity.
	mk := func(schema string) string {
		return mustNew(t, catalog.Provider{Name: "p", Actions: []catalog.Action{{Name: "x", Risk: "read", InputSchema: json.RawMessage(schema)}}}).
			Catalog(0).Providers[0].Actions[0].DescriptorHash
	}
	assert.Equal(t, mk(`{"a":1,"b":[1,2]}`), mk("{ \"b\" : [ 1 , 2.0 ],\n \"a\" : 1 }"))
	assert.NotEqual(t, mk(`{"a":1,"b":[1,2]}`), mk(`{"a":1,"b":[2,1]}`), "array order is identity")
}

func TestDescriptorHash_Changes(t *testing.T) {
	base := func() []catalog.Provider {
		return []catalog.Provider{
			{Name: "p", Description: "P", Actions: []catalog.Action{
				{Name: "x", Description: "X", Risk: "read", Namespace: "n", InputSchema: json.RawMessage(`{"type":"object"}`)},
				{Name: "y", Description: "Y", Risk: "read"},
			}},
			{Name: "q", Description: "Q", Actions: []catalog.Action{{Name: "z", Description: "Z", Risk: "read"}}},
		}
	}
	ref := mustNew(t, base()...).Catalog(0)
	hashOf := func(tree catalog.Tree, r string) string {
		for _, p := range tree.Providers {
			for _, a := range p.Actions {
				if a.Ref == r {
					return a.DescriptorHash
				}
			}
		}
		t.Fatalf("no %s", r)
		return ""
	}
	tests := []struct {
		name            string
		edit            func(ps []catalog.Provider) []catalog.Provider
		actionChanged   bool // p.x's hash
		providerChanged bool // p's hash
	}{
		{"action description", func(ps []catalog.Provider) []catalog.Provider { ps[0].Actions[0].Description = "X2"; return ps }, true, true},
		{"action risk", func(ps []catalog.Provider) []catalog.Provider { ps[0].Actions[0].Risk = "write"; return ps }, true, true},
		{"action namespace", func(ps []catalog.Provider) []catalog.Provider { ps[0].Actions[0].Namespace = ""; return ps }, true, true},
		{"action effect", func(ps []catalog.Provider) []catalog.Provider { ps[0].Actions[0].Effect = "e"; return ps }, true, true},
		{"input schema", func(ps []catalog.Provider) []catalog.Provider {
			ps[0].Actions[0].InputSchema = json.RawMessage(`{"type":"object","required":["a"]}`)
			return ps
		}, true, true},
		{"output schema", func(ps []catalog.Provider) []catalog.Provider {
			ps[0].Actions[0].OutputSchema = json.RawMessage(`{}`)
			return ps
		}, true, true},
		{"another action of the provider", func(ps []catalog.Provider) []catalog.Provider { ps[0].Actions[1].Description = "Y2"; return ps }, false, true},
		{"an action added", func(ps []catalog.Provider) []catalog.Provider {
			ps[0].Actions = append(ps[0].Actions, act("w"))
			return ps
		}, false, true},
		{"provider description", func(ps []catalog.Provider) []catalog.Provider { ps[0].Description = "P2"; return ps }, false, true},
		{"quarantine of another action", func(ps []catalog.Provider) []catalog.Provider { ps[0].Actions[1].Quarantined = true; return ps }, false, true},
		{"another provider", func(ps []catalog.Provider) []catalog.Provider { ps[1].Actions[0].Description = "Z2"; return ps }, false, false},
		{"a provider added", func(ps []catalog.Provider) []catalog.Provider {
			return append(ps, catalog.Provider{Name: "r", Actions: []catalog.Action{act("a")}})
		}, false, false},
		{"actions listed in another order", func(ps []catalog.Provider) []catalog.Provider {
			ps[0].Actions[0], ps[0].Actions[1] = ps[0].Actions[1], ps[0].Actions[0]
			return ps
		}, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := mustNew(t, tt.edit(base())...).Catalog(0)
			assert.Equal(t, tt.actionChanged, hashOf(got, "p.x") != hashOf(ref, "p.x"), "action hash")
			assert.Equal(t, tt.providerChanged, got.Providers[0].DescriptorHash != ref.Providers[0].DescriptorHash, "provider hash")
			changed := tt.actionChanged || tt.providerChanged || len(got.Providers) != len(ref.Providers) ||
				got.Providers[1].DescriptorHash != ref.Providers[1].DescriptorHash
			assert.Equal(t, changed, got.Root.DescriptorHash != ref.Root.DescriptorHash, "root hash")
		})
	}
}
