package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/memidx/memidx/engine"
)

// JSON-RPC 2.0 error codes.
const (
	rpcParseError     = -32700
	rpcInvalidRequest = -32600
	rpcMethodNotFound = -32601
	rpcInvalidParams  = -32602
	rpcInternalError  = -32603
)

// maxMessageBytes bounds one request line.
const maxMessageBytes = 16 << 20

type rpcRequest struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params,omitempty"`
}

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

type rpcResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

func cmdServe(ctx context.Context, g globals, args []string, stdin io.Reader, stdout io.Writer) error {
	fl := newFlags("serve")
	stdio := fl.Bool("stdio", false, "serve JSON-RPC 2.0 on stdin/stdout, one message per line")
	catalogFile := fl.String("catalog", "", "capability catalog JSON file")
	lf := addLiveFlags(fl)
	pos, err := parseInterleaved(fl, args)
	if err != nil {
		return err
	}
	if !*stdio || len(pos) != 0 {
		return usageError("serve only speaks over stdio: memidx serve --stdio")
	}
	conn := &connLive{}
	if l := lf.live(); l != nil {
		conn.set(*l)
	}
	e, err := openEngineWith(g, *catalogFile, conn)
	if err != nil {
		return err
	}
	return serve(ctx, e, conn, stdin, stdout)
}

// connLive is the connection's live session: the host sets it with
// --live-* flags or the host.setLive method, never through the arguments
// of a memory call (a model may have written those). It is read afresh by
// every call, so the host's /tree navigation is seen.
type connLive struct {
	mu sync.Mutex
	l  engine.StaticLive
}

func (c *connLive) set(l engine.StaticLive) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.l = l
}

func (c *connLive) get() engine.StaticLive {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.l
}

func (c *connLive) SessionFile() string { return c.get().File }
func (c *connLive) LeafID() string      { return c.get().Leaf }
func (c *connLive) BranchIDs() []string { return c.get().Branch }

// setLive is host.setLive: {"sessionFile":…,"leafId":…,"branchIds":[…]}
// sets the connection's live session; {} or null clears it.
func setLive(conn *connLive, params json.RawMessage) rpcResponse {
	var l engine.StaticLive
	if len(bytes.TrimSpace(params)) > 0 && string(bytes.TrimSpace(params)) != "null" {
		dec := json.NewDecoder(bytes.NewReader(params))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&l); err != nil {
			return rpcResponse{Error: &rpcError{Code: rpcInvalidParams, Message: `host.setLive takes {"sessionFile":…,"leafId":…,"branchIds":[…]}: ` + err.Error()}}
		}
	}
	conn.set(l)
	return rpcResponse{Result: map[string]bool{"ok": true}}
}

// serve answers requests concurrently; responses are written whole, one per
// line, in completion order. A malformed message gets an error and the
// server keeps serving. It returns when stdin ends and every request has
// been answered.
func serve(ctx context.Context, e *engine.Engine, conn *connLive, in io.Reader, out io.Writer) error {
	var mu sync.Mutex
	w := bufio.NewWriter(out)
	write := func(r rpcResponse) {
		r.JSONRPC = "2.0"
		if r.ID == nil {
			r.ID = json.RawMessage("null")
		}
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(r); err != nil {
			buf.Reset()
			enc.Encode(rpcResponse{JSONRPC: "2.0", ID: r.ID, Error: &rpcError{Code: rpcInternalError, Message: err.Error()}})
		}
		mu.Lock()
		w.Write(buf.Bytes())
		w.Flush()
		mu.Unlock()
	}
	var wg sync.WaitGroup
	sem := make(chan struct{}, 8) // bounded concurrency
	r := bufio.NewReaderSize(in, 64<<10)
	for {
		line, err := readLine(r, maxMessageBytes)
		if errors.Is(err, errLineTooLong) {
			write(rpcResponse{Error: &rpcError{Code: rpcParseError, Message: fmt.Sprintf("message over %d bytes", maxMessageBytes)}})
			continue
		}
		if len(bytes.TrimSpace(line)) > 0 {
			var req rpcRequest
			if jerr := json.Unmarshal(line, &req); jerr != nil {
				write(rpcResponse{Error: &rpcError{Code: rpcParseError, Message: "parse error: " + jerr.Error()}})
			} else if req.JSONRPC != "2.0" || req.Method == "" {
				write(rpcResponse{ID: req.ID, Error: &rpcError{Code: rpcInvalidRequest, Message: `a request needs "jsonrpc":"2.0" and a method`}})
			} else if req.Method == "host.setLive" {
				// In line order: every request read after it sees it.
				resp := setLive(conn, req.Params)
				if req.ID != nil {
					resp.ID = req.ID
					write(resp)
				}
			} else {
				wg.Add(1)
				sem <- struct{}{}
				go func(req rpcRequest) {
					defer wg.Done()
					defer func() { <-sem }()
					resp := dispatch(ctx, e, req)
					if req.ID != nil { // a notification gets no answer
						resp.ID = req.ID
						write(resp)
					}
				}(req)
			}
		}
		if err != nil {
			break
		}
	}
	wg.Wait()
	return nil
}

var errLineTooLong = errors.New("line too long")

// readLine reads one line of at most max bytes; a longer line is skipped
// to its end and reported. At the end of input it returns the last line
// with io.EOF.
func readLine(r *bufio.Reader, max int) ([]byte, error) {
	var line []byte
	tooLong := false
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > max {
				tooLong = true
				line = nil
			} else {
				line = append(line, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if tooLong && err == nil {
			return nil, errLineTooLong
		}
		return line, err
	}
}

// dispatch runs one method. Domain failures are results with an error
// field, as in the library; only malformed calls and engine failures are
// JSON-RPC errors.
func dispatch(ctx context.Context, e *engine.Engine, req rpcRequest) (resp rpcResponse) {
	defer func() {
		if r := recover(); r != nil {
			resp = rpcResponse{Error: &rpcError{Code: rpcInternalError, Message: fmt.Sprintf("memidx failed: %v", r)}}
		}
	}()
	params := req.Params
	if len(params) == 0 {
		params = json.RawMessage("{}")
	}
	var (
		result any
		err    error
	)
	switch req.Method {
	case "memory.recall", "memory.expand", "memory.sessions":
		result, err = e.Call(ctx, engine.FabricCall{Ref: req.Method, Args: params})
	case "tools.call":
		var call engine.FabricCall
		if jerr := json.Unmarshal(params, &call); jerr != nil || call.Ref == "" {
			return rpcResponse{Error: &rpcError{Code: rpcInvalidParams, Message: `tools.call takes {"ref":…,"args":{…}}`}}
		}
		result, err = e.Call(ctx, call)
	case "tools.catalog", "tools.search", "tools.describe":
		result, err = e.Tools(req.Method, params)
	default:
		return rpcResponse{Error: &rpcError{Code: rpcMethodNotFound, Message: "unknown method " + req.Method}}
	}
	if err != nil {
		var eo *engine.ErrorObject
		if errors.As(err, &eo) {
			return rpcResponse{Error: &rpcError{Code: rpcInvalidParams, Message: eo.Message, Data: eo}}
		}
		return rpcResponse{Error: &rpcError{Code: rpcInternalError, Message: err.Error()}}
	}
	return rpcResponse{Result: result}
}
