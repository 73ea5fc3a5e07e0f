package catalog_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/internal/catalog"
	"github.com/memidx/memidx/internal/coverage"
)

func fixture(t testing.TB) *catalog.Catalog {
	t.Helper()
	c, err := catalog.Load("testdata/catalog.json")
	require.NoError(t, err)
	return c
}

func headOf(t *testing.T, c *catalog.Catalog, ref string) catalog.ActionHead {
	t.Helper()
	for _, p := range c.Catalog(0).Providers {
		for _, a := range p.Actions {
			if a.Ref == ref {
				return a
			}
		}
	}
	t.Fatalf("no %s in the catalog", ref)
	return catalog.ActionHead{}
}

func TestDescribe(t *testing.T) {
	c := fixture(t)
	grep := headOf(t, c, "omp.grep")
	tests := []struct {
		name     string
		ref      string
		pinned   string
		wantRef  string
		wantCode string
		wantMsg  []string
	}{
		{name: "qualified ref", ref: "omp.grep", wantRef: "omp.grep"},
		{name: "bare name with one provider", ref: "grep", wantRef: "omp.grep"},
		{name: "surrounding space", ref: " grep\n", wantRef: "omp.grep"},
		{name: "bare name of two providers", ref: "read", wantCode: coverage.AmbiguousAction, wantMsg: []string{"mesh.read, omp.read"}},
		{name: "qualified ref of an ambiguous name", ref: "mesh.read", wantRef: "mesh.read"},
		{name: "pinned hash matches", ref: "omp.grep", pinned: grep.DescriptorHash, wantRef: "omp.grep"},
		{name: "pinned hash in upper case", ref: "grep", pinned: strings.ToUpper(grep.DescriptorHash), wantRef: "omp.grep"},
		{
			name: "pinned hash differs", ref: "omp.grep", pinned: headOf(t, c, "omp.find").DescriptorHash,
			wantCode: coverage.DescriptorChanged,
			wantMsg:  []string{"Fabric capability descriptor changed", "omp.grep", headOf(t, c, "omp.find").DescriptorHash, grep.DescriptorHash},
		},
		{name: "unknown ref", ref: "omp.nope", wantCode: coverage.ActionNotFound, wantMsg: []string{"omp.nope"}},
		{name: "unknown bare name", ref: "nope", wantCode: coverage.ActionNotFound},
		{name: "refs are case-sensitive", ref: "OMP.GREP", wantCode: coverage.ActionNotFound},
		{name: "a provider is not an action", ref: "omp", wantCode: coverage.ActionNotFound},
		{name: "empty ref", ref: " ", wantCode: coverage.InvalidRequest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := c.Describe(tt.ref, tt.pinned)
			if tt.wantCode != "" {
				assertCode(t, err, tt.wantCode)
				for _, m := range tt.wantMsg {
					assert.Contains(t, err.Error(), m)
				}
				assert.Equal(t, catalog.Descriptor{}, d)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.wantRef, d.Ref)
			assert.Equal(t, headOf(t, c, tt.wantRef), d.ActionHead)
			assert.NotEmpty(t, d.InputSchema)
		})
	}
}

func TestDescribe_PinnedHashAfterReregistration(t *testing.T) {
	c := catalog.Default()
	d, err := c.Describe("memory.recall", "")
	require.NoError(t, err)
	pinned := d.DescriptorHash

	p := catalog.MemoryProvider()
	p.Actions[0].Description += " Now with more words."
	require.NoError(t, c.Register(p))

	_, err = c.Describe("memory.recall", pinned)
	assertCode(t, err, coverage.DescriptorChanged)
	now, err := c.Describe("memory.recall", "")
	require.NoError(t, err)
	assert.Contains(t, err2s(c.Describe("recall", pinned)), now.DescriptorHash)

	// The other actions kept their hashes.
	_, err = c.Describe("memory.expand", headOf(t, catalog.Default(), "memory.expand").DescriptorHash)
	assert.NoError(t, err)
}

func err2s(_ catalog.Descriptor, err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
