// Command memidx is the command-line face of the memidx library: a thin
// layer that parses flags, calls the library and prints JSON.
//
//	memidx [--agent-dir DIR] [--index-dir DIR] [--cwd DIR] [--config FILE] COMMAND ...
//
// Global flags may stand before or after the command. Every command prints
// one JSON document on stdout (walk prints JSON lines); a failure prints
// {"error":{"code":…,"message":…}} and exits 1. memidx never panics at the
// user: an internal failure is reported as code internal_error.
//
// The logic lives in run(ctx, args, stdin, stdout, stderr), so tests drive
// the CLI in-process.
package main
