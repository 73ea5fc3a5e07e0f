package listing

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// TestRemoveLeftovers: only a sentinel directory that is provably a dead
// memidx process's own is removed: this user's, named memidx-watch-…,
// with a lock file nobody holds and nothing but barrier files besides;
// nothing is followed through a symlink.
func TestRemoveLeftovers(t *testing.T) {
	tmp := t.TempDir()
	outside := t.TempDir()
	mk := func(dir string, files ...string) string {
		p := filepath.Join(tmp, dir)
		require.NoError(t, os.Mkdir(p, 0o700))
		for _, f := range files {
			require.NoError(t, os.WriteFile(filepath.Join(p, f), nil, 0o600))
		}
		return p
	}
	mk("memidx-watch-dead", "lock", "b0")
	mk("memidx-watch-dead-lock-only", "lock")
	live := mk("memidx-watch-live", "lock", "b3")
	held, err := os.Open(filepath.Join(live, "lock"))
	require.NoError(t, err)
	defer held.Close()
	require.NoError(t, unix.Flock(int(held.Fd()), unix.LOCK_EX|unix.LOCK_NB))
	mk("memidx-watch-nolock", "b0")
	mk("memidx-watch-extra", "lock", "b1", "notes.txt")
	mk("memidx-watch-badbarrier", "lock", "b1x")
	mk("other-dead", "lock", "b0")
	lockDir := mk("memidx-watch-lockdir", "b0")
	require.NoError(t, os.Mkdir(filepath.Join(lockDir, "lock"), 0o700))
	lockLink := mk("memidx-watch-locklink", "b0")
	require.NoError(t, os.WriteFile(filepath.Join(outside, "target"), []byte("keep"), 0o600))
	require.NoError(t, os.Symlink(filepath.Join(outside, "target"), filepath.Join(lockLink, "lock")))
	victim := filepath.Join(outside, "victim")
	require.NoError(t, os.Mkdir(victim, 0o700))
	for _, f := range []string{"lock", "b0"} {
		require.NoError(t, os.WriteFile(filepath.Join(victim, f), nil, 0o600))
	}
	require.NoError(t, os.Symlink(victim, filepath.Join(tmp, "memidx-watch-link")))
	foreign := mk("memidx-watch-foreign", "lock", "b0")
	if os.Geteuid() == 0 {
		for _, p := range []string{foreign, filepath.Join(foreign, "lock"), filepath.Join(foreign, "b0")} {
			require.NoError(t, os.Lchown(p, 4242, 4242))
		}
	}

	removeLeftovers(tmp)

	gone := map[string]bool{"memidx-watch-dead": true, "memidx-watch-dead-lock-only": true}
	if os.Geteuid() != 0 {
		gone["memidx-watch-foreign"] = true // this user's after all
	}
	ents, err := os.ReadDir(tmp)
	require.NoError(t, err)
	var left []string
	for _, e := range ents {
		left = append(left, e.Name())
	}
	for _, name := range []string{"memidx-watch-dead", "memidx-watch-dead-lock-only", "memidx-watch-live", "memidx-watch-nolock",
		"memidx-watch-extra", "memidx-watch-badbarrier", "other-dead", "memidx-watch-lockdir", "memidx-watch-locklink",
		"memidx-watch-link", "memidx-watch-foreign"} {
		assert.Equal(t, !gone[name], slices.Contains(left, name), name)
	}
	for _, p := range []string{filepath.Join(outside, "target"), filepath.Join(victim, "lock"), filepath.Join(victim, "b0"),
		filepath.Join(tmp, "memidx-watch-extra", "notes.txt"), filepath.Join(live, "b3")} {
		assert.FileExists(t, p)
	}
}

// sentinelHelperEnv makes the test binary a process that watches and
// waits to be killed (see TestSentinelHelperProcess).
const sentinelHelperEnv = "MEMIDX_TEST_SENTINEL_HELPER"

// TestSentinelHelperProcess is not a test: run with sentinelHelperEnv set
// it starts a watcher, prints its sentinel directory and waits.
func TestSentinelHelperProcess(t *testing.T) {
	if os.Getenv(sentinelHelperEnv) == "" {
		t.Skip("helper process")
	}
	c := NewListCache()
	if !c.sync() {
		os.Stdout.WriteString("no watcher\n")
		os.Exit(1)
	}
	os.Stdout.WriteString(c.sentinelDir() + "\n")
	time.Sleep(time.Minute)
	os.Exit(0)
}

// startSentinelHelper starts a process that watches, with tmp as its
// temp dir, and returns it with its sentinel directory.
func startSentinelHelper(t *testing.T, tmp string) (*exec.Cmd, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestSentinelHelperProcess$")
	cmd.Env = append(os.Environ(), sentinelHelperEnv+"=1", "TMPDIR="+tmp)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	require.NoError(t, err)
	dir := strings.TrimSpace(line)
	require.True(t, strings.HasPrefix(dir, filepath.Join(tmp, sentinelPrefix)), dir)
	return cmd, dir
}

// TestSentinelOfKilledProcessIsRemoved: a watching process killed with
// SIGKILL leaves its sentinel directory behind; the next one that starts
// a watcher removes it, and leaves a live process's alone.
func TestSentinelOfKilledProcessIsRemoved(t *testing.T) {
	if !watchSupported {
		t.Skip("no watcher here")
	}
	tmp := t.TempDir()
	killed, dead := startSentinelHelper(t, tmp)
	_, alive := startSentinelHelper(t, tmp)
	require.NoError(t, killed.Process.Signal(syscall.SIGKILL))
	killed.Wait()
	require.DirExists(t, dead)

	t.Setenv("TMPDIR", tmp)
	c := NewListCache()
	defer c.Close()
	require.True(t, c.sync())
	assert.NoDirExists(t, dead)
	assert.DirExists(t, alive)
	mine := c.sentinelDir()
	assert.DirExists(t, mine)
	require.NoError(t, c.Close())
	assert.NoDirExists(t, mine)
}
