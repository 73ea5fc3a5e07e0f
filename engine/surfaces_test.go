package engine_test

import (
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
