//go:build unix

package reliability

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPrivacyDeletedSessionLeavesIndex: a session indexed through
// session:<path> from an explicit --session-dir, then deleted, is gone
// from index.db (its record and every byte of its text) after a global
// rebuild that no longer names that directory: what is indexed is removed
// with its source, wherever the source lived.
func TestPrivacyDeletedSessionLeavesIndex(t *testing.T) {
	t.Parallel()
	seeded(t)
	w := newWorld(t)
	w.writeSession("s-stays", lines(headerLine("s-stays", w.project), msgLine("u1", "", tsAt(1), userMsg("hello zqstays"))))
	flat := filepath.Join(w.root, "flat")
	require.NoError(t, os.MkdirAll(flat, 0o700))
	gone := filepath.Join(flat, "2026-09-01T10-00-00-000Z_s-gone.jsonl")
	require.NoError(t, os.WriteFile(gone, lines(headerLine("s-gone", "/elsewhere"),
		msgLine("u1", "", tsAt(1), userMsg("zqdeletedsecret must leave the index with its session"))), 0o600))
	withFlat := runOpts{global: []string{"--session-dir", flat}}

	r := w.mustRun(t, withFlat, "recall", "-q", "zqdeletedsecret", "--scope", "session:"+gone)
	require.Zero(t, r.code, "%s", r)
	require.Equal(t, 1, decodeRecall(t, r).Total)
	db := filepath.Join(w.index, "index.db")
	b, err := os.ReadFile(db)
	require.NoError(t, err)
	require.True(t, bytes.Contains(b, []byte("zqdeletedsecret")))

	require.NoError(t, os.Remove(gone))
	r = w.mustRun(t, runOpts{}, "rebuild", "--scope", "global", "--json")
	require.Zero(t, r.code, "%s", r)
	var rep struct {
		Removed int `json:"removed"`
	}
	require.NoError(t, json.Unmarshal(r.stdout, &rep), "%s", r)
	assert.Equal(t, 1, rep.Removed)
	b, err = os.ReadFile(db)
	require.NoError(t, err)
	assert.False(t, bytes.Contains(b, []byte("zqdeletedsecret")), "the deleted session's text is gone from index.db")
	assert.True(t, bytes.Contains(b, []byte("zqstays")))
	r = w.mustRun(t, runOpts{}, "inspect", "index", "--json")
	require.Zero(t, r.code, "%s", r)
	assert.NotContains(t, string(r.stdout), "s-gone")
}
