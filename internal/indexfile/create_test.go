package indexfile

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// placeNew and renameNoReplace never replace what is at the path, a
// dangling link included, and move the new file there when nothing is.
func TestPlaceNewNeverReplaces(t *testing.T) {
	places := map[string]func(tmp, path string) error{"placeNew": placeNew, "renameNoReplace": renameNoReplace}
	cases := []struct {
		name  string
		there func(t *testing.T, path string)
	}{
		{"nothing", nil},
		{"a file", func(t *testing.T, path string) { require.NoError(t, os.WriteFile(path, []byte("theirs"), 0o600)) }},
		{"a dangling link", func(t *testing.T, path string) {
			if runtime.GOOS == "windows" {
				t.Skip("links need privileges there")
			}
			require.NoError(t, os.Symlink(filepath.Join(filepath.Dir(path), "target"), path))
		}},
	}
	for name, place := range places {
		for _, c := range cases {
			t.Run(name+"/"+c.name, func(t *testing.T) {
				dir := t.TempDir()
				tmp, path := filepath.Join(dir, newPrefix+"1"), filepath.Join(dir, FileName)
				require.NoError(t, os.WriteFile(tmp, []byte("ours"), 0o600))
				if c.there != nil {
					c.there(t, path)
				}
				err := place(tmp, path)
				if c.there == nil {
					require.NoError(t, err)
					b, err := os.ReadFile(path)
					require.NoError(t, err)
					assert.Equal(t, "ours", string(b))
					assert.NoFileExists(t, tmp)
					return
				}
				assert.ErrorIs(t, err, fs.ErrExist)
				assert.FileExists(t, tmp, "the caller removes its own file")
				assert.NoFileExists(t, filepath.Join(dir, "target"), "nothing is made through a link")
				if b, err := os.ReadFile(path); err == nil {
					assert.Equal(t, "theirs", string(b))
				}
			})
		}
	}
}

// Processes that find no index file make one each; one is put in place,
// every write lands in it, and no new file is left beside it.
func TestNewFileRace(t *testing.T) {
	dir := t.TempDir()
	const writers = 8
	var wg sync.WaitGroup
	for i := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := New(dir, Options{})
			defer s.Close()
			put(t, s, fmt.Sprint(i), "v")
		}()
	}
	wg.Wait()
	s := New(dir, Options{})
	defer s.Close()
	for i := range writers {
		v, err := get(s, fmt.Sprint(i))
		require.NoError(t, err)
		assert.Equal(t, "v", v, "write %d", i)
	}
	names, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, names, 1)
	assert.Equal(t, FileName, names[0].Name())
}
