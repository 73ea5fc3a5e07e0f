package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/memidx/memidx/engine"
	"github.com/memidx/memidx/internal/mcpopts"
)

// Options configure a server (see mcpopts, which the memidx command uses
// without linking the SDK).
type Options = mcpopts.Options

// codeRequestCancelled is the JSON-RPC error of a cancelled call, as LSP
// and serve answer it.
const codeRequestCancelled = -32800

// server answers the tools of one MCP server.
type server struct {
	e    *engine.Engine
	opts Options
}

// New returns an MCP server with memidx's tools over e.
func New(e *engine.Engine, opts Options) *mcp.Server {
	opts = opts.Filled()
	s := &server{e: e, opts: opts}
	srv := mcp.NewServer(&mcp.Implementation{Name: "memidx", Title: "memidx session memory", Version: opts.Version},
		&mcp.ServerOptions{Instructions: instructions})
	for _, t := range s.tools() {
		srv.AddTool(t.tool, t.handler)
	}
	return srv
}

// Serve serves MCP on in and out (newline-delimited JSON-RPC, as on stdio)
// until in ends, then returns nil; stdout carries only MCP messages.
func Serve(ctx context.Context, e *engine.Engine, opts Options, in io.ReadCloser, out io.WriteCloser) error {
	opts = opts.Filled()
	w := &lockedWriter{w: out, pending: newPending()}
	// The SDK's own line limit would end the connection; limitedLines
	// answers an overlong message and goes on.
	t := &mcp.IOTransport{Reader: newLimitedLines(in, w, opts.MaxMessageBytes), Writer: w, MaxLineLength: -1}
	err := New(e, opts).Run(ctx, t)
	if err == nil || errors.Is(err, io.EOF) || errors.Is(err, mcp.ErrConnectionClosed) || ctx.Err() != nil {
		return nil
	}
	return err
}

// beforeCall, when set (tests), runs before each engine call under its
// context, as a call that waits on indexing would.
var beforeCall func(context.Context)

// call runs one engine call for a tool and makes its result.
func (s *server) call(ctx context.Context, req *mcp.CallToolRequest, ref string, args json.RawMessage) (*mcp.CallToolResult, error) {
	stop := s.progress(ctx, req)
	if beforeCall != nil {
		beforeCall(ctx)
	}
	res, err := s.e.Call(ctx, engine.FabricCall{Ref: ref, Args: orEmpty(args)})
	stop()
	if ctx.Err() != nil {
		// Cancelled: the SDK still answers the id; the answer is LSP's
		// RequestCancelled error, never a result.
		return nil, &jsonrpc.Error{Code: codeRequestCancelled, Message: "request cancelled"}
	}
	if err != nil {
		eo := engine.DomainError(err)
		if eo == nil {
			eo = &engine.ErrorObject{Code: codeFailed, Message: "memidx failed: " + err.Error()}
		}
		return s.failure(ref, eo), nil
	}
	return s.result(ref, res), nil
}

func orEmpty(b json.RawMessage) json.RawMessage {
	if len(b) == 0 || string(b) == "null" {
		return json.RawMessage("{}")
	}
	return b
}

// progress sends notifications/progress for a call that carries a
// progress token while it runs longer than ProgressAfter; the returned
// stop ends them, and none is sent after it returns.
func (s *server) progress(ctx context.Context, req *mcp.CallToolRequest) (stop func()) {
	token := req.Params.GetProgressToken()
	if token == nil || s.opts.ProgressAfter < 0 || req.Session == nil {
		return func() {}
	}
	var (
		mu       sync.Mutex
		finished bool
		t        *time.Timer
		start    = time.Now()
		last     float64
	)
	tick := func() {
		mu.Lock()
		defer mu.Unlock()
		if finished || ctx.Err() != nil {
			return // answered, or cancelled: its progress ends
		}
		// Elapsed seconds: increasing, with no total (an index refresh
		// does not know its share of the call).
		p := max(time.Since(start).Seconds(), last+0.001)
		last = p
		_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: p, Message: "indexing"})
		t.Reset(s.opts.ProgressEvery)
	}
	mu.Lock()
	t = time.AfterFunc(s.opts.ProgressAfter, tick)
	mu.Unlock()
	return func() {
		mu.Lock()
		defer mu.Unlock()
		finished = true
		t.Stop()
	}
}
