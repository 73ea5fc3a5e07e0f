package deps

import (
	"go/build"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

const module = "github.com/memidx/memidx"

// layer is the rank of each package of the module; imports must go strictly
// downwards. A package that is not listed fails the test, so a new package
// has to be placed deliberately.
var layer = map[string]int{
	"internal/coverage":            0,
	"internal/analyzer":            0,
	"internal/jsjson":              0,
	"internal/indexfile":           0,
	"internal/blocksum":            0,
	"internal/termtab":             1,
	"internal/frontcode":           0,
	"internal/session/locate":      0,
	"internal/session/confine":     1,
	"internal/session":             2,
	"internal/session/listing":     2,
	"internal/session/scopes":      3,
	"internal/lineage":             3,
	"internal/regexiso":            2,
	"internal/normalize":           4,
	"internal/hotbm25":             5,
	"internal/coldvocab":           5,
	"internal/lexicon":             2,
	"internal/catalog":             5,
	"internal/index":               6,
	"internal/search":              7,
	"engine":                       8,
	"cmd/memidx":                   10,
	"internal/deps":                0,
	"internal/memtest":             0,
	"internal/sessiontext":         0,
	"internal/session/sessiontest": 1,
	"internal/corpus":              1,
	"internal/reliability":         10,
	"internal/benchmark":           9,
	"internal/evalset":             9,
	"internal/analyzer/natural":    1,
	"analyzer/bleveanalyzer":       2,
	"internal/mcpserver":           9,
	"internal/sockserve":           0,
}

func TestDependencyDirection(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	err = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		name := d.Name()
		if path != root && (strings.HasPrefix(name, ".") || name == "testdata") {
			return filepath.SkipDir
		}
		pkg, err := build.ImportDir(path, 0)
		if err != nil {
			if _, ok := err.(*build.NoGoError); ok {
				return nil
			}
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if rel == "." {
			t.Errorf("the module root holds Go package %q; keep code in the layered packages", pkg.Name)
			return nil
		}
		own, ok := layer[rel]
		if !ok {
			t.Errorf("package %s has no layer in internal/deps; place it in docs/ARCHITECTURE.md's layers first", rel)
			return nil
		}
		checked++
		for _, imp := range pkg.Imports {
			if !strings.HasPrefix(imp, module+"/") {
				continue
			}
			dep := strings.TrimPrefix(imp, module+"/")
			l, ok := layer[dep]
			if !ok {
				t.Errorf("%s imports unlisted package %s", rel, dep)
				continue
			}
			if l >= own {
				t.Errorf("%s (layer %d) imports %s (layer %d): imports must point to a lower layer", rel, own, dep, l)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 3 {
		t.Fatalf("checked only %d packages; the walk is broken", checked)
	}
}

// TestNoCgo keeps the command free of cgo: one import that needs it
// (os/user, net) links the C library and starts cgo's threads in every
// process, about 0.9 ms of each one-shot command. It lists the command for
// this system and for macOS and Windows, whose os/user needs no cgo and
// which session asks for a home when $HOME is unset. The MCP SDK imports
// net, whose only cgo is its DNS resolver (memidx resolves no name): the
// build tag netgo (or CGO_ENABLED=0) leaves it out, and the release build
// uses it; the test lists the command as that build does.
func TestNoCgo(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool in PATH")
	}
	for _, goos := range []string{"", "darwin", "windows"} {
		cmd := exec.Command(goTool, "list", "-deps", "-tags", "netgo", "./cmd/memidx")
		cmd.Dir = "../.."
		cmd.Env = append(os.Environ(), "CGO_ENABLED=1")
		if goos != "" {
			cmd.Env = append(cmd.Env, "GOOS="+goos)
		}
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go list (GOOS=%q): %v", goos, err)
		}
		deps := strings.Fields(string(out))
		if len(deps) < 50 {
			t.Fatalf("go list (GOOS=%q) gave %d packages; the listing is broken", goos, len(deps))
		}
		for _, p := range deps {
			if p == "runtime/cgo" {
				t.Errorf("cmd/memidx links cgo (GOOS=%q); find the import that needs it (go list -deps -f '{{.ImportPath}} {{.Imports}}')", goos)
			}
		}
	}
}

// TestArchitectureListsEveryPackage keeps docs/ARCHITECTURE.md's drawing
// of the layers in step with the ranks above.
func TestArchitectureListsEveryPackage(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "ARCHITECTURE.md"))
	if err != nil {
		t.Fatal(err)
	}
	for pkg := range layer {
		if !strings.Contains(string(doc), pkg) {
			t.Errorf("docs/ARCHITECTURE.md does not name package %s", pkg)
		}
	}
}
