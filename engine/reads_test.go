package engine_test

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/engine"
	"github.com/memidx/memidx/internal/index"
)

// aMomentAgo is how long before its first call justWritten writes a
// session: after the racy window of a file system that stamps nanoseconds,
// well within the two seconds of one that stamps whole seconds.
const aMomentAgo = 150 * time.Millisecond

// justWritten writes a session aMomentAgo.
func justWritten(t *testing.T, w *world, id string, lines ...string) string {
	p := w.write(id, lines...)
	id0, err := index.StatIdentity(p)
	require.NoError(t, err)
	if id0.CtimeNs%int64(time.Second) == 0 {
		t.Skip("this file system stamps whole seconds: its racy window is two seconds")
	}
	require.Less(t, index.FineRacyWindow, aMomentAgo)
	time.Sleep(aMomentAgo)
	return p
}

// readsOf counts the passes over session files that f makes.
func readsOf(f func()) int64 {
	before := index.SourceReads()
	f()
	return index.SourceReads() - before
}

// The next page of a recall on a just-written session reads no source:
// its record was read after the racy window and its stat identity holds
// (the reference serves it from its continuation cache, with no reads).
func TestNextPageOfJustWrittenSessionReadsNone(t *testing.T) {
	w := newWorld(t)
	var lines []string
	parent := ""
	for i := range 6 {
		id := fmt.Sprintf("u%d", i)
		lines = append(lines, msgLine(id, parent, ts, user(fmt.Sprintf("the axolotl number %d", i))))
		parent = id
	}
	justWritten(t, w, "s-new", lines...)
	e := w.engine()
	var first *engine.RecallPage
	reads := readsOf(func() { first = recall(t, e, engine.RecallRequest{Query: "axolotl", Scope: "project", PageSize: 2}) })
	require.NotNil(t, first.Next)
	assert.Equal(t, int64(1), reads, "the first page builds the session from one read")
	var req engine.RecallRequest
	require.NoError(t, json.Unmarshal(first.Next.Args, &req))
	var next *engine.RecallPage
	reads = readsOf(func() { next = recall(t, e, req) })
	assert.Len(t, next.Hits, 2)
	assert.Zero(t, reads, "the next page reads no source")
}

// An expand chain on a just-written session (a recall, its hit's follow
// call, then every next page) reads the file at most five times, the
// reference's allowance.
func TestExpandChainOfJustWrittenSessionReads(t *testing.T) {
	w := newWorld(t)
	long := strings.Repeat("the axolotl swims on ", 2000) // 42,000 chars: several pages
	justWritten(t, w, "s-chain", msgLine("u1", "", ts, user("where is the axolotl")), msgLine("a1", "u1", ts, assistant(long)))
	e := w.engine()
	reads := readsOf(func() {
		p := recall(t, e, engine.RecallRequest{Query: "where axolotl", Scope: "project"})
		require.NotEmpty(t, p.Hits)
		var req engine.ExpandRequest
		require.NoError(t, json.Unmarshal(p.Hits[0].Follow().Args, &req))
		req.Indices, req.EntryIDs, req.After = nil, []string{"a1"}, 0
		req.MaxChars = 10000
		got := ""
		for pages := 0; ; pages++ {
			require.Less(t, pages, 20)
			x, err := e.Expand(ctx, req)
			require.NoError(t, err)
			require.Nil(t, x.Error)
			got += x.Entries[0].Text
			if x.Next == nil {
				break
			}
			require.NoError(t, json.Unmarshal(x.Next.Args, &req))
		}
		assert.Equal(t, long, got)
	})
	t.Logf("%d reads", reads)
	assert.LessOrEqual(t, reads, int64(5))
}

// An expansion of a session dated in the future settles like a recall
// does: read again while its read is racy, trusted once two reads the
// racy window apart found it unchanged, then not read again.
func TestExpandOfFutureDatedSessionSettles(t *testing.T) {
	w := newWorld(t)
	p := w.write("s-future", msgLine("u1", "", ts, user("the axolotl from the future")))
	future := time.Date(2028, 3, 1, 12, 0, 0, 0, time.UTC)
	require.NoError(t, os.Chtimes(p, future, future))
	e := w.engine()
	expand := func() {
		x, err := e.Expand(ctx, engine.ExpandRequest{Session: p, Indices: []int{0}})
		require.NoError(t, err)
		require.Nil(t, x.Error)
		require.Len(t, x.Entries, 1)
	}
	assert.Equal(t, int64(1), readsOf(expand), "the first read")
	time.Sleep(index.DefaultRacyWindow + 50*time.Millisecond) // both windows
	assert.Equal(t, int64(1), readsOf(expand), "read again: now two reads the window apart")
	for range 3 {
		assert.Zero(t, readsOf(expand), "settled")
	}
}
