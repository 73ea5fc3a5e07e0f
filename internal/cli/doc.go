// Package cli is memidx's command line (commands memidx and memidx-mcp):
// the command-line face of the memidx library, a thin layer that parses
// flags, calls the library and prints JSON (or, on a terminal, a short
// human form).
//
//	memidx [--agent-dir DIR] [--index-dir DIR] [--cwd DIR] [--config FILE] COMMAND ...
//
// Global flags may stand before or after the command; relative directories
// are taken from the shell's working directory. Every command prints one
// JSON document on stdout when stdout is not a terminal (walk prints JSON
// lines). Exit status, for every command:
//
//	0  the request was answered, also with no hits or incomplete coverage
//	1  the request was answered with an error (the answer's "error" says
//	   which: session_not_found, stale_pointer, invalid_regex, …) or memidx
//	   itself failed ({"error":{"code":…,"message":…}})
//	2  usage: an unknown command or flag (with a "did you mean"), a
//	   missing argument, a flag value outside its allowed set (listed),
//	   a request that is not JSON or has an unknown field; one line and
//	   a pointer to 'memidx COMMAND --help' on stderr. The same bad
//	   value inside a JSON request is the request's invalid_request
//	   (exit 1).
//	130  interrupted by SIGINT; what was written before stays written
//
// Every command, flag and allowed flag value is declared once, in the
// command table (table.go, help.go): the parser checks each command's
// flag set against it, and the help, the suggestions and the shell
// completion scripts (memidx completion bash|zsh|fish) are made from it.
// The allowed values of enum flags are engine's (engine.Roles, …).
//
// Output: JSON when stdout is not a terminal, the human form on one;
// --format text|json (--human, --json) chooses. The human form is
// coloured under --color auto (a terminal, NO_COLOR unset, TERM not
// dumb) or always. Notices about normal operation (the default scope at
// a shell, entries cut at maxEntryChars) stay in the JSON but are left
// out of the human form unless --verbose.
//
// memidx never panics at the user: an internal failure is reported as code
// internal_error.
//
// serve bounds what a client can make it hold, whatever it sends: the
// requests of a batch (--max-batch), the batch answers kept until their
// batch is complete (--max-batch-bytes) and the answers the client has not
// read (--max-queued-bytes; past it serve stops reading: back-pressure).
// Its progress notification is memory.progress {id, message, …}.
//
// mcp serves the memory tools over the Model Context Protocol (package
// internal/mcpserver) with serve's engine and trust rules: the live
// session comes from the --live-* flags only. A tool result stays within
// --max-result-bytes (default 1 MiB; past it the tool error
// result_too_large), a message within --max-message-bytes. The MCP SDK
// is linked into memidx-mcp only: memidx runs memidx-mcp (beside it, else
// on PATH) in its own place for this command, so that every other command
// starts without the SDK's packages (handoff.go).
//
// A one-shot recall, expand, sessions, walk or call first asks a running
// server of its index directory (serve --stdio, serve --socket) over the
// socket <index dir>/memidx.sock (internal/sockserve): the server runs the
// same command line with the client's own settings over its warm engine
// (engine.Derive) and streams the output and exit code back, byte for byte
// what the command would have printed. The command answers itself,
// silently, when no server listens, it declines (another build, time
// zone, directory or configuration), it is busy, or it has not accepted
// within serverFirstByte (50 ms); --no-server and MEMIDX_NO_SERVER=1
// skip it (socket*.go, docs/SERVER.md).
//
// The JSON is package engine's, which keeps the wire format of the
// reference (docs/REFERENCE.md).
//
// The logic lives in run(ctx, args, stdin, stdout, stderr), so tests drive
// the CLI in-process: go test ./cmd/memidx -update rewrites the golden
// outputs under testdata/golden.
package cli
