package sessiontest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TempRoot returns a fresh temporary directory with symlinks resolved, so
// that expected paths compare equal to realpath'd ones.
func TempRoot(t *testing.T) string {
	t.Helper()
	r, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	return r
}

// Mkdirs makes every directory of dirs with its parents.
func Mkdirs(t *testing.T, dirs ...string) {
	t.Helper()
	for _, d := range dirs {
		require.NoError(t, os.MkdirAll(d, 0o755))
	}
}

// WriteSession writes a small v3 session file with the given header id and
// cwd, and sets its mtime.
func WriteSession(t *testing.T, path, id, cwd string, mtime time.Time) {
	t.Helper()
	Mkdirs(t, filepath.Dir(path))
	hdr, err := json.Marshal(map[string]any{"type": "session", "version": 3, "id": id, "timestamp": "2026-01-01T00:00:00.000Z", "cwd": cwd})
	require.NoError(t, err)
	body := string(hdr) + "\n" + `{"type":"message","id":"m1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"hi"}}` + "\n"
	require.NoError(t, os.WriteFile(path, []byte(body), 0o644))
	require.NoError(t, os.Chtimes(path, mtime, mtime))
}

// WriteFile writes content to path, making its directory.
func WriteFile(t *testing.T, path, content string) {
	t.Helper()
	Mkdirs(t, filepath.Dir(path))
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
}
