//go:build unix

package cli

import (
	"bufio"
	"errors"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A real SIGINT ends memidx with exit status 130, and what it wrote
// before stays written: serve's answer to initialize is read, then the
// signal comes, then the client hangs up.
func TestInterruptExits130(t *testing.T) {
	w := newWorld(t)
	cmd := exec.Command(os.Args[0], "--agent-dir", w.agent, "--index-dir", w.index, "--cwd", w.proj, "serve", "--stdio")
	cmd.Env = append(os.Environ(), runMainEnv+"=1")
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	defer cmd.Process.Kill()

	_, err = io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`+"\n")
	require.NoError(t, err)
	line, err := bufio.NewReader(stdout).ReadString('\n')
	require.NoError(t, err)
	assert.True(t, strings.Contains(line, `"id":1`) && strings.Contains(line, `"result"`), line)

	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	time.Sleep(100 * time.Millisecond) // the signal is taken before the hang-up
	require.NoError(t, stdin.Close())
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("memidx did not end after SIGINT and EOF")
	}
	var ee *exec.ExitError
	require.True(t, errors.As(err, &ee), "exit status 0, want 130")
	assert.Equal(t, exitInterrupted, ee.ExitCode())
}
