// Command memidx-mcp is memidx's command line with its MCP server linked
// in: `memidx mcp` runs it in its own place (package internal/cli), and a
// host may run `memidx-mcp mcp` itself. Every other command works as in
// memidx, which leaves the MCP SDK out for the sake of its start-up.
package main

import (
	"os"

	"github.com/memidx/memidx/internal/cli"
	"github.com/memidx/memidx/internal/mcpserver"
)

func main() { os.Exit(cli.Main(mcpserver.Serve)) }
