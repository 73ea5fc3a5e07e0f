package engine

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/internal/index"
	"github.com/memidx/memidx/internal/session"
	"github.com/memidx/memidx/internal/session/confine"
)

// titledFile writes a session file whose title slot holds title, padded to
// one width, so that a new title rewrites the slot in place as OMP does.
func titledFile(t *testing.T, path, title string) {
	t.Helper()
	slot := fmt.Sprintf(`{"type":"title","v":1,"title":%q,"source":"user","updatedAt":"2026-09-01T10:31:00.000Z","pad":"%s"}`, title, strings.Repeat(" ", 40-len(title)))
	head := `{"type":"session","version":3,"id":"s1","timestamp":"2026-09-01T10:00:00.000Z","cwd":"/p"}`
	require.NoError(t, os.WriteFile(path, []byte(slot+"\n"+head+"\n"), 0o600))
}

// settle waits until a file written now is past its racy window.
func settle(t *testing.T, path string) {
	t.Helper()
	id, err := index.StatIdentity(path)
	require.NoError(t, err)
	for id.RacyAt(time.Now().UnixNano(), 0) {
		time.Sleep(20 * time.Millisecond)
	}
}

// A kept title is used while its file's identity is the one it was read
// under and was not racy: a rewrite of the slot is read again, a racy file
// is read every time, a read that failed for the moment is not kept, a
// file that cannot be stat-ed is not kept, and no cache just reads.
func TestTitleCache(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.jsonl")
	reads, failing := 0, false
	read := func(f *os.File, st os.FileInfo, p string) (string, bool) {
		reads++
		if failing {
			return "", false // EMFILE, EIO: nothing said about the file
		}
		return titleOf(f, st, p)
	}

	steps := []struct {
		name      string
		before    func()
		cache     bool
		want      string
		wantReads int
	}{
		{"a failed read", func() { titledFile(t, path, "alpha"); settle(t, path); failing = true }, true, "", 1},
		{"is not kept", func() { failing = false }, true, "alpha", 2},
		{"kept", nil, true, "alpha", 2},
		{"kept again", nil, true, "alpha", 2},
		{"the slot rewritten, racy", func() { titledFile(t, path, "beta") }, true, "beta", 3},
		{"racy: not kept", nil, true, "beta", 4},
		{"settled: read and kept", func() { settle(t, path) }, true, "beta", 5},
		{"kept after the rewrite", nil, true, "beta", 5},
		{"no cache reads", nil, false, "beta", 6},
		{"gone: nothing to read", func() { require.NoError(t, os.Remove(path)) }, true, "", 6},
		{"gone, not kept", nil, true, "", 6},
	}
	c := &titleCache{}
	for _, s := range steps {
		if s.before != nil {
			s.before()
		}
		var got string
		if s.cache {
			got = c.of(path, read)
		} else {
			got = (*titleCache)(nil).of(path, read)
		}
		assert.Equal(t, s.want, got, s.name)
		assert.Equal(t, s.wantReads, reads, s.name)
	}
}

// The cache holds at most titleCacheSize titles.
func TestTitleCacheBound(t *testing.T) {
	dir := t.TempDir()
	c := &titleCache{}
	var paths []string
	for i := range titleCacheSize + 10 {
		p := filepath.Join(dir, fmt.Sprintf("s%d.jsonl", i))
		titledFile(t, p, "alpha")
		paths = append(paths, p)
	}
	settle(t, paths[len(paths)-1])
	for _, p := range paths {
		assert.Equal(t, "alpha", c.of(p, titleOf))
	}
	assert.Equal(t, "", c.of(filepath.Join(dir, "missing.jsonl"), titleOf))
	assert.LessOrEqual(t, len(c.m), titleCacheSize)
	assert.Positive(t, len(c.m))
}

// A kept title answers only for a file that still opens under the session
// roots: a bucket directory moved out of them and replaced by a symlink
// keeps the file's identity, but the file is no longer a session memidx
// may read, kept title or not.
func TestTitleCacheStaysConfined(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	root, out := filepath.Join(base, "root"), filepath.Join(base, "outside")
	require.NoError(t, os.MkdirAll(filepath.Join(root, "b"), 0o700))
	require.NoError(t, os.MkdirAll(out, 0o700))
	confine.AddRoot(root, root)
	path := filepath.Join(root, "b", "s.jsonl")
	titledFile(t, path, "alpha")
	settle(t, path)
	c := &titleCache{}
	require.Equal(t, "alpha", c.of(path, titleOf))
	require.Contains(t, c.m, path, "the title is kept")

	require.NoError(t, os.Rename(filepath.Join(root, "b"), filepath.Join(out, "b")))
	require.NoError(t, os.Symlink(filepath.Join(out, "b"), filepath.Join(root, "b")))
	_, err = session.ReadHeader(path)
	require.ErrorIs(t, err, confine.ErrOutsideRoots, "the confined read refuses the file")
	assert.Equal(t, "", c.of(path, titleOf), "and so does the kept title")
}
