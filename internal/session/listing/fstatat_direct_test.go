//go:build linux && (amd64 || arm64)

package listing

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A listing's stat of a file allocates nothing, up to the longest name a
// file can have (255 bytes).
func TestStatOfAListedFileAllocatesNothing(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{
		"a.jsonl",
		strings.Repeat("x", 200) + ".jsonl",
		strings.Repeat("y", 249) + ".jsonl",
	} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte("abc"), 0o600))
		d, _, err := openDir(dir)
		require.NoError(t, err)
		st, regular, err := d.stat(name)
		require.NoError(t, err)
		assert.True(t, regular)
		assert.Equal(t, int64(3), st.Size)
		got := testing.AllocsPerRun(100, func() { _, _, _ = d.stat(name) })
		assert.Zero(t, got, "%d-byte name", len(name))
		_, _, err = d.stat("missing.jsonl")
		assert.ErrorIs(t, err, os.ErrNotExist)
		d.close()
	}
}

// Resolving a root that holds no symlink, as every listing does, allocates
// nothing (filepath.EvalSymlinks allocated twice an element).
func TestCanonicalOfASymlinkFreeRootAllocatesNothing(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "agent", "sessions")
	require.NoError(t, os.MkdirAll(root, 0o755))
	canon, err := filepath.EvalSymlinks(root)
	require.NoError(t, err)
	got, err := canonical(canon)
	require.NoError(t, err)
	assert.Equal(t, canon, got)
	assert.Zero(t, testing.AllocsPerRun(100, func() { _, _ = canonical(canon) }))
	assert.NotZero(t, testing.AllocsPerRun(10, func() { _, _ = filepath.EvalSymlinks(canon) }), "the garbage this spares")
}

// A root that does not exist (most archives have no archive root) costs
// its error alone.
func TestCanonicalOfAMissingRootAllocatesItsErrorOnly(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "archive")
	_, err := canonical(missing)
	assert.ErrorIs(t, err, os.ErrNotExist)
	assert.LessOrEqual(t, testing.AllocsPerRun(100, func() { _, _ = canonical(missing) }), 1.0)
}
