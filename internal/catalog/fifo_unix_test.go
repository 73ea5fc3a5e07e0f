//go:build unix

package catalog_test

import (
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/require"
)

func makeFIFO(t *testing.T, dir string) string {
	p := filepath.Join(dir, "catalog.fifo")
	require.NoError(t, syscall.Mkfifo(p, 0o600))
	return p
}
