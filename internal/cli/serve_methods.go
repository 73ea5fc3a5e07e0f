package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"sync"
	"time"

	"github.com/memidx/memidx/engine"
)

// requestErrorCodes are the memidx error codes that say the request itself
// was malformed: over serve they are JSON-RPC invalid-params errors
// (-32602) with the memidx error object in error.data. Every other code
// is a domain outcome the spec defines as a result (stale_pointer,
// address_not_found, session_not_found, ambiguous_session,
// index_out_of_bounds, regex_timeout, action_not_found, …) and stays one.
var requestErrorCodes = map[string]bool{
	string(engine.ErrInvalidRequest):       true, // unknown or mistyped arguments, bad values
	string(engine.ErrInvalidScope):         true, // a scope that does not parse
	string(engine.ErrInvalidRegex):         true, // a pattern that does not compile
	string(engine.ErrRegexPatternTooLarge): true, // a pattern over the configured size
	string(engine.ErrUnknownRef):           true, // tools.call with a ref memidx does not answer
}

// resultError is the error a result carries, in result.error or
// result.coverage.error.
func resultError(v any) *engine.ErrorObject {
	switch r := v.(type) {
	case *engine.RecallPage:
		if r.Error != nil {
			return r.Error
		}
		return r.Coverage.Error
	case *engine.ExpandResult:
		return r.Error
	case *engine.SessionsResult:
		if r.Error != nil {
			return r.Error
		}
		return r.Coverage.Error
	case *engine.CallError:
		return r.Error
	case *engine.WalkPage:
		return r.Error
	case *engine.ToolCatalogResult:
		return r.Error
	case *engine.ToolSearchResult:
		return r.Error
	case *engine.ToolDescribeResult:
		return r.Error
	case *engine.CallResult:
		return resultError(r.Value())
	}
	return nil
}

// domainErrorObject is the wire form of a Go error that carries a memidx
// code, or nil. An error the engine returned as an *ErrorObject goes out
// whole; any other coded error (memory.rebuild's scope errors) keeps its
// code and message only, as serve has always answered it.
func domainErrorObject(err error) *engine.ErrorObject {
	var eo *engine.ErrorObject
	if errors.As(err, &eo) {
		return eo
	}
	if de := engine.DomainError(err); de != nil {
		return &engine.ErrorObject{Code: de.Code, Message: de.Message}
	}
	return nil
}

func invalidParams(format string, a ...any) *engine.ErrorObject {
	return &engine.ErrorObject{Code: string(engine.ErrInvalidRequest), Message: fmt.Sprintf(format, a...)}
}

// decodeParams decodes a params object strictly: unknown fields are
// invalid_request.
func decodeParams(params json.RawMessage, v any, method, shape string) *engine.ErrorObject {
	dec := json.NewDecoder(bytes.NewReader(params))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return invalidParams("%s takes %s: %v", method, shape, err)
	}
	return nil
}

// serverVersion is the module version the binary was built from, else
// "devel" (with the VCS revision when the build recorded one).
func serverVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 12 {
			return "devel+" + s.Value[:12]
		}
	}
	return "devel"
}

