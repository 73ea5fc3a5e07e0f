package engine_test

import (
	"crypto/sha256"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"github.com/memidx/memidx/engine"
	"github.com/memidx/memidx/internal/index"
)

func indexBytes(t *testing.T, w *world) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(w.cfg.IndexDir, "index.db"))
	require.NoError(t, err)
	return b
}

// indexText is what the index file holds, packed values unpacked
// (index.Plaintext): what a check that a word left the file greps.
func indexText(t *testing.T, w *world) []byte {
	t.Helper()
	b, err := index.Plaintext(w.cfg.IndexDir)
	require.NoError(t, err)
	return b
}

// Over an index.db that is another program's bbolt file, recall answers
// from the sources as a fresh index would, says why with a reason and an
// error naming the file, and leaves the file as it was.
func TestRecallOverForeignIndexFile(t *testing.T) {
	w := newWorld(t)
	basicSession(w)
	want := recall(t, w.engine(func(o *engine.Options) {
		cfg := w.cfg
		cfg.IndexDir = filepath.Join(w.root, "fresh")
		o.Memory = &cfg
	}), engine.RecallRequest{Query: "deploy timeout", Scope: "project"})
	require.NotEmpty(t, want.Hits)

	path := filepath.Join(w.cfg.IndexDir, "index.db")
	require.NoError(t, os.MkdirAll(w.cfg.IndexDir, 0o700))
	db, err := bolt.Open(path, 0o600, nil)
	require.NoError(t, err)
	require.NoError(t, db.Update(func(tx *bolt.Tx) error {
		b, err := tx.CreateBucket([]byte("settings"))
		if err != nil {
			return err
		}
		return b.Put([]byte("theme"), []byte("dark"))
	}))
	require.NoError(t, db.Close())
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	require.NoError(t, os.Chtimes(path, old, old))
	before := sha256.Sum256(indexBytes(t, w))

	e := w.engine()
	for i := 0; i < 2; i++ {
		got := recall(t, e, engine.RecallRequest{Query: "deploy timeout", Scope: "project"})
		assert.Equal(t, texts(want), texts(got))
		assert.Equal(t, want.Total, got.Total)
		assert.Contains(t, got.Coverage.Reasons, index.IndexForeignFile)
		assert.False(t, got.Coverage.Complete)
		require.NotNil(t, got.Coverage.Error)
		assert.Equal(t, index.IndexForeignFile, got.Coverage.Error.Code)
		assert.Contains(t, got.Coverage.Error.Message, path)
	}
	rep, err := e.Rebuild(ctx, engine.RebuildRequest{Scope: "global"})
	require.NoError(t, err)
	assert.Contains(t, rep.Coverage.Reasons, index.IndexForeignFile)

	assert.Equal(t, before, sha256.Sum256(indexBytes(t, w)), "the foreign file is unchanged")
	st, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, old, st.ModTime())
}
