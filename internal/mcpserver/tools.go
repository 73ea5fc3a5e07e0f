package mcpserver

import (
	"context"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/memidx/memidx/engine"
)

// instructions is the server's advice to the host's model, in initialize.
const instructions = "memidx searches this machine's past OMP coding-agent sessions. " +
	"Start with memory_recall; read the snippets; to see a hit whole, pass its follow token unchanged to memory_call. " +
	"Continue any page by passing its next token unchanged to memory_call until next is null. " +
	"coverage.complete=false means an empty or short answer is not proof that nothing exists: the reasons say what was not searched."

// Tool names: underscores, which every host accepts.
const (
	toolRecall   = "memory_recall"
	toolExpand   = "memory_expand"
	toolSessions = "memory_sessions"
	toolWalk     = "memory_walk"
	toolCall     = "memory_call"
)

// refOf is the engine ref each tool calls.
var refOf = map[string]string{
	toolRecall: "memory.recall", toolExpand: "memory.expand", toolSessions: "memory.sessions", toolWalk: "memory.walk",
}

const recallDescription = "Search past OMP coding-agent sessions for evidence: decisions, errors, commands, file edits, what the user asked. " +
	"Modes (queryMode): literal (default) finds the words, any of them unless queryMatch is all - best for rare terms, identifiers, error text; " +
	"natural takes a question in plain English (stemmed, stop words dropped) - best when you do not know the exact words; " +
	"phrase needs the words in order; regex takes an RE2 pattern. " +
	"scope: session (default, the current session), project (this directory's sessions), global (all), or session:<id>. " +
	"Filters (role, tool, outcome, since, until, …) narrow without a query. " +
	"Each hit has a snippet and a follow token: pass follow unchanged to memory_call to read the entry whole (or, for a cold session hit, to search inside that session). " +
	"When next is not null, pass it to memory_call for more hits. " +
	"coverage.complete=false means the answer may miss matches (reasons say why, e.g. sessions not indexed yet); do not conclude that something never happened from an incomplete empty answer."

const expandDescription = "Read full session entries: by indices, entryIds, operationAddresses or an entryRange of one session, with before/after context around one entry. " +
	"Usually you do not call this directly: pass a hit's follow token to memory_call, or copy its args here and add before/after. " +
	"Long entries come in chunks with textRange {start,end,total,complete}; when next is not null pass it to memory_call for the rest. " +
	"stale_pointer means the session changed since the token was issued: search again."

const sessionsDescription = "List the sessions in a scope (session, project, global), newest first: id, file, cwd, time, entry count, tier. " +
	"Use it to find a session id for memory_walk, memory_expand or a session:<id> recall scope. Continue with next via memory_call."

const walkDescription = "Read a whole session (or a selection of it) in order, one bounded page at a time: the tool for summarising or scanning a session end to end. " +
	"Give session (an id from memory_sessions or a hit's sessionId) and optionally a selection like memory_expand's. " +
	"Each page holds complete entries; an entry larger than a page arrives in chunks with textRange, the next page continuing inside it. " +
	"Pass next unchanged to memory_call (it names memory.walk) until next is null. " +
	"The walk is bound to the session's version of its first page: stale_pointer means the session changed; start again."

const callDescription = "Continue or follow: pass a follow or next token from any memidx result here unchanged, as {ref, args}. " +
	"ref memory.recall, memory.expand, memory.sessions or memory.walk (memidx's own extension for paging a walk). " +
	"To change a token (for instance add before/after context), edit its args and keep everything else."

// callInputSchema is memory_call's input: a token.
const callInputSchema = `{"type":"object","properties":{` +
	`"ref":{"type":"string","enum":["memory.recall","memory.expand","memory.sessions","memory.walk"],"description":"the token's ref"},` +
	`"args":{"type":"object","description":"the token's args, unchanged"}},` +
	`"required":["ref","args"],"additionalProperties":false}`

// callErrorSchema is the result of a call memidx cannot dispatch.
const callErrorSchema = `{"type":"object","properties":{"error":{"type":"object","properties":{"code":{"type":"string"},"message":{"type":"string"}},"required":["code","message"]}},"required":["error"]}`

type tool struct {
	tool    *mcp.Tool
	handler mcp.ToolHandler
}

// schemas are the input and output schemas of each ref.
func schemas() map[string][2]json.RawMessage {
	out := map[string][2]json.RawMessage{
		"memory.walk": {engine.WalkPageInputSchema(), engine.WalkPageOutputSchema()},
	}
	for _, a := range engine.MemoryCatalogProvider().Actions {
		out["memory."+a.Name] = [2]json.RawMessage{a.InputSchema, a.OutputSchema}
	}
	return out
}

// callOutputSchema is any of the refs' results, or an unknown ref's error.
func callOutputSchema(sch map[string][2]json.RawMessage) json.RawMessage {
	alts := []json.RawMessage{}
	for _, ref := range []string{"memory.recall", "memory.expand", "memory.sessions", "memory.walk"} {
		alts = append(alts, sch[ref][1])
	}
	alts = append(alts, json.RawMessage(callErrorSchema))
	b, _ := json.Marshal(map[string]any{"type": "object", "anyOf": alts})
	return b
}

func (s *server) tools() []tool {
	sch := schemas()
	readOnly := &mcp.ToolAnnotations{ReadOnlyHint: true, IdempotentHint: true, OpenWorldHint: new(bool)}
	mk := func(name, title, desc string, in, out json.RawMessage, h mcp.ToolHandler) tool {
		a := *readOnly
		a.Title = title
		return tool{&mcp.Tool{Name: name, Title: title, Description: desc, InputSchema: in, OutputSchema: out, Annotations: &a}, h}
	}
	byRef := func(name string) mcp.ToolHandler {
		return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return s.call(ctx, req, refOf[name], req.Params.Arguments)
		}
	}
	return []tool{
		mk(toolRecall, "Recall from past sessions", recallDescription, sch["memory.recall"][0], sch["memory.recall"][1], byRef(toolRecall)),
		mk(toolExpand, "Expand session entries", expandDescription, sch["memory.expand"][0], sch["memory.expand"][1], byRef(toolExpand)),
		mk(toolSessions, "List sessions", sessionsDescription, sch["memory.sessions"][0], sch["memory.sessions"][1], byRef(toolSessions)),
		mk(toolWalk, "Walk a session", walkDescription, sch["memory.walk"][0], sch["memory.walk"][1], byRef(toolWalk)),
		mk(toolCall, "Follow or continue a token", callDescription, json.RawMessage(callInputSchema), callOutputSchema(sch), s.callToken),
	}
}

// callToken is memory_call: a {ref, args} token dispatched unchanged.
func (s *server) callToken(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var tok struct {
		Ref  string          `json:"ref"`
		Args json.RawMessage `json:"args"`
	}
	dec := json.NewDecoder(bytesReader(orEmpty(req.Params.Arguments)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&tok); err != nil || tok.Ref == "" {
		return s.failure("", &engine.ErrorObject{Code: string(engine.ErrInvalidRequest),
			Message: `memory_call takes a token {"ref": …, "args": {…}}, as a follow or next gives it`}), nil
	}
	return s.call(ctx, req, tok.Ref, tok.Args)
}
