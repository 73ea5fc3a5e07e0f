package deps

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// maxImportable bounds the exported identifiers a program outside the
// module can import: the public face is engine and the bleve analyzer,
// everything else is internal (docs/ARCHITECTURE.md, "The public face").
const maxImportable = 250

// TestImportableIdentifiers counts the exported identifiers of the
// packages outside internal/ and cmd/, as go doc lists them: top-level
// names and the methods of exported types. The exported fields of exported
// structs are logged, not bounded: a request or result has one per wire
// member.
func TestImportableIdentifiers(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	counts, fields := map[string]int{}, 0
	total := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if rel == "internal" || rel == "cmd" || rel == "testdata" || strings.HasPrefix(d.Name(), ".") || strings.HasPrefix(d.Name(), "_") {
			return filepath.SkipDir
		}
		n, nf, err := exportedIn(path)
		if err != nil {
			return err
		}
		fields += nf
		if n > 0 {
			counts[rel] = n
			total += n
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("importable exported identifiers: %d %v; exported fields besides: %d", total, counts, fields)
	if counts["engine"] == 0 {
		t.Fatal("counted no identifier of engine: the walk is broken")
	}
	if total > maxImportable {
		t.Errorf("%d importable exported identifiers, more than %d: %v", total, maxImportable, counts)
	}
}

// exportedIn counts the exported identifiers and struct fields of the
// non-main, non-test package in dir.
func exportedIn(dir string) (n, fields int, err error) {
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, dir, func(fi os.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, 0)
	if err != nil {
		return 0, 0, err
	}
	for name, p := range pkgs {
		if name == "main" {
			continue
		}
		for _, f := range p.Files {
			dn, df := exportedDecls(f)
			n, fields = n+dn, fields+df
		}
	}
	return n, fields, nil
}

func exportedDecls(f *ast.File) (n, fields int) {
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Name.IsExported() && (d.Recv == nil || exportedRecv(d.Recv)) {
				n++
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				sn, sf := exportedSpec(s)
				n, fields = n+sn, fields+sf
			}
		}
	}
	return n, fields
}

func exportedRecv(r *ast.FieldList) bool {
	t := r.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	if ix, ok := t.(*ast.IndexExpr); ok { // a generic type's method
		t = ix.X
	}
	id, ok := t.(*ast.Ident)
	return ok && id.IsExported()
}

func exportedSpec(s ast.Spec) (n, fields int) {
	switch s := s.(type) {
	case *ast.TypeSpec:
		if !s.Name.IsExported() {
			return 0, 0
		}
		n++
		if st, ok := s.Type.(*ast.StructType); ok {
			for _, fl := range st.Fields.List {
				for _, id := range fl.Names {
					if id.IsExported() {
						fields++
					}
				}
			}
		}
	case *ast.ValueSpec:
		for _, id := range s.Names {
			if id.IsExported() {
				n++
			}
		}
	}
	return n, fields
}
