package indexfile

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLeftoversRemovedByTheNextWriter: a compaction killed half way leaves
// a plaintext copy of the index, a creation a new file not yet in place;
// the next write of any process removes them at once (it holds the write
// lock, so no compaction is in flight), and leaves alone whatever is not
// provably a compaction's or a creation's.
func TestLeftoversRemovedByTheNextWriter(t *testing.T) {
	dir := t.TempDir()
	a := New(dir, Options{})
	defer a.Close()
	put(t, a, "k", "secret session text")
	head, err := os.ReadFile(a.Path())
	require.NoError(t, err)
	outside := filepath.Join(t.TempDir(), "target.db")
	require.NoError(t, os.WriteFile(outside, head, 0o600))

	type file struct {
		name   string
		make   func(p string)
		remove bool
	}
	files := []file{
		{compactPrefix + "123", func(p string) { require.NoError(t, os.WriteFile(p, head, 0o600)) }, true},
		{compactPrefix + "4567", func(p string) { require.NoError(t, os.WriteFile(p, head[:4*4096], 0o600)) }, true},
		{compactPrefix + "89", func(p string) { require.NoError(t, os.WriteFile(p, nil, 0o600)) }, true},
		{compactPrefix + "notes", func(p string) { require.NoError(t, os.WriteFile(p, head, 0o600)) }, false},
		{compactPrefix + "11", func(p string) { require.NoError(t, os.WriteFile(p, []byte("my draft"), 0o600)) }, false},
		{"index.db.compact", func(p string) { require.NoError(t, os.WriteFile(p, head, 0o600)) }, false},
		{newPrefix + "123", func(p string) { require.NoError(t, os.WriteFile(p, head[:2*4096], 0o600)); aged(t, p) }, true},
		{newPrefix + "45", func(p string) { require.NoError(t, os.WriteFile(p, nil, 0o600)); aged(t, p) }, true},
		// A creation's file of a moment ago may still be being written.
		{newPrefix + "46", func(p string) { require.NoError(t, os.WriteFile(p, head[:2*4096], 0o600)) }, false},
		{newPrefix + "x1", func(p string) { require.NoError(t, os.WriteFile(p, head, 0o600)) }, false},
		{newPrefix + "67", func(p string) { require.NoError(t, os.WriteFile(p, []byte("my draft"), 0o600)) }, false},
		{"index.db.new-", func(p string) { require.NoError(t, os.WriteFile(p, head, 0o600)) }, false},
	}
	if runtime.GOOS != "windows" {
		files = append(files, file{compactPrefix + "22", func(p string) { require.NoError(t, os.Symlink(outside, p)) }, false})
	}
	if runtime.GOOS != "windows" && os.Geteuid() == 0 {
		files = append(files, file{compactPrefix + "33", func(p string) {
			require.NoError(t, os.WriteFile(p, head, 0o600))
			require.NoError(t, os.Chown(p, 54321, 54321))
		}, false})
	}
	for _, f := range files {
		f.make(filepath.Join(dir, f.name))
	}

	b := New(dir, Options{}) // the next process
	defer b.Close()
	put(t, b, "k2", "v")
	for _, f := range files {
		_, err := os.Lstat(filepath.Join(dir, f.name))
		if f.remove {
			assert.ErrorIs(t, err, os.ErrNotExist, "%s is a leftover", f.name)
		} else {
			assert.NoError(t, err, "%s is not a compaction's", f.name)
		}
	}
	assert.FileExists(t, outside, "a link's target is never touched")
}

// aged makes p look written two minutes ago.
func aged(t *testing.T, p string) {
	old := time.Now().Add(-2 * newFileGrace)
	require.NoError(t, os.Chtimes(p, old, old))
}

// TestLeftoverCleanupDoesNotGlob: an index directory whose name holds
// pattern characters does not reach another directory's files.
func TestLeftoverCleanupDoesNotGlob(t *testing.T) {
	root := t.TempDir()
	name := "g[1]"
	if runtime.GOOS == "windows" {
		name = "g[1]x" // still a pattern, and a valid name
	}
	s := New(filepath.Join(root, name), Options{})
	defer s.Close()
	fillForCompaction(t, s)
	victim := filepath.Join(root, "g1", compactPrefix+"123")
	if runtime.GOOS == "windows" {
		victim = filepath.Join(root, "g1x", compactPrefix+"123")
	}
	require.NoError(t, os.MkdirAll(filepath.Dir(victim), 0o700))
	b, err := os.ReadFile(s.Path())
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(victim, b[:4*4096], 0o600))
	old := time.Now().Add(-2 * time.Hour)
	require.NoError(t, os.Chtimes(victim, old, old))

	put(t, s, "k", "v")
	require.NoError(t, s.Compact(ctx))
	assert.FileExists(t, victim, "another directory's file is left alone")
}

// TestCompactCopyIs0600WhileWritten: the copy holds the index's plaintext
// from its first page, so it is 0600 until it takes the file's place,
// where it gets the mode the file had.
func TestCompactCopyIs0600WhileWritten(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no compaction there")
	}
	defer func(n int) { compactChunk = n }(compactChunk)
	compactChunk = 64 << 10
	s := New(t.TempDir(), Options{})
	fillForCompaction(t, s)
	require.NoError(t, os.Chmod(s.Path(), 0o644))
	seen := 0
	hc := &hookCtx{Context: ctx, fn: func() {
		names, err := filepath.Glob(filepath.Join(s.Dir(), compactPrefix+"*"))
		require.NoError(t, err)
		for _, n := range names {
			st, err := os.Stat(n)
			require.NoError(t, err)
			assert.Equal(t, os.FileMode(0o600), st.Mode().Perm(), n)
			seen++
		}
	}}
	require.NoError(t, s.Compact(hc))
	assert.Equal(t, 1, seen, "the copy was seen while written")
	st, err := os.Stat(s.Path())
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o644), st.Mode().Perm())
}
