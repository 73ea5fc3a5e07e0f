package indexfile

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestStore_ExistingDirectoryKeepsItsMode(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no mode bits")
	}
	dir := filepath.Join(t.TempDir(), "shared")
	require.NoError(t, os.Mkdir(dir, 0o700))
	require.NoError(t, os.Chmod(dir, os.ModeSticky|0o777))
	s := New(dir, Options{})
	put(t, s, "k", "v")
	put(t, s, "k", "w")
	st, err := os.Stat(dir)
	require.NoError(t, err)
	assert.Equal(t, os.ModeDir|os.ModeSticky|0o777, st.Mode(), "the shared directory keeps its mode, sticky bit included")

	// The file memidx created is 0600; once someone else changes its mode,
	// memidx leaves it so.
	st, err = os.Stat(s.Path())
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), st.Mode().Perm())
	require.NoError(t, os.Chmod(s.Path(), 0o640))
	put(t, s, "k", "x")
	st, err = os.Stat(s.Path())
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o640), st.Mode().Perm())
}

func TestStore_MissingDirectoriesAre0700(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no mode bits")
	}
	root := t.TempDir()
	s := New(filepath.Join(root, "a", "b", "idx"), Options{})
	put(t, s, "k", "v")
	for _, d := range []string{"a", "a/b", "a/b/idx"} {
		st, err := os.Stat(filepath.Join(root, d))
		require.NoError(t, err)
		assert.Equal(t, os.FileMode(0o700), st.Mode().Perm(), d)
	}
}

func TestDirWarning(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no mode bits")
	}
	root := t.TempDir()
	for _, c := range []struct {
		mode os.FileMode
		warn bool
	}{{0o700, false}, {0o711, false}, {0o750, true}, {0o755, true}, {os.ModeSticky | 0o777, true}} {
		dir := filepath.Join(root, c.mode.String())
		require.NoError(t, os.Mkdir(dir, 0o700))
		require.NoError(t, os.Chmod(dir, c.mode))
		w := DirWarning(dir)
		if c.warn {
			assert.Contains(t, w, dir, "%v", c.mode)
		} else {
			assert.Empty(t, w, "%v", c.mode)
		}
	}
	assert.Empty(t, DirWarning(filepath.Join(root, "missing")))
}
