//go:build unix

package cli

import (
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// --catalog takes a regular file only: a FIFO nobody writes and /dev/zero
// fail at once with invalid_catalog naming the path, for catalog and serve.
func TestCatalogFlagNotRegular(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "catalog.fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	for _, tc := range []struct{ name, path string }{{"fifo", fifo}, {"/dev/zero", "/dev/zero"}} {
		for _, cmd := range [][]string{{"catalog"}, {"serve", "--stdio"}} {
			t.Run(tc.name+" "+cmd[0], func(t *testing.T) {
				done := make(chan result, 1)
				go func() { done <- runCLI(t, append(cmd, "--catalog", tc.path), "", false) }()
				select {
				case r := <-done:
					assert.Equal(t, 1, r.code, "%s%s", r.stdout, r.stderr)
					assert.Contains(t, r.stdout+r.stderr, "invalid_catalog")
					assert.Contains(t, r.stdout+r.stderr, "not a regular file")
					assert.Contains(t, r.stdout+r.stderr, tc.path)
				case <-time.After(5 * time.Second):
					t.Fatalf("%s --catalog %s did not return", cmd[0], tc.path)
				}
			})
		}
	}
}
