package engine_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/engine"
)

// A session indexed through session:<path> from an explicit session dir
// that a later engine does not list (the index dir is shared) is removed,
// text and all, by that engine's global rebuild once its source is gone.
func TestGlobalRebuildRemovesSessionsFromAnyDirectory(t *testing.T) {
	w := newWorld(t)
	basicSession(w)
	flat := filepath.Join(w.root, "flat")
	require.NoError(t, os.MkdirAll(flat, 0o700))
	gone := filepath.Join(flat, "2026-09-01T10-00-00-000Z_s-flat.jsonl")
	body := `{"type":"session","version":3,"id":"s-flat","timestamp":"2026-09-01T10:00:00.000Z","cwd":"/elsewhere"}` + "\n" +
		msgLine("u1", "", ts, user("zqflatsecret lives only in the flat session")) + "\n"
	require.NoError(t, os.WriteFile(gone, []byte(body), 0o600))

	withFlat := w.engine(func(o *engine.Options) { o.SessionDir = flat })
	p := recall(t, withFlat, engine.RecallRequest{Query: "zqflatsecret", Scope: engine.ScopeOf(gone)})
	require.Equal(t, 1, p.Total)
	_, err := withFlat.Rebuild(ctx, engine.RebuildRequest{Scope: "global"})
	require.NoError(t, err)
	require.True(t, bytes.Contains(indexText(t, w), []byte("zqflatsecret")))

	require.NoError(t, os.Remove(gone))
	rep, err := w.engine().Rebuild(ctx, engine.RebuildRequest{Scope: "global"})
	require.NoError(t, err)
	assert.Equal(t, 1, rep.Removed)
	assert.False(t, bytes.Contains(indexText(t, w), []byte("zqflatsecret")), "the deleted session's text is gone from index.db")
	ir, err := w.engine().InspectIndex(ctx)
	require.NoError(t, err)
	for _, r := range ir.Records {
		assert.NotEqual(t, gone, r.Path)
	}
}
