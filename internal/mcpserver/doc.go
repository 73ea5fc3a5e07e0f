// Package mcpserver serves memidx's memory tools over the Model Context
// Protocol (MCP), on the official Go SDK: memory_recall, memory_expand,
// memory_sessions, memory_walk and memory_call, one for each engine call.
//
// Each tool's inputSchema is the schema the catalog publishes for its
// request (engine checks it against what it accepts), and each result
// carries structuredContent equal to the engine's wire result, valid
// against the tool's outputSchema, and a short text content for a model:
// hits with their snippets and follow tokens, entries with their text.
// Every token a result hands out (a hit's follow, a page's next, a walk
// page's next naming memory.walk) passes unchanged to memory_call.
//
// A domain or input failure (invalid_request, invalid_regex, stale_pointer,
// …) is a tool result with isError and the code in its text and its
// structuredContent; only an unknown tool or a malformed message is a
// protocol error. A result, text and structured together, stays within
// Options.MaxResultBytes: a walk page takes half of it for its entries (the
// text content repeats their text), an entry larger than that arrives in
// chunks, and any other result over the bound gives its text a summary, or
// is the error result_too_large.
//
// A call that carries _meta.progressToken gets notifications/progress
// while it waits (on indexing, most often), none after its answer; a
// cancelled call stops its work and answers no success. The live session
// is the host's (engine.Options.Live), never a tool argument's.
package mcpserver
