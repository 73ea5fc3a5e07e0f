package lineage_test

import (
	"encoding/json"
	"testing"

	"github.com/memidx/memidx/internal/lineage"
	"github.com/memidx/memidx/internal/session"
)

// A file with no selectable entries has an empty active branch,
// written [] on the wire, never null.
func TestEmptySelectionIsNotNil(t *testing.T) {
	const header = `{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}`
	for name, body := range map[string]string{
		"empty":           "",
		"header only":     header + "\n",
		"blank lines":     "\n\n  \n",
		"last without id": header + "\n" + `{"type":"message","id":"a","parentId":null,"message":{"role":"user","content":"x"}}` + "\n" + `{"type":"message","message":{"role":"user","content":"y"}}` + "\n",
	} {
		f := session.Parse("/p/s.jsonl", []byte(body))
		for _, mode := range []lineage.Mode{lineage.Active, lineage.All} {
			sel := lineage.Select(f, mode, nil)
			b, _ := json.Marshal(sel.Indexes)
			if string(b) == "null" {
				t.Errorf("%s, %s: Indexes encode as null", name, mode)
			}
			sel = lineage.Select(f, mode, &lineage.Live{})
			b, _ = json.Marshal(sel.Indexes)
			if string(b) == "null" {
				t.Errorf("%s, %s, live: Indexes encode as null", name, mode)
			}
		}
	}
}
