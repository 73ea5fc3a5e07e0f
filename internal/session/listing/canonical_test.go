package listing

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// canonical answers what filepath.EvalSymlinks answers, path or error,
// whatever the path holds: symlinks at any element, a file where a
// directory should be, missing elements, relative and unclean spellings.
func TestCanonicalIsEvalSymlinks(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "real", "sub"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "real", "f.jsonl"), []byte("x"), 0o600))
	require.NoError(t, os.Symlink(filepath.Join(dir, "real"), filepath.Join(dir, "link")))
	require.NoError(t, os.Symlink("sub", filepath.Join(dir, "real", "rel")))
	require.NoError(t, os.Symlink(filepath.Join(dir, "nowhere"), filepath.Join(dir, "dangling")))
	wd, err := os.Getwd()
	require.NoError(t, err)
	rel, err := filepath.Rel(wd, filepath.Join(dir, "real"))
	require.NoError(t, err)
	for _, p := range []string{
		"/",
		dir,
		filepath.Join(dir, "real"),
		filepath.Join(dir, "real", "sub"),
		filepath.Join(dir, "real", "f.jsonl"),
		filepath.Join(dir, "link"),
		filepath.Join(dir, "link", "sub"),
		filepath.Join(dir, "real", "rel"),
		filepath.Join(dir, "real", "rel", ".."),
		filepath.Join(dir, "dangling"),
		filepath.Join(dir, "missing"),
		filepath.Join(dir, "missing", "sub"),
		filepath.Join(dir, "real", "f.jsonl", "sub"),
		dir + "/real//sub/",
		dir + "/real/./sub",
		rel,
		"",
	} {
		want, wantErr := filepath.EvalSymlinks(p)
		got, err := canonical(p)
		assert.Equal(t, want, got, "%q", p)
		assert.Equal(t, wantErr, err, "%q", p)
	}
}
