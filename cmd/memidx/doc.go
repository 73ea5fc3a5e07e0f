// Command memidx is the command-line face of the memidx library: a thin
// layer that parses flags, calls the library and prints JSON (or, on a
// terminal, a short human form).
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
//	2  usage: an unknown flag, a missing argument, a request that is not
//	   JSON or has an unknown field; one line and a pointer to
//	   'memidx COMMAND --help' on stderr
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
// result_too_large), a message within --max-message-bytes.
//
// The JSON is package engine's, which keeps the wire format of the
// reference (docs/REFERENCE.md).
//
// The logic lives in run(ctx, args, stdin, stdout, stderr), so tests drive
// the CLI in-process: go test ./cmd/memidx -update rewrites the golden
// outputs under testdata/golden.
package main
