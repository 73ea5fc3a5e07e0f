//go:build !unix

package cli

import (
	"errors"
	"os"
	"os/exec"
)

// execCommand runs path as a child with this process's stdin, stdout and
// stderr, and ends this process with its exit code (no exec here).
func execCommand(path string, args []string) error {
	cmd := exec.Command(path, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if err == nil || errors.As(err, &ee) {
		os.Exit(cmd.ProcessState.ExitCode())
	}
	return err
}
