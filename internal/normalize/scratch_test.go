package normalize_test

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/memidx/memidx/internal/lineage"
	"github.com/memidx/memidx/internal/normalize"
	"github.com/memidx/memidx/internal/session"
)

// Session with a Scratch gives what it gives without, session after
// session through one Scratch (larger before smaller, and back), on the
// project's fixtures and the real files, under every policy.
func TestScratchGivesTheSameEntries(t *testing.T) {
	paths, _ := filepath.Glob("../../../shared/testdata/real/*.jsonl")
	fixtures, _ := filepath.Glob("../../testdata/omp/*.jsonl")
	paths = append(paths, fixtures...)
	if len(fixtures) == 0 {
		t.Fatal("no fixtures found")
	}
	var files []*session.File
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, session.Parse(p, data))
	}
	var s normalize.Scratch
	compared := 0
	backward := slices.Clone(files)
	slices.Reverse(backward)
	for _, order := range [][]*session.File{files, backward} {
		for _, f := range order {
			for _, mode := range []lineage.Mode{lineage.Active, lineage.All} {
				sel := lineage.Select(f, mode, nil)
				for _, opt := range []normalize.Options{normalize.DefaultOptions(), normalize.Lossless(), {IndexToolOutput: true}} {
					want := normalize.Session(f, sel, opt)
					opt.Scratch = &s
					got := normalize.Session(f, sel, opt)
					if !reflect.DeepEqual(want, got) {
						t.Fatalf("%s %s %+v: entries differ with a scratch", f.Path, mode, opt)
					}
					compared += len(got.Entries)
				}
			}
		}
	}
	if compared == 0 {
		t.Fatal("compared no entries")
	}
}
