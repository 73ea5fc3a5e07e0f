package engine_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestAPIShowsNoInternalTypes: a host imports engine alone, so no exported
// identifier of engine may mention a package under internal/ in its type:
// a signature, a field, an alias or a type's definition; there are none (docs/ARCHITECTURE.md,
// "The public face").
func TestAPIShowsNoInternalTypes(t *testing.T) {
	var leaks []string
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, ".", func(fi os.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range pkgs["engine"].Files {
		internal := internalImports(f)
		mentions := func(e ast.Expr) bool { return e != nil && mentionsAny(e, internal) }
		for _, d := range f.Decls {
			for _, id := range exportedLeaks(d, mentions) {
				leaks = append(leaks, id)
			}
		}
	}
	if len(pkgs["engine"].Files) < 10 {
		t.Fatalf("parsed %d files; the walk is broken", len(pkgs["engine"].Files))
	}
	slices.Sort(leaks)
	if len(leaks) > 0 {
		t.Errorf("exported identifiers that show an internal package's type (give each an engine type):\n  %s", strings.Join(leaks, "\n  "))
	}
}

// internalImports are the names f uses for the module's internal packages.
func internalImports(f *ast.File) map[string]bool {
	names := map[string]bool{}
	for _, imp := range f.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		if !strings.Contains(path, "/internal/") {
			continue
		}
		name := path[strings.LastIndex(path, "/")+1:]
		if imp.Name != nil {
			name = imp.Name.Name
		}
		names[name] = true
	}
	return names
}

func mentionsAny(e ast.Expr, pkgs map[string]bool) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := sel.X.(*ast.Ident); ok && pkgs[id.Name] {
				found = true
			}
		}
		return !found
	})
	return found
}

// exportedLeaks names the exported identifiers of d whose type mentions an
// internal package: functions and methods of exported types by their
// signature, types by their definition (a struct's exported fields, an
// interface's methods), constants and variables by their declared type.
func exportedLeaks(d ast.Decl, mentions func(ast.Expr) bool) []string {
	var out []string
	switch d := d.(type) {
	case *ast.FuncDecl:
		name := d.Name.Name
		if d.Recv != nil {
			recv := d.Recv.List[0].Type
			if s, ok := recv.(*ast.StarExpr); ok {
				recv = s.X
			}
			if id, ok := recv.(*ast.Ident); !ok || !id.IsExported() {
				return nil
			} else {
				name = id.Name + "." + name
			}
		}
		if d.Name.IsExported() && mentions(d.Type) {
			out = append(out, name)
		}
	case *ast.GenDecl:
		for _, s := range d.Specs {
			switch s := s.(type) {
			case *ast.TypeSpec:
				if s.Name.IsExported() {
					out = append(out, typeLeaks(s, mentions)...)
				}
			case *ast.ValueSpec:
				for _, n := range s.Names {
					if n.IsExported() && mentions(s.Type) {
						out = append(out, n.Name)
					}
				}
			}
		}
	}
	return out
}

func typeLeaks(s *ast.TypeSpec, mentions func(ast.Expr) bool) []string {
	var fields *ast.FieldList
	switch t := s.Type.(type) {
	case *ast.StructType:
		fields = t.Fields
	case *ast.InterfaceType:
		fields = t.Methods
	default:
		if mentions(s.Type) {
			return []string{s.Name.Name}
		}
		return nil
	}
	var out []string
	for _, fl := range fields.List {
		names := fl.Names
		if len(names) == 0 { // embedded: exported when its type name is
			t := fl.Type
			if st, ok := t.(*ast.StarExpr); ok {
				t = st.X
			}
			switch t := t.(type) {
			case *ast.SelectorExpr:
				names = []*ast.Ident{t.Sel}
			case *ast.Ident:
				names = []*ast.Ident{t}
			}
		}
		for _, n := range names {
			if n.IsExported() && mentions(fl.Type) {
				out = append(out, s.Name.Name+"."+n.Name)
			}
		}
	}
	return out
}