// methodInfo describes one method in the initialize answer.
type methodInfo struct {
	Name         string          `json:"name"`
	Description  string          `json:"description"`
	InputSchema  json.RawMessage `json:"inputSchema,omitempty"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
}

// initializeResult is the answer of initialize and rpc.discover.
type initializeResult struct {
	ServerInfo struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	} `json:"serverInfo"`
	// Framing is the framing this connection uses: "line" or
	// "content-length".
	Framing       string       `json:"framing"`
	Methods       []methodInfo `json:"methods"`
	Notifications []methodInfo `json:"notifications"`
	// Errors are the JSON-RPC error codes serve answers with.
	Errors map[string]string `json:"errors"`
}

// initialize lists the server's methods with the schemas tools.describe
// gives for memory.recall, memory.expand and memory.sessions, and serve's
// own for memory.walk and memory.rebuild.
func (s *server) initialize() *initializeResult {
	r := &initializeResult{Framing: s.out.f.String()}
	r.ServerInfo.Name = "memidx"
	r.ServerInfo.Version = serverVersion()
	describe := func(name, desc string) methodInfo {
		m := methodInfo{Name: name, Description: desc}
		if r, err := s.e.DescribeTool(context.Background(), engine.ToolDescribeRequest{Ref: name}); err == nil && r.Descriptor != nil {
			d := r.Descriptor
			m.Description, m.InputSchema, m.OutputSchema = d.Description, d.InputSchema, d.OutputSchema
		}
		return m
	}
	r.Methods = []methodInfo{
		{Name: "initialize", Description: "This answer: server name and version, methods, notifications and error codes. Takes any params."},
		{Name: "rpc.discover", Description: "The same as initialize."},
		describe("memory.recall", "Ranked, bounded evidence from past sessions."),
		describe("memory.expand", "Full records behind a hit."),
		describe("memory.sessions", "The sessions of a scope."),
		{Name: "memory.walk", Description: "The entries of a selection in order, a page at a time: pageSize entries, at most 1 MiB of them; an entry larger than that arrives in chunks with its textRange, the page's next continuing inside it. next is {ref:\"memory.walk\", args}: send it as method and params, or through tools.call; null at the end. The walk is bound to the session's source hash and lineage of its first page (a change answers stale_pointer).",
			InputSchema: engine.WalkPageInputSchema(), OutputSchema: engine.WalkPageOutputSchema()},
		{Name: "memory.rebuild", Description: "Bring the index up to date (warm it), with memory.progress notifications {id, message:\"rebuilding\", done, total, bytesRead}; the result is the summary `memidx rebuild --json` prints.",
			InputSchema: json.RawMessage(rebuildInputSchema), OutputSchema: json.RawMessage(rebuildOutputSchema)},
		{Name: "tools.call", Description: "Dispatch a follow or next token {ref, args} unchanged.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"ref":{"type":"string"},"args":{"type":"object"}},"required":["ref"]}`)},
		{Name: "tools.catalog", Description: "Capability heads {limit?}."},
		{Name: "tools.search", Description: "Capability search {query, limit?} or a bare string."},
		{Name: "tools.describe", Description: "One capability's descriptor with its schemas {ref, descriptorHash?}."},
		{Name: "host.setLive", Description: "Set the connection's live session; every request read after it sees it. {} or null clears it.",
			InputSchema: json.RawMessage(`{"type":["object","null"],"properties":{"sessionFile":{"type":"string"},"leafId":{"type":"string"},"branchIds":{"type":"array","items":{"type":"string"}}},"additionalProperties":false}`)},
	}
	r.Notifications = []methodInfo{
		{Name: "$/cancelRequest", Description: "Client to server, {id}: cancel that call; it answers error -32800.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"id":{"type":["string","number"]}},"required":["id"]}`)},
		{Name: progressMethod, Description: "Server to client, {id, message, elapsedMs, done?, total?, bytesRead?}: the call with that id is still working (\"indexing\", or \"rebuilding\" with counts); \"done\" comes before its answer.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"id":{"type":["string","number","null"]},"message":{"type":"string"},"elapsedMs":{"type":"integer"},"done":{"type":"integer"},"total":{"type":"integer"},"bytesRead":{"type":"integer"}},"required":["id","message"]}`)},
	}
	r.Errors = map[string]string{
		fmt.Sprint(rpcParseError):       "parse error: the message is not JSON, or could not be framed",
		fmt.Sprint(rpcInvalidRequest):   "invalid request: not a JSON-RPC 2.0 request object (an id is a string of valid UTF-8, a number or null), an empty batch, or a batch of more requests than --max-batch",
		fmt.Sprint(rpcMethodNotFound):   "method not found",
		fmt.Sprint(rpcInvalidParams):    "invalid params: memidx refused the arguments; error.data is the memidx error object {code, message} (invalid_request, invalid_scope, invalid_regex, regex_pattern_too_large, unknown_ref)",
		fmt.Sprint(rpcInternalError):    "internal error: memidx itself failed",
		fmt.Sprint(rpcRequestCancelled): "request cancelled by $/cancelRequest",
		fmt.Sprint(rpcLimitExceeded):    "limit exceeded: the answer of a request in a batch did not fit the bytes batch answers may hold (--max-batch-bytes); send it on its own",
	}
	return r
}

const rebuildInputSchema = `{"type":"object","properties":{` +
	`"scope":{"type":"string","default":"global","description":"session, project, global or session:<id-or-path>"},` +
	`"branches":{"type":"string","enum":["active","all"],"default":"active"}},"additionalProperties":false}`

const rebuildOutputSchema = `{"type":"object","properties":{` +
	`"scope":{"type":"string"},"branches":{"type":"string"},"seen":{"type":"integer"},"indexed":{"type":"integer"},` +
	`"unchanged":{"type":"integer"},"rebuilt":{"type":"integer"},"removed":{"type":"integer"},"bytesRead":{"type":"integer"},` +
	`"seconds":{"type":"number"},"coverage":{"type":"object"},` +
	`"error":{"type":"object","properties":{"code":{"type":"string"},"message":{"type":"string"}}}}}`

// rebuild is memory.rebuild {scope?, branches?}: what `memidx rebuild`
// does, with progressMethod notifications {id, message:"rebuilding", done,
// total, bytesRead} at most ten a second (and the last one always).
func (s *server) rebuild(ctx context.Context, id json.RawMessage, params json.RawMessage) (any, error) {
	var p struct {
		Scope    string `json:"scope"`
		Branches string `json:"branches"`
	}
	if eo := decodeParams(params, &p, "memory.rebuild", `{"scope":…,"branches":…}`); eo != nil {
		return nil, eo
	}
	var (
		mu       sync.Mutex
		last     time.Time
		finished bool
		start    = time.Now()
	)
	var progress func(done, total int, bytesRead int64)
	if id != nil {
		progress = func(done, total int, bytesRead int64) {
			mu.Lock()
			defer mu.Unlock()
			now := time.Now()
			if finished || (done < total && now.Sub(last) < 100*time.Millisecond) {
				return
			}
			last = now
			s.notify(progressMethod, progressParams{ID: id, Message: "rebuilding", ElapsedMs: now.Sub(start).Milliseconds(),
				Done: &done, Total: &total, BytesRead: &bytesRead})
		}
	}
	rep, err := rebuildIndex(ctx, s.e, 0, p.Scope, p.Branches, progress)
	mu.Lock()
	finished = true
	mu.Unlock()
	if err != nil {
		return nil, err
	}
	return rep, nil
}

// tools answers tools.catalog, tools.search and tools.describe with
// engine's typed methods. Arguments engine refuses are its *ErrorObject
// (invalid_request), which answerOf makes an invalid-params error.
func (s *server) tools(ctx context.Context, method string, params json.RawMessage) (any, error) {
	switch method {
	case "tools.catalog":
		var r engine.ToolCatalogRequest
		if err := r.UnmarshalJSON(params); err != nil {
			return nil, err
		}
		return s.e.ToolCatalog(ctx, r)
	case "tools.search":
		var r engine.ToolSearchRequest
		if err := r.UnmarshalJSON(params); err != nil {
			return nil, err
		}
		return s.e.SearchTools(ctx, r)
	default:
		var r engine.ToolDescribeRequest
		if err := r.UnmarshalJSON(params); err != nil {
			return nil, err
		}
		return s.e.DescribeTool(ctx, r)
	}
}
