package normalize_test

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/memidx/memidx/internal/analyzer"
	"github.com/memidx/memidx/internal/jsjson"
	"github.com/memidx/memidx/internal/lineage"
	"github.com/memidx/memidx/internal/normalize"
	"github.com/memidx/memidx/internal/session"
)

var updateReadPath = flag.Bool("update-readpath", false, "rewrite testdata/readpath.golden from the current code")

// readPathDigest hashes everything the read path produces for one file:
// the parsed file (header, records, dropped lines, problems), both
// selections, the normalized entries of each (as indexing and expansion
// normalize them) and the tokens of every entry's index text. Two readers
// with the same digest give the index and expansion the same input.
func readPathDigest(tb testing.TB, path string, data []byte) string {
	h := sha256.New()
	w := bufio.NewWriter(h)
	f := session.Parse(path, data)
	fmt.Fprintf(w, "hash %s bom %v empty %v migrated %v problems %v\n", f.SourceHash, f.BOM, f.Empty, f.Migrated, f.Problems.Reasons())
	if f.Title != nil {
		fmt.Fprintf(w, "title %q %q %q\n", f.Title.Title, f.Title.Source, f.Title.UpdatedAt)
	}
	if f.Header != nil {
		fmt.Fprintf(w, "header %q %q %q %q %q %v %s\n", f.Header.ID, f.Header.Cwd, f.Header.Timestamp, f.Header.ParentSession,
			f.Header.Title, f.Header.Version, jsjson.Stringify(f.Header.Value))
	}
	for _, m := range f.Malformed {
		fmt.Fprintf(w, "malformed %d %d %s\n", m.Line, m.Offset, m.Reason)
	}
	for i := range f.Records {
		r := &f.Records[i]
		fmt.Fprintf(w, "rec %d %d %d %d %q %q %q %v %s\n", r.Index, r.Line, r.Offset, r.End, r.Type, r.ID.Key(), r.Parent.Key(),
			r.HasParentKey, jsjson.Stringify(r.Value))
	}
	var toks []string
	for _, mode := range []lineage.Mode{lineage.Active, lineage.All} {
		sel := lineage.Select(f, mode, nil)
		fmt.Fprintf(w, "sel %s %s %d %v %v\n", mode, sel.Fingerprint, sel.LeafIndex, sel.Indexes, sel.Problems.Reasons())
		for _, opt := range []normalize.Options{normalize.DefaultOptions(), normalize.Lossless(), {IndexToolOutput: true}} {
			res := normalize.Session(f, sel, opt)
			fmt.Fprintf(w, "res %q %v\n", res.SessionID, res.Problems.Reasons())
			for j := range res.Entries {
				e := &res.Entries[j]
				writeEntry(tb, w, e)
				toks = analyzer.AppendTokens(toks[:0], e.IndexText())
				fmt.Fprintf(w, "toks %q\n", toks)
			}
		}
	}
	w.Flush()
	return hex.EncodeToString(h.Sum(nil))
}

func writeEntry(tb testing.TB, w *bufio.Writer, e *normalize.Entry) {
	js, err := json.Marshal(e)
	if err != nil {
		tb.Fatal(err)
	}
	w.Write(js)
	fmt.Fprintf(w, "\n%d %d %v %s %s\n", e.Record, e.Line, e.ArgsCuts, jsjson.Stringify(e.Operation), jsjson.Stringify(e.BranchFact))
}

// TestReadPathOutputPinned pins the read path's output on the real files
// and the OMP fixtures: a faster reader, normalizer or tokenizer must
// produce exactly what the reader of testdata/readpath.golden produced.
// -update-readpath rewrites the file (only from a reader known to be right).
func TestReadPathOutputPinned(t *testing.T) {
	paths, _ := filepath.Glob("../../../shared/testdata/real/*.jsonl")
	fixtures, _ := filepath.Glob("../../testdata/omp/*.jsonl")
	paths = append(paths, fixtures...)
	got := map[string]string{}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		got[filepath.Base(p)] = readPathDigest(t, filepath.Base(p), data)
	}
	golden := "testdata/readpath.golden"
	if *updateReadPath {
		var names []string
		for n := range got {
			names = append(names, n)
		}
		sort.Strings(names)
		var b strings.Builder
		for _, n := range names {
			fmt.Fprintf(&b, "%s %s\n", got[n], n)
		}
		if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	raw, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		sum, name, _ := strings.Cut(line, " ")
		g, ok := got[name]
		if !ok {
			continue // the real files are not in the repository
		}
		checked++
		if g != sum {
			t.Errorf("%s: read path output changed (digest %s, pinned %s)", name, g, sum)
		}
	}
	if checked < len(fixtures) {
		t.Fatalf("only %d of %d files checked", checked, len(got))
	}
}
