package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The official MCP TypeScript client (testdata/mcp/client.mjs, pinned in
// its package-lock.json) against `memidx mcp`: initialize, tools/list, a
// recall with progress, its follow, expand with context, sessions, a walk
// of megabyte entries to the end, an invalid regex, a stale pointer, an
// unknown tool and a cancel, every structuredContent validated against
// its tool's outputSchema. It skips without node or without `npm ci` in
// testdata/mcp, unless MEMIDX_REQUIRE_NODE is set (CI sets it).
func TestMCPNodeClient(t *testing.T) {
	node := nodeOrSkip(t, filepath.Join("testdata", "mcp", "node_modules", "@modelcontextprotocol", "sdk"))
	bin := buildMemidx(t)
	w := newServeWorld(t)
	w.write("planted", "why does the deploy time out", "the zorblax health check takes forty seconds", "raise it", "done")
	line := strings.Repeat("x", 99) + "\n"
	big := strings.Repeat(line, 15000) // 1.5 MB an entry
	w.write("huge", "start", big, "between", big+"the end of it", big, "last")
	cmd := exec.Command(node, filepath.Join("testdata", "mcp", "client.mjs"), bin, filepath.Join(t.TempDir(), "cold-index"),
		"--agent-dir", w.agent, "--index-dir", w.index, "--cwd", w.project)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Run(), "stdout: %s\nstderr: %s", stdout.String(), stderr.String())
	t.Logf("transcript:\n%s", stderr.String())

	var got struct {
		Protocol  string
		Tools     []string
		Validated int
		Walked    int
		Pages     int
		Chunks    int
		Progress  int
		Codes     []string
	}
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &got), "%s", stdout.String())
	assert.Equal(t, "2025-11-25", got.Protocol)
	assert.ElementsMatch(t, []string{"memory_recall", "memory_expand", "memory_sessions", "memory_walk", "memory_call"}, got.Tools)
	assert.Equal(t, 6, got.Walked)
	assert.Greater(t, got.Chunks, 3, "megabyte entries arrive in chunks")
	assert.Greater(t, got.Progress, 0)
	assert.Equal(t, []string{"invalid_regex", "stale_pointer"}, got.Codes)
	assert.Greater(t, got.Validated, 10)
}

// nodeOrSkip is node's path; the test skips when node or the module at
// mod is absent, unless MEMIDX_REQUIRE_NODE is set.
func nodeOrSkip(t *testing.T, mod string) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err == nil {
		_, err = os.Stat(mod)
	}
	if err != nil {
		if os.Getenv("MEMIDX_REQUIRE_NODE") != "" {
			t.Fatalf("node or %s is missing and MEMIDX_REQUIRE_NODE is set: %v", mod, err)
		}
		t.Skipf("node or %s is missing (npm ci in its folder): %v", mod, err)
	}
	if testing.Short() {
		t.Skip("builds the memidx binary")
	}
	return node
}

// buildMemidx builds the commands memidx and memidx-mcp side by side into
// a temporary directory, as go install places them, and returns memidx's
// path: memidx mcp runs the memidx-mcp beside it.
func buildMemidx(t *testing.T) string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		goTool = filepath.Join(runtime.GOROOT(), "bin", "go")
	}
	dir := t.TempDir()
	out, err := exec.Command(goTool, "build", "-o", dir+string(filepath.Separator),
		"../../cmd/memidx", "../../cmd/memidx-mcp").CombinedOutput()
	require.NoError(t, err, "%s", out)
	return filepath.Join(dir, "memidx")
}
