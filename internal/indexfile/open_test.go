package indexfile

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
)

// refusedEverywhere checks that every operation of s refuses its file,
// names it, and leaves it, and what it names, as it was.
func refusedEverywhere(t *testing.T, s *Store, why string, keep ...string) {
	t.Helper()
	states := map[string]fileState{}
	lstat := func(p string) os.FileInfo {
		fi, err := os.Lstat(p)
		require.NoError(t, err)
		return fi
	}
	for _, p := range keep {
		states[p] = stateOf(t, p)
	}
	link := lstat(s.Path())

	_, err := get(s, "k")
	assert.ErrorIs(t, err, ErrForeign)
	assert.ErrorContains(t, err, s.Path(), "the error names the file")
	assert.ErrorContains(t, err, why)
	assert.ErrorIs(t, s.Update(ctx, func(*bolt.Tx) error { return nil }), ErrForeign)
	assert.ErrorIs(t, s.UpdateScrub(ctx, func(*bolt.Tx) error { return nil }), ErrForeign)
	assert.ErrorIs(t, s.Reset(), ErrForeign)
	if runtime.GOOS != "windows" {
		assert.ErrorIs(t, s.Compact(ctx), ErrForeign)
	}

	now := lstat(s.Path())
	assert.True(t, os.SameFile(link, now), "the path still names what it named")
	assert.Equal(t, link.Mode(), now.Mode())
	for p, st := range states {
		assert.Equal(t, st, stateOf(t, p), "%s is unchanged", p)
	}
}

func TestStore_SymlinkedFileIsRefused(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need a privilege there")
	}
	t.Run("to memidx's file", func(t *testing.T) {
		real := New(t.TempDir(), Options{})
		put(t, real, "k", "secret")
		real.Close()
		s := New(t.TempDir(), Options{LockTimeout: 100 * time.Millisecond})
		require.NoError(t, os.Symlink(real.Path(), s.Path()))
		refusedEverywhere(t, s, "symbolic link", real.Path())
	})
	t.Run("dangling", func(t *testing.T) {
		s := New(t.TempDir(), Options{LockTimeout: 100 * time.Millisecond})
		target := filepath.Join(t.TempDir(), "nowhere.db")
		require.NoError(t, os.Symlink(target, s.Path()))
		refusedEverywhere(t, s, "symbolic link")
		assert.NoFileExists(t, target, "nothing is created through the link")
	})
}

func TestStore_AnotherUsersFileIsRefused(t *testing.T) {
	if runtime.GOOS == "windows" || os.Geteuid() != 0 {
		t.Skip("needs root, to give a file to another user")
	}
	const other = 54321
	for _, c := range []struct {
		name string
		make func(t *testing.T, path string)
	}{
		{"empty, open to all", func(t *testing.T, p string) {
			require.NoError(t, os.WriteFile(p, nil, 0o666))
			require.NoError(t, os.Chmod(p, 0o666))
		}},
		{"memidx's layout", func(t *testing.T, p string) {
			put(t, New(filepath.Dir(p), Options{}), "k", "theirs")
		}},
		{"memidx's layout, damaged", func(t *testing.T, p string) {
			put(t, New(filepath.Dir(p), Options{}), "k", "theirs")
			breakMetas(t, p)
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := New(t.TempDir(), Options{LockTimeout: 100 * time.Millisecond})
			c.make(t, s.Path())
			require.NoError(t, os.Chown(s.Path(), other, other))
			refusedEverywhere(t, s, "another user", s.Path())
		})
	}
}
