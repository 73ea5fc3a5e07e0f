package catalog_test

import (
	"go/build"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestNoIndexPackageImportsCatalog enforces the package invariant: catalog
// text never enters the memory index, so no package but the engine (which
// serves tools.* next to memory.*) and the CLI may import catalog. The
// layering of internal/deps alone would let index (layer 5) import it.
func TestNoIndexPackageImportsCatalog(t *testing.T) {
	const module = "github.com/memidx/memidx"
	// internal/benchmark only reads catalog text to query memory for it (a
	// negative control).
	allowed := map[string]bool{"engine": true, "internal/cli": true, "catalog": true, "internal/benchmark": true}
	root, err := filepath.Abs("..")
	require.NoError(t, err)
	checked := 0
	err = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		pkg, err := build.ImportDir(path, 0)
		if err != nil {
			return nil // no Go files, or not buildable here: nothing to check
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		checked++
		if allowed[rel] {
			return nil
		}
		imports := append(append(append([]string(nil), pkg.Imports...), pkg.TestImports...), pkg.XTestImports...)
		for _, imp := range imports {
			assert.NotEqual(t, module+"/catalog", imp, "%s imports catalog: catalog text must never reach the memory index", rel)
		}
		return nil
	})
	require.NoError(t, err)
	require.GreaterOrEqual(t, checked, 5, "the walk must see the module's packages")
}
