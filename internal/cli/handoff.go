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

// handOffMCP runs memidx-mcp with this process's command line in its
// place: memidx mcp serves as before, while memidx links no MCP SDK. It
// returns only when memidx-mcp cannot be found or started.
func handOffMCP() error {
	path, err := findMCPCommand()
	if err != nil {
		return &silentFailure{msg: "mcp_unavailable: " + err.Error()}
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
