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
	"internal/cli":                 10,
	"cmd/memidx":                   11,
	"cmd/memidx-mcp":               11,
	"internal/mcpopts":             0,
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
	"internal/hugeheap":            0,
	"internal/strsort":             0,
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

// TestNoCgo keeps the commands free of cgo: one import that needs it
// (os/user, net) links the C library and starts cgo's threads in every
// process, about 0.9 ms of each one-shot command. It lists the commands
// for this system and for macOS and Windows, whose os/user needs no cgo
// and which session asks for a home when $HOME is unset. net (the shell's
// socket, the MCP SDK) has for its only cgo its DNS resolver (memidx
// resolves no name): the build tag netgo (or CGO_ENABLED=0) leaves it out,
// and the release build uses it; the test lists the commands as that build
// does.
func TestNoCgo(t *testing.T) {
	for _, goos := range []string{"", "darwin", "windows"} {
		for _, command := range []string{"./cmd/memidx", "./cmd/memidx-mcp"} {
			for _, p := range listDeps(t, goos, command) {
				if p == "runtime/cgo" {
					t.Errorf("%s links cgo (GOOS=%q); find the import that needs it (go list -deps -f '{{.ImportPath}} {{.Imports}}')", command, goos)
				}
			}
		}
	}
}

// TestMemidxLinksNoMCPSDK keeps the MCP SDK out of the memidx command
// (memidx mcp hands itself to memidx-mcp): its packages and what they
// bring (net/http, crypto/tls, encoding/gob, a JSON schema library) made
// every one-shot command start 8 ms slower on this project's 2-core VM
// (21 ms instead of 12; a Go hello world takes 6–7 ms there).
func TestMemidxLinksNoMCPSDK(t *testing.T) {
	heavy := []string{"github.com/modelcontextprotocol/go-sdk/mcp", "net/http", "crypto/tls", "encoding/gob", "github.com/google/jsonschema-go/jsonschema"}
	linked := func(command string) map[string]bool {
		m := map[string]bool{}
		for _, p := range listDeps(t, "", command) {
			m[p] = true
		}
		return m
	}
	lean, full := linked("./cmd/memidx"), linked("./cmd/memidx-mcp")
	for _, p := range heavy {
		if lean[p] {
			t.Errorf("cmd/memidx links %s; find the import (go list -deps -f '{{.ImportPath}} {{.Imports}}' ./cmd/memidx)", p)
		}
	}
	if !full["github.com/modelcontextprotocol/go-sdk/mcp"] {
		t.Error("cmd/memidx-mcp links no MCP SDK: the listing is broken")
	}
}

// listDeps lists the packages a command links for goos ("" this system) as
// the release build makes it (netgo).
func listDeps(t *testing.T, goos, command string) []string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool in PATH")
	}
	cmd := exec.Command(goTool, "list", "-deps", "-tags", "netgo", command)
	cmd.Dir = "../.."
	cmd.Env = append(os.Environ(), "CGO_ENABLED=1")
	if goos != "" {
		cmd.Env = append(cmd.Env, "GOOS="+goos)
	}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list %s (GOOS=%q): %v", command, goos, err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 50 {
		t.Fatalf("go list %s (GOOS=%q) gave %d packages; the listing is broken", command, goos, len(deps))
	}
	return deps
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
