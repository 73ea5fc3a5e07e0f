package engine

import (
	"encoding/json"

	"github.com/memidx/memidx/internal/catalog"
)

// WalkPageInputSchema is memory.walk's input schema: memory.expand's
// selection as the catalog publishes it, with the page's own fields
// (pageSize, offset, and textOffset continuing inside the page's first
// entry) in place of expand's chunk bounds (walkPageRefused).
func WalkPageInputSchema() json.RawMessage {
	var s map[string]any
	if err := json.Unmarshal(catalog.ExpandInputSchema(), &s); err != nil {
		panic("engine: the catalog's expand schema is not JSON: " + err.Error())
	}
	props := s["properties"].(map[string]any)
	props["pageSize"] = map[string]any{"type": "integer", "minimum": 1, "maximum": MaxWalkPageSize, "default": DefaultWalkPageSize,
		"description": "entries per page; a page also ends before it outgrows the host's byte bound"}
	props["offset"] = map[string]any{"type": "integer", "minimum": 0, "default": 0,
		"description": "entries of the selection already returned (next carries it)"}
	props["textOffset"] = map[string]any{"type": "integer", "minimum": 0, "default": 0,
		"description": "UTF-16 offset in the page's first entry (next carries it when a page ends inside an entry)"}
	delete(props, "maxChars")
	delete(props, "maxEntries")
	b, _ := json.Marshal(s)
	return b
}

// WalkPageOutputSchema is memory.walk's result schema (WalkPage's JSON).
func WalkPageOutputSchema() json.RawMessage { return catalog.WalkOutputSchema() }
