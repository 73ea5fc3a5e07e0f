package deps

import (
	"go/build"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every package of the module says what it is: a package comment, as go doc
// and pkg.go.dev show it.
func TestEveryPackageHasADocComment(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
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
			return nil // no Go package here
		}
		rel, _ := filepath.Rel(root, path)
		documented := false
		for _, name := range pkg.GoFiles {
			f, err := parser.ParseFile(token.NewFileSet(), filepath.Join(path, name), nil, parser.PackageClauseOnly|parser.ParseComments)
			if err != nil {
				t.Fatal(err)
			}
			want := "Package " + pkg.Name + " "
			if pkg.Name == "main" {
				want = "Command " + filepath.Base(path) + " "
			}
			documented = documented || f.Doc != nil && strings.HasPrefix(f.Doc.Text(), want)
		}
		if !documented {
			t.Errorf("package %s (%s) has no package comment: add a doc.go", pkg.Name, filepath.ToSlash(rel))
		}
		checked++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 10 {
		t.Fatalf("checked only %d packages; the walk is broken", checked)
	}
}

// The module has a license a host can depend on: MIT, as the real test
// files are.
func TestLicense(t *testing.T) {
	b, err := os.ReadFile("../../LICENSE")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"MIT License", "Copyright (c) 2026 the memidx authors", "THE SOFTWARE IS PROVIDED \"AS IS\""} {
		if !strings.Contains(string(b), want) {
			t.Errorf("LICENSE does not say %q", want)
		}
	}
}
