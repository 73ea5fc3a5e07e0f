package sessiontext

import (
	"fmt"
	"strings"
)

// Linear returns the JSONL text of session id (cwd /p): its header, then
// one user message per text, each the child of the one before, with ids
// "<id>-0", "<id>-1", ….
func Linear(id string, texts ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, `{"type":"session","version":3,"id":%q,"timestamp":"2026-09-01T10:00:00.000Z","cwd":"/p"}`+"\n", id)
	parent := "null"
	for i, w := range texts {
		eid := fmt.Sprintf("%s-%d", id, i)
		fmt.Fprintf(&b, `{"type":"message","id":%q,"parentId":%s,"timestamp":"2026-09-01T10:0%d:00.000Z","message":{"role":"user","content":%q}}`+"\n", eid, parent, i%10, w)
		parent = fmt.Sprintf("%q", eid)
	}
	return b.String()
}
