package catalog_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/memidx/memidx/internal/catalog"
)

// TestCatalog_Concurrent registers, replaces, quarantines and unregisters
// providers while other goroutines read. Run it with -race. Every read must
// see one consistent snapshot.
func TestCatalog_Concurrent(t *testing.T) {
	c := catalog.Default()
	const writers, readers, rounds = 4, 8, 200
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			name := fmt.Sprintf("w%d", w)
			for i := range rounds {
				p := catalog.Provider{Name: name, Description: fmt.Sprintf("round %d", i), Actions: []catalog.Action{
					{Name: "search", Description: "search things", Risk: "read"},
					{Name: "other", Description: fmt.Sprintf("other %d", i), Risk: "write"},
				}}
				assert.NoError(t, c.Register(p))
				assert.NoError(t, c.SetQuarantined(name+".other", i%2 == 0))
				if i%10 == 5 {
					assert.True(t, c.Unregister(name))
				}
			}
		})
	}
	for range readers {
		wg.Go(func() {
			for range rounds {
				tree := c.Catalog(0)
				n := 0
				for _, p := range tree.Providers {
					n += len(p.Actions)
				}
				assert.Equal(t, tree.TotalActions, n)
				assert.Equal(t, tree.IndexedActions, n)

				hits, err := c.Search("search", 100)
				assert.NoError(t, err)
				for i := 1; i < len(hits); i++ {
					assert.GreaterOrEqual(t, hits[i-1].Score, hits[i].Score)
				}

				d, err := c.Describe("memory.recall", "")
				assert.NoError(t, err)
				_, err = c.Describe("memory.recall", d.DescriptorHash)
				assert.NoError(t, err)
				_ = c.Providers()
			}
		})
	}
	wg.Wait()
	// Every writer ended on a registered provider (the last round registers
	// and does not unregister), with its "other" action visible.
	tree := c.Catalog(0)
	assert.Len(t, tree.Providers, 1+writers)
	assert.Equal(t, 3+2*writers, tree.TotalActions)
}
