// Command memidx is memidx's command line: recall, expand, sessions, walk,
// serve and the rest over OMP session files (package internal/cli; run
// memidx --help). It links no MCP SDK: memidx mcp hands itself to
// memidx-mcp, installed beside it, so that a one-shot command starts as
// fast as it can.
package main

import (
	"os"

	"github.com/memidx/memidx/internal/cli"
)

func main() { os.Exit(cli.Main(nil)) }
