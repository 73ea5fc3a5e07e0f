package catalog_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/internal/catalog"
)

func TestLoad_Fixture(t *testing.T) {
	c := fixture(t)
	tree := c.Catalog(0)
	assert.Equal(t, []string{"agents", "memory", "mesh", "omp"}, providerNames(tree))
	assert.Equal(t, []string{
		"agents.list", "agents.run",
		"memory.expand", "memory.recall", "memory.sessions",
		"mesh.publish", "mesh.read",
		"omp.bash", "omp.edit", "omp.find", "omp.grep", "omp.ls", "omp.read", "omp.write",
	}, refs(tree))
	assert.True(t, tree.Complete)

	// The fixture's memory provider is the built-in one, byte for byte.
	def := catalog.Default().Catalog(0)
	assert.Equal(t, def.Providers[0], tree.Providers[1])
}

func TestLoad_EncodeRoundTrip(t *testing.T) {
	c := fixture(t)
	require.NoError(t, c.SetQuarantined("omp.bash", true))
	back, err := catalog.Decode(c.Encode())
	require.NoError(t, err)
	assert.Equal(t, c.Providers(), back.Providers())
	assert.Equal(t, c.Catalog(0), back.Catalog(0))
	assert.Contains(t, string(c.Encode()), `"quarantined": true`)
}

func TestLoad_Errors(t *testing.T) {
	tests := []struct {
		name    string
		file    string
		wantErr string
	}{
		{"bad JSON", `{"providers": [`, "jsjson"},
		{"trailing data", `{"providers": []} x`, "unexpected data after value"},
		{"not an object", `[]`, "catalog: must be an object"},
		{"no providers", `{}`, "providers: must be an array"},
		{"providers not an array", `{"providers": {}}`, "providers: must be an array"},
		{"unknown top-level key", `{"providers": [], "version": 2}`, `catalog: unknown key "version"`},
		{"provider not an object", `{"providers": [1]}`, "providers[0]: must be an object"},
		{"missing provider name", `{"providers": [{"description": "x"}]}`, "providers[0]: missing name"},
		{"provider name not a string", `{"providers": [{"name": 7}]}`, "providers[0].name: must be a string"},
		{"unknown provider key", `{"providers": [{"name": "p", "action": []}]}`, `providers[0]: unknown key "action"`},
		{"actions not an array", `{"providers": [{"name": "p", "actions": {}}]}`, "providers[0].actions: must be an array"},
		{"missing action name", `{"providers": [{"name": "p", "actions": [{"risk": "read"}]}]}`, "providers[0].actions[0]: missing name"},
		{"missing risk", `{"providers": [{"name": "p", "actions": [{"name": "x"}]}]}`, "providers[0].actions[0]: missing risk"},
		{"misspelled schema key", `{"providers": [{"name": "p", "actions": [{"name": "x", "risk": "read", "input_schema": {}}]}]}`, `providers[0].actions[0]: unknown key "input_schema"`},
		{"ref is derived, not written", `{"providers": [{"name": "p", "actions": [{"name": "x", "risk": "read", "ref": "p.x"}]}]}`, `unknown key "ref"`},
		{"schema a number", `{"providers": [{"name": "p", "actions": [{"name": "x", "risk": "read", "inputSchema": 3}]}]}`, "providers[0].actions[0].inputSchema: a schema must be an object or a boolean, not number"},
		{"quarantined not a boolean", `{"providers": [{"name": "p", "actions": [{"name": "x", "risk": "read", "quarantined": "yes"}]}]}`, "quarantined: must be true or false"},
		{"duplicate ref", `{"providers": [{"name": "p", "actions": [{"name": "x", "risk": "read"}, {"name": "x", "risk": "write"}]}]}`, `duplicate action ref "p.x"`},
		{"duplicate provider", `{"providers": [{"name": "p"}, {"name": "p"}]}`, `duplicate provider "p"`},
		{"dotted provider name", `{"providers": [{"name": "p.q"}]}`, `must not contain "."`},
	}
	dir := t.TempDir()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, "catalog.json")
			require.NoError(t, os.WriteFile(path, []byte(tt.file), 0o600))
			c, err := catalog.Load(path)
			require.Error(t, err)
			assert.Nil(t, c)
			assert.ErrorIs(t, err, catalog.ErrInvalid)
			assert.Contains(t, err.Error(), tt.wantErr)
			assert.Contains(t, err.Error(), path, "a Load error names the file")
		})
	}
}

func TestLoad_AnnotationsAndOptionalMembers(t *testing.T) {
	c, err := catalog.Decode([]byte(`{
		"$schema": "https://example.invalid/catalog.json",
		"providers": [
			{"name": "p", "$comment": "no actions yet"},
			{"name": "q", "actions": [{"name": "x", "risk": "read", "$comment": "minimal", "inputSchema": null}]}
		]
	}`))
	require.NoError(t, err)
	tree := c.Catalog(0)
	assert.Equal(t, []string{"p", "q"}, providerNames(tree))
	assert.Equal(t, []string{"q.x"}, refs(tree))
	d, err := c.Describe("x", "")
	require.NoError(t, err)
	assert.Nil(t, d.InputSchema)
}

func TestLoad_MissingFile(t *testing.T) {
	_, err := catalog.Load(filepath.Join(t.TempDir(), "absent.json"))
	assert.ErrorIs(t, err, fs.ErrNotExist)
}

func TestDecode_DoesNotAliasInput(t *testing.T) {
	data := []byte(`{"providers":[{"name":"p","description":"hello","actions":[{"name":"x","risk":"read","description":"world"}]}]}`)
	c, err := catalog.Decode(data)
	require.NoError(t, err)
	before := c.Catalog(0)
	for i := range data {
		data[i] = ' '
	}
	assert.Equal(t, before, c.Catalog(0))
	assert.Equal(t, "hello", c.Providers()[0].Description)
}

func FuzzDecode(f *testing.F) {
	// Small seeds only: the fuzzer minimizes every new interesting input,
	// and minimizing a mutation of the whole fixture stalls a short run.
	f.Add([]byte(`{"providers":[{"name":"omp","description":"d","actions":[{"name":"grep","risk":"read","namespace":"fs","effect":"e","outputSchema":true,"quarantined":false}]},{"name":"mesh","actions":[{"name":"grep","risk":"read"}]}]}`))
	f.Add([]byte(`{"providers":[{"name":"p","actions":[{"name":"x","risk":"read","inputSchema":{"b":1,"a":[1.5e3]}}]}]}`))
	f.Add([]byte(`{"providers":[{"name":"\ud800","actions":[{"name":"é","risk":"r"}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := catalog.Decode(data)
		if err != nil {
			assert.ErrorIs(t, err, catalog.ErrInvalid)
			return
		}
		tree := c.Catalog(0)
		back, err := catalog.Decode(c.Encode())
		require.NoError(t, err, "Encode output must decode")
		assert.Equal(t, tree, back.Catalog(0), "hashes survive a round trip")
		for _, p := range tree.Providers {
			for _, a := range p.Actions {
				_, err := c.Describe(a.Ref, a.DescriptorHash)
				require.NoError(t, err)
				hits, err := c.Search(a.Ref, 1)
				require.NoError(t, err)
				require.Len(t, hits, 1)
				assert.GreaterOrEqual(t, hits[0].Score, 1000)
			}
		}
	})
}
