//go:build unix

package cli

import (
	"os"
	"syscall"
)

// execCommand replaces this process with path: the host's stdin, stdout,
// signals and process id pass to it unchanged.
func execCommand(path string, args []string) error {
	return syscall.Exec(path, append([]string{path}, args...), os.Environ())
}
