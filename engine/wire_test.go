package engine_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/engine"
	"github.com/memidx/memidx/internal/jsjson"
)

// assistantWithRead is an assistant message with prose and one read call.
func assistantWithRead(text, callID, args string) string {
	return fmt.Sprintf(`{"role":"assistant","content":[{"type":"text","text":%s},{"type":"toolCall","id":%q,"name":"read","arguments":%s}],"stopReason":"toolUse","usage":{"cost":{"total":0}}}`,
		jsString(text), callID, args)
}

// Every response of an expansion's continuation stays within the
// envelope, next included: measured before next was set, a page could
// reach 30,126 units.
func TestExpandFinalResponseWithinEnvelope(t *testing.T) {
	w := newWorld(t)
	var paths []string
	for i := 0; i < 20; i++ {
		paths = append(paths, fmt.Sprintf("/repo/%02d/%s.go", i, strings.Repeat("p", 1000)))
	}
	args, _ := json.Marshal(map[string]any{"paths": paths})
	prose := strings.Repeat("a \"quoted\" line\n", 1470) // ~23.5k characters, escapes included
	path := w.write("s-env",
		msgLine("u1", "", ts, user("read these")),
		msgLine("a1", "u1", ts, assistantWithRead(prose, "c1", string(args))),
	)
	e := w.engine()
	req := engine.ExpandRequest{Session: path, Indices: []int{1}, MaxChars: 24000}
	got := ""
	total := -1
	for pages := 0; ; pages++ {
		require.Less(t, pages, 50)
		x, err := e.Expand(ctx, req)
		require.NoError(t, err)
		require.Nil(t, x.Error)
		b, err := json.Marshal(x)
		require.NoError(t, err)
		require.LessOrEqual(t, jsjson.UTF16Len(string(b)), engine.MaxResponseChars, "page %d", pages)
		require.Len(t, x.Entries, 1)
		got += x.Entries[0].Text
		total = x.Entries[0].TextRange.Total
		if x.Next == nil {
			break
		}
		req = engine.ExpandRequest{}
		require.NoError(t, json.Unmarshal(x.Next.Args, &req))
	}
	require.Equal(t, total, jsjson.UTF16Len(got))
}

// nullArrays lists the paths of the slices and maps in v that encoding/json
// writes as null: a nil slice or map in a field without omitempty, in a
// slice element or in a map value. json.RawMessage is skipped (it is
// written as it is).
func nullArrays(v any) []string {
	var out []string
	raw := reflect.TypeOf(json.RawMessage(nil))
	var walk func(path string, v reflect.Value)
	walk = func(path string, v reflect.Value) {
		switch v.Kind() {
		case reflect.Pointer, reflect.Interface:
			if !v.IsNil() {
				walk(path, v.Elem())
			}
		case reflect.Struct:
			t := v.Type()
			for i := 0; i < t.NumField(); i++ {
				f := t.Field(i)
				if !f.IsExported() {
					continue
				}
				tag := f.Tag.Get("json")
				if tag == "-" {
					continue
				}
				name, opts, _ := strings.Cut(tag, ",")
				if name == "" {
					name = f.Name
				}
				fv := v.Field(i)
				if (fv.Kind() == reflect.Slice || fv.Kind() == reflect.Map) && fv.IsNil() && fv.Type() != raw {
					if !strings.Contains(opts, "omitempty") {
						out = append(out, path+"."+name)
					}
					continue
				}
				if f.Anonymous && tag == "" {
					walk(path, fv)
				} else {
					walk(path+"."+name, fv)
				}
			}
		case reflect.Slice:
			if v.Type() == raw {
				return
			}
			for i := 0; i < v.Len(); i++ {
				e := v.Index(i)
				if (e.Kind() == reflect.Slice || e.Kind() == reflect.Map) && e.IsNil() {
					out = append(out, fmt.Sprintf("%s[%d]", path, i))
					continue
				}
				walk(fmt.Sprintf("%s[%d]", path, i), e)
			}
		case reflect.Map:
			it := v.MapRange()
			for it.Next() {
				walk(fmt.Sprintf("%s[%v]", path, it.Key()), it.Value())
			}
		}
	}
	walk("", reflect.ValueOf(v))
	return out
}

// An array field is [], never null, everywhere on the wire.
func TestWireArraysAreNeverNull(t *testing.T) {
	w := newWorld(t)
	w.cfg.HotSessions = 1
	empty := w.write("s-empty")
	cold := w.write("s-cold", msgLine("u1", "", ts, user("a cold narwhal")))
	hot := basicSession(w)
	e := w.engine()
	var outs []any
	add := func(name string, v any, err error) {
		require.NoError(t, err, name)
		outs = append(outs, v)
		for _, p := range nullArrays(v) {
			t.Errorf("%s: %s is null on the wire", name, p)
		}
	}
	for _, q := range []engine.RecallRequest{
		{Query: "narwhal deploy", Scope: "project"},
		{Query: "nothing-matches-this", Scope: "project"},
		{Scope: "project", Tool: "bash"},
		{Query: "(x", QueryMode: "regex", Scope: "project"},
		{Scope: "session:nope"},
	} {
		p, err := e.Recall(ctx, q)
		add("recall", p, err)
	}
	for _, x := range []engine.ExpandRequest{
		{Session: hot, Indices: []int{1}},
		{Session: hot},
		{Session: empty},
		{Session: hot, EntryIDs: []string{"nope"}},
		{Session: "nope"},
	} {
		r, err := e.Expand(ctx, x)
		add("expand", r, err)
	}
	s, err := e.Sessions(ctx, engine.SessionsRequest{Scope: "project"})
	add("sessions", s, err)
	ix, err := e.InspectIndex(ctx)
	add("inspect index", ix, err)
	for _, p := range []string{empty, cold, hot} {
		r, err := e.InspectSession(ctx, p, "active")
		add("inspect session "+filepath.Base(p), r, err)
		r, err = e.InspectSession(ctx, p, "all")
		add("inspect session all "+filepath.Base(p), r, err)
	}
	wr, err := e.Walk(ctx, engine.ExpandRequest{Session: empty}, func(engine.ExpandedEntry) (bool, error) { return true, nil })
	add("walk", wr, err)
	// The JSON itself: no null where the Go type is a slice.
	for _, v := range outs {
		b, err := json.Marshal(v)
		require.NoError(t, err)
		require.NotContains(t, string(b), `"reasons":null`)
		require.NotContains(t, string(b), `"filesTouched":null`)
	}
}
