// Package mcpopts holds the options of memidx's MCP server and their
// bounds, apart from the server (internal/mcpserver), which is built on the
// MCP SDK. The memidx command parses `memidx mcp`'s flags with them and
// hands the command to memidx-mcp without linking the SDK: the SDK's
// packages (net/http, crypto/tls, encoding/gob, jsonschema) cost every
// one-shot command about 8 ms of process start on a slow machine.
package mcpopts
