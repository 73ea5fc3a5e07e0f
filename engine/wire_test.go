package engine_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"github.com/memidx/memidx/engine"
	"github.com/memidx/memidx/jsjson"
)

// assistantWithRead is an assistant message with prose and one read call.
func assistantWithRead(text, callID, args string) string {
	return fmt.Sprintf(`{"role":"assistant","content":[{"type":"text","text":%s},{"type":"toolCall","id":%q,"name":"read","arguments":%s}],"stopReason":"toolUse","usage":{"cost":{"total":0}}}`,
		jsString(text), callID, args)
}

// Issue 14: expand measured the envelope before it set next, and answered
// up to 30,126 units. Every response of the continuation stays in it.
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

// Issue 14: an array field is [], never null, everywhere on the wire.
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

// Issue 14: a regex anchored at the end matched at the maxEntryChars cut
// of an entry whose whole text does not match.
func TestRegexEndAnchorNeverMatchesAtTheCut(t *testing.T) {
	w := newWorld(t)
	w.cfg.MaxEntryChars = 40
	w.write("s-cut",
		msgLine("u1", "", ts, user(strings.Repeat("a", 60)+" and then some more words")),
		msgLine("u2", "u1", ts, user("short text ending in aaaa")),
	)
	e := w.engine()
	for _, pattern := range []string{`(a+)+$`, `a\z`, `(?m)a$`} {
		p := recall(t, e, engine.RecallRequest{Query: pattern, QueryMode: "regex", Scope: "project"})
		require.Nil(t, p.Error, pattern)
		require.Equal(t, 1, p.Total, "%s: only the entry whose whole text ends in a: %v", pattern, texts(p))
		require.Contains(t, p.Hits[0].Entry.Snippet, "short text")
		require.Contains(t, p.Coverage.Reasons, "max_entry_chars", "the cut stays non-authoritative")
	}
	// A match inside the kept head still counts.
	p := recall(t, e, engine.RecallRequest{Query: `a{10}`, QueryMode: "regex", Scope: "project"})
	require.Equal(t, 1, p.Total)
}

// Issue 14: tiers are a function of the archive, not of call order. With
// hotSessions 1 and a fresh index, inspecting the older of two sessions
// first ranks it among the sessions the index knows (itself alone) and
// makes it hot; after a project recall it is cold. The hot set is computed
// in index/refresh.go (hotSet ranks the stored records plus the refresh's
// targets, not the archive's listing), which is being reworked.
func TestTierDoesNotDependOnCallOrder(t *testing.T) {
	w := newWorld(t)
	w.cfg.HotSessions = 1
	older := w.write("s-older", msgLine("u1", "", ts, user("older narwhal")))
	w.write("s-newer", msgLine("u1", "", ts, user("newer narwhal")))
	e := w.engine()
	first, err := e.InspectSession(ctx, older, "active")
	require.NoError(t, err)
	require.NotNil(t, first.Record)
	recall(t, e, engine.RecallRequest{Query: "narwhal", Scope: "project"})
	after, err := e.InspectSession(ctx, older, "active")
	require.NoError(t, err)
	require.Equal(t, "cold", after.Record.Tier)
	require.Equal(t, after.Record.Tier, first.Record.Tier, "the first call already knows the newer session")
	require.NotNil(t, first.Digest, "a cold session shows its digest")
}

// walrusPair is an engine over two sessions, one kept hot and one cold.
func walrusPair(t *testing.T) (e *engine.Engine, cold, hot string) {
	w := newWorld(t)
	w.cfg.HotSessions = 1
	cold = w.write("s-cold", msgLine("u1", "", ts, user("older walrus")))
	hot = w.write("s-hot", msgLine("u1", "", ts, user("newer walrus")))
	return w.engine(), cold, hot
}

// InspectSession recovers as a recall does: damaged tier data (here every
// block-sum head of the hot shards and digests) is dropped and rebuilt,
// and the coverage says index_reset.
func TestInspectSessionRecoversFromDamagedTierData(t *testing.T) {
	e, cold, hot := walrusPair(t)
	for _, p := range []string{cold, hot} {
		r, err := e.InspectSession(ctx, p, "active")
		require.NoError(t, err)
		require.NotNil(t, r.Record)
	}
	require.NoError(t, e.Close()) // the index file is written below, as by another process

	db, err := bolt.Open(filepath.Join(e.Config().IndexDir, "index.db"), 0o600, nil)
	require.NoError(t, err)
	flipped := 0
	require.NoError(t, db.Update(func(tx *bolt.Tx) error {
		flip := func(b *bolt.Bucket, k []byte) error {
			bad := slices.Clone(b.Get(k))
			bad[4] ^= 0x40 // the first block's checksum
			flipped++
			return b.Put(k, bad)
		}
		hb := tx.Bucket([]byte("hot"))
		require.NoError(t, hb.ForEachBucket(func(k []byte) error { return flip(hb.Bucket(k), []byte("d")) }))
		cb := tx.Bucket([]byte("cold"))
		var keys [][]byte
		require.NoError(t, cb.ForEach(func(k, _ []byte) error { keys = append(keys, slices.Clone(k)); return nil }))
		for _, k := range keys {
			require.NoError(t, flip(cb, k))
		}
		return nil
	}))
	require.NoError(t, db.Close())
	require.Equal(t, 2, flipped)
	e, err = engine.Reopen(e)
	require.NoError(t, err)

	for _, c := range []struct {
		path string
		hot  bool
	}{{cold, false}, {hot, true}} {
		r, err := e.InspectSession(ctx, c.path, "active")
		require.NoError(t, err, c.path)
		assert.Contains(t, r.Coverage.Reasons, "index_reset", c.path)
		if c.hot {
			assert.NotNil(t, r.Shard, "the shard is rebuilt and described")
		} else {
			assert.NotNil(t, r.Digest, "the digest is rebuilt and described")
		}
		again, err := e.InspectSession(ctx, c.path, "active")
		require.NoError(t, err)
		assert.NotContains(t, again.Coverage.Reasons, "index_reset", "repaired")
	}
}

// A session that the refresh had to build in memory (another process
// holds the index) is described from that build, as a recall answers
// from it, with the coverage saying why.
func TestInspectSessionDescribesWhatTheRefreshBuilt(t *testing.T) {
	e, cold, hot := walrusPair(t)
	_, err := e.InspectSession(ctx, hot, "active") // makes the index file
	require.NoError(t, err)
	require.NoError(t, e.Close())

	db, err := bolt.Open(filepath.Join(e.Config().IndexDir, "index.db"), 0o600, nil)
	require.NoError(t, err) // holds the file's lock until closed
	defer db.Close()
	e, err = engine.Reopen(e)
	require.NoError(t, err)
	for _, p := range []string{cold, hot} {
		r, err := e.InspectSession(ctx, p, "active")
		require.NoError(t, err, p)
		require.NotNil(t, r.Record, p)
		assert.False(t, r.Coverage.Complete, p)
		assert.Contains(t, r.Coverage.Reasons, "index_busy", p)
		// Tiered as a refresh that cannot read the roster tiers it.
		if r.Record.Tier == "hot" {
			assert.NotNil(t, r.Shard, "the hot shard built in memory is described")
		} else {
			assert.NotNil(t, r.Digest, "the digest built in memory is described")
		}
	}
}
