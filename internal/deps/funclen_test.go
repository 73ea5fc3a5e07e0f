package deps

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// maxFuncLines is the longest a non-test function may be, counted from its
// func keyword to its closing brace: past it a function is asking to be
// split into parts with names.
const maxFuncLines = 80

// longFuncAllowed lists the functions that may stay longer, keyed
// "path:name" (methods as "path:Recv.name"), with the reason and the length
// they may reach, so that an exception cannot grow unnoticed either.
var longFuncAllowed = map[string]struct {
	lines  int
	reason string
}{}

// TestNoLongFunctions keeps functions short: every non-test function of
// the module outside internal/corpus (the test corpus generator) fits in
// maxFuncLines.
func TestNoLongFunctions(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	lengths, err := funcLengths(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(lengths) < 1000 {
		t.Fatalf("measured only %d functions; the walk is broken", len(lengths))
	}
	var long []string
	for name, n := range lengths {
		allowed, ok := longFuncAllowed[name]
		switch {
		case ok && n > allowed.lines:
			long = append(long, fmt.Sprintf("%s has grown past its allowed %d lines to %d", name, allowed.lines, n))
		case !ok && n > maxFuncLines:
			long = append(long, fmt.Sprintf("%s has %d lines", name, n))
		}
	}
	sort.Strings(long)
	for _, l := range long {
		t.Errorf("%s; split it into functions that each do one thing (at most %d lines)", l, maxFuncLines)
	}
	// An exception that is no longer needed goes, so that the list stays
	// the list of what is still to split.
	for name := range longFuncAllowed {
		if n, ok := lengths[name]; !ok {
			t.Errorf("longFuncAllowed lists %s, which no longer exists; drop it", name)
		} else if n <= maxFuncLines {
			t.Errorf("longFuncAllowed lists %s, which now has %d lines; drop it", name, n)
		}
	}
}

// funcLengths maps each function declared in a non-test Go file under root
// to its length in lines.
func funcLengths(root string) (map[string]int, error) {
	lengths := map[string]int{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || rel == "internal/corpus") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			if fn, ok := decl.(*ast.FuncDecl); ok && fn.Body != nil {
				lines := fset.Position(fn.End()).Line - fset.Position(fn.Pos()).Line + 1
				key := rel + ":" + funcName(fn)
				lengths[key] = max(lengths[key], lines) // init may repeat
			}
		}
		return nil
	})
	return lengths, err
}

// funcName is a function's name, a method's prefixed by its receiver type.
func funcName(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return fn.Name.Name
	}
	typ := fn.Recv.List[0].Type
	for {
		switch x := typ.(type) {
		case *ast.StarExpr:
			typ = x.X
			continue
		case *ast.IndexExpr:
			typ = x.X
			continue
		case *ast.IndexListExpr:
			typ = x.X
			continue
		}
		break
	}
	if id, ok := typ.(*ast.Ident); ok {
		return id.Name + "." + fn.Name.Name
	}
	return fn.Name.Name
}
