package engine_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/engine"
)

// TestRebuildCompactsAfterRebuildingMuch: a rebuild of the archive that
// rebuilt at least half its sessions rewrites the index file (a new
// file in its place); one that rebuilt less leaves it; the answers are
// the same either way.
func TestRebuildCompactsAfterRebuildingMuch(t *testing.T) {
	w := newWorld(t)
	var paths []string
	ids := map[string]string{}
	for _, id := range []string{"c1", "c2", "c3", "c4"} {
		p := w.write(id, msgLine(id+"-0", "", "2026-09-01T10:00:01.000Z", user("zqcompact "+id)))
		paths, ids[p] = append(paths, p), id
	}
	e := w.engine()
	defer e.Close()
	file := filepath.Join(w.cfg.IndexDir, "index.db")
	inode := func() os.FileInfo {
		st, err := os.Stat(file)
		require.NoError(t, err)
		return st
	}
	rebuild := func() {
		t.Helper()
		_, err := e.Rebuild(ctx, engine.RebuildRequest{Scope: engine.ScopeGlobal})
		require.NoError(t, err)
		assert.Equal(t, 4, recall(t, e, engine.RecallRequest{Query: "zqcompact", Scope: engine.ScopeGlobal}).Total)
	}
	rebuild()
	first := inode()
	rebuild() // nothing changed
	assert.True(t, os.SameFile(first, inode()), "nothing rebuilt: the file stays")

	later := time.Now().Add(-10 * time.Minute)
	touch := func(p string) {
		w.appendTo(p, msgLine(ids[p]+"-1", ids[p]+"-0", "2026-09-01T10:00:02.000Z", user("more")))
		require.NoError(t, os.Chtimes(p, later, later))
	}
	touch(paths[0])
	rebuild() // one of four
	assert.True(t, os.SameFile(first, inode()), "a quarter rebuilt: the file stays")
	for _, p := range paths[1:3] {
		touch(p)
	}
	rebuild() // two of four
	assert.False(t, os.SameFile(first, inode()), "half rebuilt: compacted into a new file")
	names, _ := filepath.Glob(filepath.Join(w.cfg.IndexDir, "index.db.compact-*"))
	assert.Empty(t, names)
}
