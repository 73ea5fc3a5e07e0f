package engine

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/memidx/memidx/internal/index"
)

// publishedInputs are the input schemas memidx publishes (tools.describe,
// serve's initialize, MCP's tools/list), by ref, with the wire type each
// one describes.
func publishedInputs(t *testing.T) map[string]struct {
	schema map[string]any
	wire   any
} {
	t.Helper()
	out := map[string]struct {
		schema map[string]any
		wire   any
	}{}
	add := func(ref string, raw json.RawMessage, wire any) {
		var s map[string]any
		if err := json.Unmarshal(raw, &s); err != nil {
			t.Fatalf("%s: the input schema is not JSON: %v", ref, err)
		}
		out[ref] = struct {
			schema map[string]any
			wire   any
		}{s, wire}
	}
	wires := map[string]any{"recall": recallArgs{}, "expand": expandArgs{}, "sessions": sessionsArgs{}}
	for _, a := range MemoryCatalogProvider().Actions {
		add("memory."+a.Name, a.InputSchema, wires[a.Name])
	}
	add("memory.walk", WalkPageInputSchema(), walkPageWire{})
	return out
}

// walkPageWire stands for memory.walk's argument object (walkPageTags).
type walkPageWire struct{}

func walkPageTags() []string {
	var out []string
	for _, n := range tagNames(expandArgs{}) {
		if !slices.Contains(walkPageRefused, n) {
			out = append(out, n)
		}
	}
	return append(out, tagNames(walkPageFields{})...)
}

// TestPublishedSchemasAreWhatTheEngineAccepts: every published input
// schema names exactly the wire type's arguments (but the host-only
// live), and every enum and bound in it is the one the engine checks.
func TestPublishedSchemasAreWhatTheEngineAccepts(t *testing.T) {
	schemas := publishedInputs(t)
	for ref, s := range schemas {
		if s.schema["type"] != "object" {
			t.Errorf("%s: the input schema's root is not an object", ref)
		}
		props, _ := s.schema["properties"].(map[string]any)
		tags := tagNames(s.wire)
		if ref == "memory.walk" {
			tags = walkPageTags()
		}
		var want, got []string
		for _, n := range tags {
			if n != "live" {
				want = append(want, n)
			}
		}
		for n := range props {
			got = append(got, n)
		}
		slices.Sort(want)
		slices.Sort(got)
		if !slices.Equal(want, got) {
			t.Errorf("%s: the schema lists %v, the engine reads %v", ref, got, want)
		}
	}
	strs := func(v []string) []any {
		out := make([]any, len(v))
		for i, s := range v {
			out[i] = s
		}
		return out
	}
	enumOf := func(vs any) []any {
		b, _ := json.Marshal(vs)
		var out []any
		_ = json.Unmarshal(b, &out)
		return out
	}
	type bound struct{ min, max, def any }
	for _, c := range []struct {
		ref, path string
		enum      []any
		bound     *bound
	}{
		{ref: "memory.recall", path: "role", enum: strs(Roles())},
		{ref: "memory.recall", path: "outcome", enum: strs(Outcomes())},
		{ref: "memory.recall", path: "queryMode", enum: enumOf(QueryModes())},
		{ref: "memory.recall", path: "queryMatch", enum: enumOf(QueryMatches())},
		{ref: "memory.recall", path: "branches", enum: enumOf(BranchModes())},
		{ref: "memory.expand", path: "branches", enum: enumOf(BranchModes())},
		{ref: "memory.sessions", path: "branches", enum: enumOf(BranchModes())},
		{ref: "memory.walk", path: "branches", enum: enumOf(BranchModes())},
		{ref: "memory.recall", path: "pageSize", bound: &bound{1, MaxPageSize, DefaultPageSize}},
		{ref: "memory.recall", path: "snippetChars", bound: &bound{MinSnippetChars, MaxSnippetChars, DefaultSnippetChars}},
		{ref: "memory.recall", path: "context.next", bound: &bound{0, MaxContextNext, 0}},
		{ref: "memory.expand", path: "before", bound: &bound{0, MaxContext, nil}},
		{ref: "memory.expand", path: "after", bound: &bound{0, MaxContext, nil}},
		{ref: "memory.expand", path: "maxChars", bound: &bound{1, MaxMaxChars, DefaultMaxChars}},
		{ref: "memory.expand", path: "maxEntries", bound: &bound{1, MaxMaxEntries, DefaultMaxEntries}},
		{ref: "memory.sessions", path: "limit", bound: &bound{1, index.DefaultConfig().MaxSessions, nil}},
		{ref: "memory.walk", path: "pageSize", bound: &bound{1, MaxWalkPageSize, DefaultWalkPageSize}},
		{ref: "memory.walk", path: "before", bound: &bound{0, MaxContext, nil}},
	} {
		t.Run(c.ref+" "+c.path, func(t *testing.T) {
			field := propAt(schemas[c.ref].schema, c.path)
			if field == nil {
				t.Fatalf("no property %s", c.path)
			}
			if c.enum != nil {
				got, _ := field["enum"].([]any)
				if !slices.Equal(got, c.enum) {
					t.Errorf("enum %v, the engine accepts %v", got, c.enum)
				}
				if d, ok := field["default"]; ok && d != c.enum[0] {
					t.Errorf("default %v, the engine's is %v", d, c.enum[0])
				}
			}
			if b := c.bound; b != nil {
				for _, k := range []struct {
					name string
					want any
				}{{"minimum", b.min}, {"maximum", b.max}, {"default", b.def}} {
					got, ok := field[k.name]
					switch {
					case k.want == nil && ok:
						t.Errorf("%s %v, the engine has none", k.name, got)
					case k.want != nil && got != float64(k.want.(int)):
						t.Errorf("%s %v, the engine's is %v", k.name, got, k.want)
					}
				}
			}
		})
	}
}

// propAt is the property schema at a dotted path.
func propAt(s map[string]any, path string) map[string]any {
	cur := s
	for _, name := range splitDots(path) {
		props, _ := cur["properties"].(map[string]any)
		next, _ := props[name].(map[string]any)
		if next == nil {
			return nil
		}
		cur = next
	}
	return cur
}

func splitDots(p string) []string {
	var out []string
	start := 0
	for i := 0; i <= len(p); i++ {
		if i == len(p) || p[i] == '.' {
			out = append(out, p[start:i])
			start = i + 1
		}
	}
	return out
}
