package cli

import (
	"context"
	"io"
	"time"

	"github.com/memidx/memidx/engine"
	"github.com/memidx/memidx/internal/mcpopts"
)

// MCPServe serves the MCP tools over e on in and out until in ends
// (internal/mcpserver.Serve, given by the memidx-mcp command).
type MCPServe func(ctx context.Context, e *engine.Engine, opts mcpopts.Options, in io.ReadCloser, out io.WriteCloser) error

// mcpServe is the command's MCP server; nil in memidx, which hands the
// command to memidx-mcp.
var mcpServe MCPServe

// cmdMCP is memidx mcp: serve's engine (watching, catalog, the host's live
// session) behind an MCP server.
func cmdMCP(ctx context.Context, g globals, args []string, stdin io.Reader, stdout io.Writer) error {
	if mcpServe == nil {
		return handOffMCP()
	}
	fl := newFlags("mcp")
	catalogFile := fl.String("catalog", "", "capability catalog JSON file")
	noWatch := fl.Bool("no-watch", false, "list and stat every session file on each call instead of watching the session directories")
	noSocket := fl.Bool("no-socket", false, "do not answer shell commands on the socket")
	lf := addLiveFlags(fl)
	maxResult := fl.Int("max-result-bytes", mcpopts.DefaultMaxResultBytes, "bytes a tool result (text and structured content) may hold")
	maxMessage := fl.Int("max-message-bytes", mcpopts.DefaultMaxMessageBytes, "bytes an inbound message may hold")
	progressAfter := fl.Duration("progress-after", 250*time.Millisecond, "how long a call with a progress token runs before its first progress notification")
	progressEvery := fl.Duration("progress-every", time.Second, "the time between two progress notifications of a call")
	pos, err := parseInterleaved(fl, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return usageError("mcp takes no arguments: memidx mcp [flags]")
	}
	if *maxResult < mcpopts.MinMaxResultBytes || *maxMessage < 1 || *progressAfter <= 0 || *progressEvery <= 0 {
		return usageError("--max-result-bytes takes at least %d; --max-message-bytes, --progress-after and --progress-every a positive value", mcpopts.MinMaxResultBytes)
	}
	defer hostHeap()()
	var live engine.LiveSession
	if l := lf.live(); l != nil {
		live = *l
	}
	e, err := openEngineWith(g, *catalogFile, live, func(o *engine.Options) {
		o.Watch = !*noWatch
		o.WalkPageBytes = mcpopts.WalkPageBytes(*maxResult)
	})
	if err != nil {
		return onStderr(err)
	}
	defer e.Close()
	if !*noSocket {
		if h, err := listenSocket(ctx, e); err == nil {
			defer h.close()
		} // else another server answers the shell, or none can here
	}
	opts := mcpopts.Options{Version: serverVersion(), MaxResultBytes: *maxResult, MaxMessageBytes: *maxMessage,
		ProgressAfter: *progressAfter, ProgressEvery: *progressEvery}
	return onStderr(mcpServe(ctx, e, opts, io.NopCloser(stdin), nopWriteCloser{stdout}))
}

// onStderr reports a failure of the server on stderr only: its stdout is
// the host's MCP stream.
func onStderr(err error) error {
	if err == nil {
		return nil
	}
	code, msg := errorParts(err)
	return &silentFailure{msg: code + ": " + msg}
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
