package lineage_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/memidx/memidx/internal/coverage"
	"github.com/memidx/memidx/internal/jsjson"
	"github.com/memidx/memidx/internal/lineage"
	"github.com/memidx/memidx/internal/session"
)

// oracle is the part of OMP's own loader output (testdata/omp/*.oracle.json,
// recorded from the host as testdata/omp/README.md says) that a reader
// must reproduce.
type oracle struct {
	Load struct {
		ParsedValues     *int `json:"parsedValues"`
		MalformedRecords *int `json:"malformedRecords"`
		InvalidHeader    bool `json:"invalidHeader"`
		Error            *struct {
			Message string `json:"message"`
		} `json:"error"`
	} `json:"load"`
	Error *struct {
		Message string `json:"message"`
	} `json:"error"`
	FreshSession bool `json:"freshSession"`
	Header       map[string]json.RawMessage
	Entries      []struct {
		Index       int             `json:"index"`
		Type        json.RawMessage `json:"type"`
		ID          json.RawMessage `json:"id"`
		ParentID    json.RawMessage `json:"parentId"`
		ParentIndex *int            `json:"parentIndex"`
		NonObject   *string         `json:"nonObject"`
	} `json:"entries"`
	LeafIndex           *int  `json:"leafIndex"`
	ActiveBranchIndexes []int `json:"activeBranchIndexes"`
}

func loadOracle(t *testing.T, path string) oracle {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var o oracle
	if err := json.Unmarshal(b, &o); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return o
}

// TestReaderMatchesOMPOracle checks every hand-written fixture against what
// OMP 18.2.3's own loader printed for it.
func TestReaderMatchesOMPOracle(t *testing.T) {
	files, _ := filepath.Glob("../../testdata/omp/*.oracle.json")
	if len(files) < 100 {
		t.Fatalf("found %d oracle files; the fixture glob is broken", len(files))
	}
	for _, of := range files {
		name := strings.TrimSuffix(filepath.Base(of), ".oracle.json")
		t.Run(name, func(t *testing.T) {
			compareWithOracle(t, filepath.Join("../../testdata/omp", name+".jsonl"), loadOracle(t, of), false)
		})
	}
}

// TestStreamLoaderMatchesOMPOracle checks the rules of OMP's streaming
// loader (used from 8 MiB) on every fixture: against its own output where
// it differs from the text loader, against the text loader's elsewhere.
func TestStreamLoaderMatchesOMPOracle(t *testing.T) {
	files, _ := filepath.Glob("../../testdata/omp/*.oracle.json")
	streams, _ := filepath.Glob("../../testdata/omp/*.oracle-stream.json")
	if len(files) < 100 || len(streams) == 0 {
		t.Fatalf("found %d oracle files and %d stream ones; the fixture glob is broken", len(files), len(streams))
	}
	for _, of := range files {
		name := strings.TrimSuffix(filepath.Base(of), ".oracle.json")
		want := of
		if _, err := os.Stat(strings.TrimSuffix(of, ".oracle.json") + ".oracle-stream.json"); err == nil {
			want = strings.TrimSuffix(of, ".oracle.json") + ".oracle-stream.json"
		}
		t.Run(name, func(t *testing.T) {
			compareWithOracle(t, filepath.Join("../../testdata/omp", name+".jsonl"), loadOracle(t, want), true)
		})
	}
}

// TestRealFilesMatchOMPOracle does the same for the real session files of
// ../shared/testdata/real.
func TestRealFilesMatchOMPOracle(t *testing.T) {
	files, _ := filepath.Glob("../../testdata/omp/real/*.oracle.json")
	if len(files) == 0 {
		t.Fatal("no oracle output for the real files")
	}
	for _, of := range files {
		name := strings.TrimSuffix(filepath.Base(of), ".oracle.json")
		src := filepath.Join("../../../shared/testdata/real", name+".jsonl")
		if name == "omp-session-example-v3" {
			src = "../../testdata/sessions/example-v3.jsonl"
		}
		t.Run(name, func(t *testing.T) {
			if _, err := os.Stat(src); err != nil {
				t.Skipf("real session files not available (%v); they live in ../shared/testdata/real", err)
			}
			compareWithOracle(t, src, loadOracle(t, of), false)
		})
	}
}

