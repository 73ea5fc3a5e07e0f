package mcpserver

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/memidx/memidx/engine"
)

// Codes of the failures the MCP server adds to the engine's.
const (
	// codeFailed: memidx itself failed (the index could not be read, …).
	codeFailed = "memidx_failed"
	// codeTooLarge: a result would exceed Options.MaxResultBytes.
	codeTooLarge = "result_too_large"
)

// result makes a tool result of an engine answer: its wire JSON as
// structuredContent, text for a model, isError when it carries a request
// or domain error.
func (s *server) result(ref string, res *engine.CallResult) *mcp.CallToolResult {
	body, err := res.MarshalJSON()
	if err != nil {
		return s.failure(ref, &engine.ErrorObject{Code: codeFailed, Message: "memidx failed: " + err.Error()})
	}
	if res.Unknown != nil {
		ref = ""
	}
	var eo *engine.ErrorObject
	if v := res.Value(); v != nil {
		errors.As(v.Err(), &eo)
	}
	text := render(ref, body)
	return s.bounded(ref, &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: text}},
		StructuredContent: json.RawMessage(body),
		IsError:           eo != nil,
	}, body, text)
}

// failure is the isError result of a failure the engine did not answer
// as a result: its structuredContent is the ref's result shape with only
// the error, so that it still validates against the tool's outputSchema.
func (s *server) failure(ref string, eo *engine.ErrorObject) *mcp.CallToolResult {
	var v map[string]any
	coverage := map[string]any{"complete": false, "reasons": []string{eo.Code}}
	switch ref {
	case "memory.recall":
		v = map[string]any{"total": 0, "hits": []any{}, "next": nil, "coverage": coverage}
	case "memory.expand", "memory.walk":
		v = map[string]any{"session": "", "entries": []any{}, "next": nil}
	case "memory.sessions":
		v = map[string]any{"scope": "", "branches": "", "total": 0, "truncated": false, "sessions": []any{}, "next": nil, "coverage": coverage}
	default:
		v = map[string]any{}
	}
	v["error"] = eo
	body, _ := json.Marshal(v)
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: errorText(eo)}},
		StructuredContent: json.RawMessage(body),
		IsError:           true,
	}
}

// bounded keeps a result within MaxResultBytes: past it the text becomes
// a summary, and a result whose structured content alone is past it is
// the error result_too_large.
func (s *server) bounded(ref string, r *mcp.CallToolResult, body []byte, text string) *mcp.CallToolResult {
	limit := s.opts.MaxResultBytes
	if len(body)+len(text) <= limit {
		return r
	}
	short := summary(ref, body)
	if len(body)+len(short) <= limit {
		r.Content = []mcp.Content{&mcp.TextContent{Text: short}}
		return r
	}
	return s.failure(ref, &engine.ErrorObject{Code: codeTooLarge, Message: fmt.Sprintf(
		"the result (%d bytes) exceeds the %d bytes a result may hold (--max-result-bytes): ask for a smaller page (pageSize, maxChars)",
		len(body), limit)})
}

func errorText(eo *engine.ErrorObject) string {
	return fmt.Sprintf("error %s: %s", eo.Code, eo.Message)
}

func bytesReader(b []byte) *bytes.Reader { return bytes.NewReader(b) }
