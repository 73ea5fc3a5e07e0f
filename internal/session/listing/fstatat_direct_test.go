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
