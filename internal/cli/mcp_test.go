package cli

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// memidx mcp in process: its flags are checked, it answers initialize and
// tools/list on stdout with nothing else there, and it exits 0 when stdin
// closes.
func TestMCPCommand(t *testing.T) {
	w := newServeWorld(t)
	w.write("planted", "the zorblax timeout", "done")
	globals := []string{"--agent-dir", w.agent, "--index-dir", w.index, "--cwd", w.project}
	for _, c := range []struct {
		name  string
		args  []string
		input string
		code  int
	}{
		{"a result bound under the minimum", []string{"mcp", "--max-result-bytes", "1000"}, "", exitUsage},
		{"a positional argument", []string{"mcp", "extra"}, "", exitUsage},
		{"a zero progress delay", []string{"mcp", "--progress-after", "0s"}, "", exitUsage},
		{"stdin closes at once", []string{"mcp"}, "", exitOK},
		{"a catalog that does not load", []string{"mcp", "--catalog", "/nonexistent/catalog.json"}, "", exitFailed},
		{"a session", []string{"mcp"}, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/list"}
{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"memory_recall","arguments":{"query":"zorblax","scope":"global"}}}
`, exitOK},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out, errOut strings.Builder
			code := run(context.Background(), append(globals, c.args...), strings.NewReader(c.input), &out, &errOut)
			require.Equal(t, c.code, code, "stdout: %s\nstderr: %s", out.String(), errOut.String())
			if c.code == exitFailed {
				assert.Empty(t, out.String(), "a failure goes to stderr: stdout is the MCP stream")
				assert.Contains(t, errOut.String(), "invalid_catalog")
			}
			if c.code != exitOK {
				return
			}
			lines := strings.Split(strings.TrimSpace(out.String()), "\n")
			if c.input == "" {
				assert.Empty(t, out.String())
				return
			}
			require.Len(t, lines, 3, out.String())
			for _, l := range lines {
				var m map[string]any
				require.NoError(t, json.Unmarshal([]byte(l), &m), "stdout carries only MCP messages: %s", l)
				assert.Equal(t, "2.0", m["jsonrpc"])
				assert.NotNil(t, m["result"], l)
			}
			assert.Contains(t, lines[2], "zorblax")
		})
	}
}
