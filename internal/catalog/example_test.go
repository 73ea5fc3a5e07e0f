package catalog_test

import (
	"errors"
	"fmt"
	"strings"

	"github.com/memidx/memidx/internal/catalog"
	"github.com/memidx/memidx/internal/coverage"
)

func ExampleCatalog_Search() {
	c, err := catalog.Load("testdata/catalog.json")
	if err != nil {
		panic(err)
	}
	hits, err := c.Search("search source files", 4)
	if err != nil {
		panic(err)
	}
	for _, h := range hits {
		fmt.Println(h.Score, h.Ref, h.Risk)
	}
	// Output:
	// 87 omp.grep read
	// 37 memory.expand read
	// 29 memory.recall read
	// 27 memory.sessions read
}

func ExampleCatalog_Describe() {
	c := catalog.Default()
	d, err := c.Describe("recall", "")
	if err != nil {
		panic(err)
	}
	fmt.Println(d.Ref, d.Risk, d.Namespace)

	// A caller that pinned a descriptor hash learns that it changed.
	_, err = c.Describe("recall", "0000")
	var ce *coverage.Error
	if errors.As(err, &ce) {
		msg, _, _ := strings.Cut(ce.Message, ":")
		fmt.Println(ce.Code, "-", msg)
	}
	// Output:
	// memory.recall read memory
	// descriptor_changed - Fabric capability descriptor changed
}
