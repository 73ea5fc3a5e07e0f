package engine_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/engine"
)

// An offset past the last hit is an empty page that still says how many
// hits there are, as the reference answers it; an offset at the end too.
func TestOffsetPastTheEnd(t *testing.T) {
	w := newWorld(t)
	basicSession(w)
	e := w.engine()
	for _, tc := range []struct {
		name   string
		scope  engine.Scope
		offset int
	}{
		{"project, at the end", engine.ScopeProject, 4},
		{"project, past the end", engine.ScopeProject, 9},
		{"session, far past the end", engine.ScopeSession, 1 << 40},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := recall(t, e, engine.RecallRequest{Query: "deploy timeout", Scope: tc.scope, Offset: tc.offset})
			require.Nil(t, p.Error)
			assert.Equal(t, 4, p.Total)
			assert.Empty(t, p.Hits)
			assert.NotNil(t, p.Hits, "hits is [] on the wire, never null")
			assert.Nil(t, p.Next)
			assert.True(t, p.Coverage.Complete, p.Coverage.Reasons)
		})
	}
}

// A stale pointer keeps the reference's message and adds a hint that says
// what to do: run the call that produced the pointer again.
func TestStalePointerHint(t *testing.T) {
	w := newWorld(t)
	path := basicSession(w)
	e := w.engine()
	page := recall(t, e, engine.RecallRequest{Query: "deploy", Scope: engine.ScopeOf(path)})
	require.Nil(t, page.Error)
	require.NotEmpty(t, page.Hits)
	follow := page.Hits[0].Follow()
	w.appendTo(path, msgLine("u2", "a2", ts, user("one more question")))
	for _, tc := range []struct {
		name    string
		call    engine.FabricCall
		message string
	}{
		{"expand follow", follow, "Session active lineage changed after the pointer was issued."},
		{"recall next", engine.FabricCall{Ref: "memory.recall", Args: []byte(`{"query":"deploy","scope":"session:` + path + `","expectedSourceHash":"` + strings.Repeat("0", 64) + `"}`)},
			"Session source changed after the pointer was issued."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := e.Call(ctx, tc.call)
			require.NoError(t, err)
			eo := engine.DomainError(res.Err())
			require.NotNil(t, eo)
			assert.Equal(t, "stale_pointer", eo.Code)
			assert.Equal(t, tc.message, eo.Message, "the reference's message")
			assert.Contains(t, eo.Hint, "changed since")
			assert.Contains(t, eo.Hint, "again")
		})
	}
}
