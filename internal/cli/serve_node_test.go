package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The README's Node client (testdata/client.mjs) against the built binary:
// initialize, rebuild with progress, recall, a follow through tools.call,
// a paged walk and an invalid-params error. Without node on PATH it skips,
// unless MEMIDX_REQUIRE_NODE is set (CI installs node and sets it).
func TestNodeClient(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		if os.Getenv("MEMIDX_REQUIRE_NODE") != "" {
			t.Fatal("node is not on PATH and MEMIDX_REQUIRE_NODE is set")
		}
		t.Skip("node is not on PATH: the README's Node client is not run")
	}
	if testing.Short() {
		t.Skip("builds the memidx binary")
	}
	bin := buildMemidx(t)

	w := newServeWorld(t)
	w.write("noded", "why does the deploy timeout at thirty seconds", "the load balancer health check", "raise it", "done")
	cmd := exec.Command(node, filepath.Join("testdata", "client.mjs"), bin,
		"--agent-dir", w.agent, "--index-dir", w.index, "--cwd", w.project, "timeout")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Run(), "stdout: %s\nstderr: %s", stdout.String(), stderr.String())

	var got struct {
		Server   struct{ Name, Version string }
		Methods  int
		Hits     int
		Expanded int
		Walked   int
		BadCode  int
		BadData  string
	}
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &got), "%s", stdout.String())
	assert.Equal(t, "memidx", got.Server.Name)
	assert.NotEmpty(t, got.Server.Version)
	assert.GreaterOrEqual(t, got.Methods, 10)
	assert.Equal(t, 1, got.Hits)
	assert.Equal(t, 1, got.Expanded)
	assert.Equal(t, 4, got.Walked, "the walk pages through every entry")
	assert.Equal(t, rpcInvalidParams, got.BadCode)
	assert.Equal(t, "invalid_regex", got.BadData)
	assert.Contains(t, stderr.String(), `progress {"id":2,"message":"rebuilding"`)
}