func compareWithOracle(t *testing.T, path string, o oracle, stream bool) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f := session.ParseWith(path, data, "", session.Options{Stream: stream})
	sel := lineage.Select(f, lineage.Active, nil)

	if o.Load.MalformedRecords != nil {
		dropped := 0
		for _, m := range f.Malformed {
			// The stream loader never counts a value left incomplete at
			// the end (memidx still reports it: its text is not indexed).
			if m.Reason != coverage.NullRecord && !(stream && m.Reason == coverage.TornTail) {
				dropped++
			}
		}
		if dropped != *o.Load.MalformedRecords {
			t.Errorf("malformed: got %d (%v), OMP %d", dropped, f.Malformed, *o.Load.MalformedRecords)
		}
	}
	refused := o.Error != nil || o.Load.Error != nil
	if refused {
		msg := ""
		if o.Error != nil {
			msg = o.Error.Message
		} else {
			msg = o.Load.Error.Message
		}
		if f.Problems.Complete() {
			t.Errorf("OMP refuses this file (%s) but memidx reports no problem", msg)
		}
		if o.Load.InvalidHeader && !f.Problems.Has(coverage.InvalidHeader) {
			t.Errorf("OMP found an invalid header; memidx problems %v", f.Problems.Reasons())
		}
		return
	}
	if o.Load.InvalidHeader || f.Problems.Has(coverage.InvalidHeader) {
		t.Errorf("header validity differs: OMP invalid=%v, memidx problems %v", o.Load.InvalidHeader, f.Problems.Reasons())
	}
	if o.FreshSession {
		if len(f.Records) != 0 || f.Header != nil {
			t.Errorf("OMP sees an empty file (fresh session); memidx has %d records", len(f.Records))
		}
		return
	}
	if len(f.Records) != len(o.Entries) {
		t.Fatalf("records: got %d, OMP %d", len(f.Records), len(o.Entries))
	}
	byID := map[string]int{}
	for i := range f.Records {
		if id := f.Records[i].ID; id.Present() {
			byID[id.Key()] = i
		}
	}
	for i, oe := range o.Entries {
		r := &f.Records[i]
		if oe.NonObject != nil {
			if r.Value.IsObject() || jsjson.Stringify(r.Value) != *oe.NonObject {
				t.Errorf("record %d: OMP has non-object %s, memidx %s", i, *oe.NonObject, jsjson.Stringify(r.Value))
			}
			continue
		}
		if got := rawOrNull(r.Value.Get("type")); !sameJSON(got, oe.Type) {
			t.Errorf("record %d type: got %s, OMP %s", i, got, oe.Type)
		}
		if !f.Migrated || f.Header.Version >= 2 {
			if got := rawOrNull(r.Value.Get("id")); !sameJSON(got, oe.ID) {
				t.Errorf("record %d id: got %s, OMP %s", i, got, oe.ID)
			}
		}
		// parentIndex: -1 unknown id, null no parent.
		var gotParent *int
		if r.Parent.Present() {
			p := -1
			if j, ok := byID[r.Parent.Key()]; ok {
				p = j
			}
			gotParent = &p
		}
		if !sameIntPtr(gotParent, oe.ParentIndex) {
			t.Errorf("record %d parentIndex: got %v, OMP %v", i, ptrStr(gotParent), ptrStr(oe.ParentIndex))
		}
	}
	var leaf *int
	if sel.LeafIndex >= 0 {
		leaf = &sel.LeafIndex
	}
	if !sameIntPtr(leaf, o.LeafIndex) {
		t.Errorf("leaf: got %v, OMP %v", ptrStr(leaf), ptrStr(o.LeafIndex))
	}
	if len(sel.Indexes) != len(o.ActiveBranchIndexes) {
		t.Fatalf("active branch: got %v, OMP %v", sel.Indexes, o.ActiveBranchIndexes)
	}
	for i := range sel.Indexes {
		if sel.Indexes[i] != o.ActiveBranchIndexes[i] {
			t.Fatalf("active branch: got %v, OMP %v", sel.Indexes, o.ActiveBranchIndexes)
		}
	}
}

func rawOrNull(v jsjson.Value) json.RawMessage {
	if !v.Exists() {
		return nil
	}
	return json.RawMessage(jsjson.Stringify(v))
}

func sameJSON(a, b json.RawMessage) bool {
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b)
	}
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return string(a) == string(b)
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return string(xa) == string(ya)
}

func sameIntPtr(a, b *int) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return *a == *b
}

func ptrStr(p *int) any {
	if p == nil {
		return "null"
	}
	return *p
}
