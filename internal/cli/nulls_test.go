package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// Array fields are [] on the wire, never null: inspect lineage of a file
// with no entries writes "activeBranchIndexes": [].
func TestInspectLineageArraysAreNeverNull(t *testing.T) {
	dir := t.TempDir()
	const header = `{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}`
	for name, body := range map[string]string{
		"empty":           "",
		"header-only":     header + "\n",
		"blank-lines":     "\n\n  \n",
		"last-without-id": header + "\n" + `{"type":"message","id":"a","parentId":null,"message":{"role":"user","content":"x"}}` + "\n" + `{"type":"message","message":{"role":"user","content":"y"}}` + "\n",
	} {
		p := filepath.Join(dir, name+".jsonl")
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		for _, mode := range []string{"active", "all"} {
			var out, errOut bytes.Buffer
			code := run(context.Background(), []string{"inspect", "lineage", "--branches", mode, p}, nil, &out, &errOut)
			if code != 0 {
				t.Fatalf("%s: exit %d: %s %s", name, code, out.String(), errOut.String())
			}
			var got map[string]json.RawMessage
			if err := json.Unmarshal(out.Bytes(), &got); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			for _, k := range []string{"activeBranchIndexes", "records"} {
				if string(got[k]) == "null" || len(got[k]) == 0 || got[k][0] != '[' {
					t.Errorf("%s, %s: %s is %s, want an array", name, mode, k, got[k])
				}
			}
			var cov map[string]json.RawMessage
			json.Unmarshal(got["coverage"], &cov)
			if r := cov["reasons"]; len(r) == 0 || r[0] != '[' {
				t.Errorf("%s, %s: coverage.reasons is %s", name, mode, r)
			}
		}
	}
}
