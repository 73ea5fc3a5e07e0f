package cli

import (
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every one-shot command starts a process, so this package's start-up
// compiles no pattern (a regexp is about a hundred allocations): its
// initialisation, tests' own tables included, stays under 300 of them
// (676 when five patterns were compiled at start).
func TestStartCompilesNoPattern(t *testing.T) {
	cmd := exec.Command(os.Args[0], "--version")
	cmd.Env = append(os.Environ(), runMainEnv+"=1", "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	m := regexp.MustCompile(`init github\.com/memidx/memidx/internal/cli @\S+ ms, \S+ ms clock, \d+ bytes, (\d+) allocs`).FindSubmatch(out)
	require.NotNil(t, m, "%s", out)
	allocs, err := strconv.Atoi(string(m[1]))
	require.NoError(t, err)
	assert.Less(t, allocs, 300, "allocations of the package's initialisation")
}
