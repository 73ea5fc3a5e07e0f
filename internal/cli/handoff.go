package cli

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
)

// mcpCommand is the command that serves `memidx mcp`: this command line
// built with the MCP SDK (cmd/memidx-mcp).
const mcpCommand = "memidx-mcp"

// handedOffEnv marks a process that memidx started as memidx-mcp: one that
// cannot serve MCP either says so instead of handing the command on again
// (a copy of memidx under memidx-mcp's name would exec itself forever).
const handedOffEnv = "MEMIDX_MCP_HANDED_OFF"

// handOffMCP runs memidx-mcp with this process's command line in its
// place: memidx mcp serves as before, while memidx links no MCP SDK. It
// returns only when memidx-mcp cannot be found or started.
func handOffMCP() error {
	if os.Getenv(handedOffEnv) != "" {
		self, _ := os.Executable()
		return &silentFailure{msg: "mcp_unavailable: " + self + " was run as " + mcpCommand +
			" but serves no MCP (a copy of memidx?); install it with: go install github.com/memidx/memidx/cmd/" + mcpCommand + "@latest"}
	}
	path, err := findMCPCommand()
	if err != nil {
		return &silentFailure{msg: "mcp_unavailable: " + err.Error()}
	}
	if err := os.Setenv(handedOffEnv, "1"); err != nil {
		return err
	}
	if err := execCommand(path, os.Args[1:]); err != nil {
		return &silentFailure{msg: "mcp_unavailable: " + path + ": " + err.Error()}
	}
	return nil
}

// findMCPCommand finds memidx-mcp beside this executable (where go install
// puts both), else on PATH.
func findMCPCommand() (string, error) {
	name := mcpCommand
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	self, err := os.Executable()
	if err == nil {
		if s, err := filepath.EvalSymlinks(self); err == nil {
			self = s
		}
		beside := filepath.Join(filepath.Dir(self), name)
		if fi, err := os.Stat(beside); err == nil && fi.Mode().IsRegular() {
			return beside, nil
		}
	}
	if p, err := exec.LookPath(mcpCommand); err == nil {
		return p, nil
	} else if !errors.Is(err, exec.ErrNotFound) && !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	return "", errors.New("memidx mcp is served by " + mcpCommand + ", found neither beside " + self +
		" nor on PATH; install it with: go install github.com/memidx/memidx/cmd/" + mcpCommand + "@latest")
}
