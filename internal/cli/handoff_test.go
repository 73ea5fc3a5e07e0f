package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// memidx mcp, built as go install builds it: memidx hands the command to
// the memidx-mcp beside it, which answers the host on the same stdin and
// stdout; without one, memidx says how to install it and exits 1 with
// nothing on stdout (the host's MCP stream).
func TestMCPHandOff(t *testing.T) {
	if testing.Short() {
		t.Skip("builds memidx and memidx-mcp")
	}
	bin := buildMemidx(t)
	w := newServeWorld(t)
	w.write("planted", "the zorblax timeout", "done")
	globals := []string{"--agent-dir", w.agent, "--index-dir", w.index, "--cwd", w.project}
	session := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"memory_recall","arguments":{"query":"zorblax","scope":"global"}}}
`
	mcpRun := func(bin string, env ...string) (stdout, stderr string, code int) {
		cmd := exec.Command(bin, append(append([]string{}, globals...), "mcp", "--no-socket")...)
		cmd.Env = append(os.Environ(), env...)
		cmd.Stdin = strings.NewReader(session)
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		err := cmd.Run()
		if ee, ok := err.(*exec.ExitError); ok {
			return out.String(), errOut.String(), ee.ExitCode()
		}
		require.NoError(t, err)
		return out.String(), errOut.String(), 0
	}

	t.Run("beside memidx", func(t *testing.T) {
		out, errOut, code := mcpRun(bin, "PATH="+t.TempDir())
		require.Equal(t, 0, code, "stderr: %s", errOut)
		lines := strings.Split(strings.TrimSpace(out), "\n")
		require.Len(t, lines, 2, out)
		var init struct {
			Result struct {
				ServerInfo struct{ Name string } `json:"serverInfo"`
			} `json:"result"`
		}
		require.NoError(t, json.Unmarshal([]byte(lines[0]), &init))
		assert.Equal(t, "memidx", init.Result.ServerInfo.Name)
		assert.Contains(t, lines[1], "zorblax", "the recall answered through memidx-mcp")
	})

	// A shell's memidx asks a server that memidx mcp started, which is
	// memidx-mcp: the socket's version check passes only if the two
	// builds name themselves alike.
	t.Run("one version", func(t *testing.T) {
		lean, err := exec.Command(bin, "--version").Output()
		require.NoError(t, err)
		full, err := exec.Command(filepath.Join(filepath.Dir(bin), mcpCommand), "--version").Output()
		require.NoError(t, err)
		assert.Equal(t, string(lean), string(full))
	})

	// Without a memidx-mcp, or with a copy of memidx under its name (which
	// must not hand the command on to itself forever), memidx says how to
	// install it, exits 1 and leaves stdout, the host's stream, empty.
	copyTo := func(t *testing.T, dir, name string) string {
		data, err := os.ReadFile(bin)
		require.NoError(t, err)
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, data, 0o755))
		return p
	}
	for _, c := range []struct {
		name      string
		sibling   bool
		wantInErr string
	}{
		{"missing", false, "found neither beside"},
		{"a copy of memidx as memidx-mcp", true, "serves no MCP"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			alone := copyTo(t, dir, "memidx")
			if c.sibling {
				copyTo(t, dir, mcpCommand)
			}
			out, errOut, code := mcpRun(alone, "PATH="+t.TempDir())
			assert.Equal(t, exitFailed, code, "stderr: %s", errOut)
			assert.Empty(t, out, "stdout is the host's MCP stream")
			assert.Contains(t, errOut, "mcp_unavailable")
			assert.Contains(t, errOut, c.wantInErr)
			assert.Contains(t, errOut, "go install github.com/memidx/memidx/cmd/memidx-mcp@latest")
		})
	}
}
