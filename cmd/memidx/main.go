package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"

	"github.com/memidx/memidx/catalog"
	"github.com/memidx/memidx/engine"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// globals are the flags every command accepts, before or after its name.
type globals struct {
	agentDir     string
	indexDir     string
	cwd          string
	config       string
	sessionDir   string
	trustProject bool
	pretty       bool
	// live is the host's live session from a command's --live-* flags:
	// the engine's, never a request argument.
	live *engine.StaticLive
}

// cliError is a failure reported to the user as JSON with a stable code.
type cliError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

func (e *cliError) Error() string { return e.Code + ": " + e.Message }

func usageError(format string, a ...any) error {
	return &cliError{Code: "usage", Message: fmt.Sprintf(format, a...)}
}

const usage = `memidx: fast, exact, branch-aware recall over OMP session files

usage: memidx [--agent-dir DIR] [--index-dir DIR] [--cwd DIR] [--config FILE]
              [--session-dir DIR] [--trust-project] [--pretty] COMMAND ...

commands:
  recall [JSON|-] [-q TEXT] [--mode literal|phrase|regex] [--match any|all] [--scope S]
         [--branches active|all] [--role R] [--tool T] [--ref R] [--provider P] [--action A]
         [--outcome O] [--since T] [--until T] [--page-size N] [--offset N] [--snippet-chars N]
         [--live-session FILE --live-leaf ID --live-branch ID,ID,…]
      ranked, bounded evidence; every hit carries a copy-ready follow call
  expand JSON|-     full records behind a hit (follow its "follow" with call)
  sessions [JSON|-] [--scope S] [--limit N]
  call JSON|-       dispatch any follow or next token unchanged
  walk JSON|-       every complete entry of a selection, one JSON line each
      (expand, sessions, call and walk take the --live-* flags too: the live
      session is the host's; a request's own "live" is refused)
  catalog [--catalog FILE] [search QUERY | describe REF]
      capability heads (never memory evidence)
  serve --stdio [--catalog FILE] [--live-session FILE --live-leaf ID --live-branch ID,…]
      JSON-RPC 2.0 over stdin/stdout, one message per line or Content-Length
      framed, batches, $/cancelRequest, $/progress: initialize, memory.recall,
      memory.expand, memory.sessions, memory.walk (pages), memory.rebuild,
      tools.call, tools.catalog, tools.search, tools.describe; host.setLive
      {sessionFile, leafId, branchIds} sets the connection's live session
      for every request read after it
  gen --out DIR [--sessions N] [--seed S] [--scale F]
      write a deterministic realistic corpus with a manifest of planted facts
  bench [--corpus DIR | --sessions N] [--runs N] [--json]
      speed, size and correctness on a corpus; exits 1 when a check fails
  rebuild [--scope session|project|global|session:<id-or-path>] [--branches active|all] [--json]
      bring the index up to date (default scope: global)
  inspect index [--json]
      every record of the index, with totals
  inspect session <id-or-path> [--branches active|all] [--json]
      refresh one session and describe its record
  inspect lineage FILE [--branches active|all]
      records, leaf and active branch exactly as the OMP host sees them
  inspect entries FILE [--branches active|all] [--index-thinking]
                       [--no-index-tool-output] [--max-entry-chars N]
      the normalized entries of a session
  inspect tokens TEXT
      the canonical tokens of TEXT

Output is JSON on stdout. On failure: {"error":{"code":…,"message":…}} and exit 1.
`

// run is the whole CLI; main only wires the process to it.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	defer func() {
		if r := recover(); r != nil {
			writeError(stdout, &cliError{Code: "internal_error", Message: fmt.Sprintf("memidx failed: %v", r)})
			fmt.Fprintf(stderr, "%s\n", debug.Stack())
			code = 1
		}
	}()
	g, rest, err := splitGlobals(args)
	if err == nil && len(rest) == 0 {
		err = usageError("no command given")
	}
	if err == nil {
		switch rest[0] {
		case "help", "-h", "--help":
			fmt.Fprint(stdout, usage)
			return 0
		case "inspect":
			err = cmdInspect(ctx, g, rest[1:], stdin, stdout)
		case "rebuild":
			err = cmdRebuild(ctx, g, rest[1:], stdout, stderr)
		case "recall":
			err = cmdRecall(ctx, g, rest[1:], stdin, stdout)
		case "expand":
			err = cmdExpand(ctx, g, rest[1:], stdin, stdout)
		case "sessions":
			err = cmdSessions(ctx, g, rest[1:], stdin, stdout)
		case "call":
			err = cmdCall(ctx, g, rest[1:], stdin, stdout)
		case "walk":
			err = cmdWalk(ctx, g, rest[1:], stdin, stdout)
		case "serve":
			err = cmdServe(ctx, g, rest[1:], stdin, stdout)
		case "catalog":
			err = cmdCatalog(ctx, g, rest[1:], stdout)
		case "gen":
			err = cmdGen(ctx, g, rest[1:], stdout)
		case "bench":
			err = cmdBench(ctx, g, rest[1:], stdout, stderr)
		default:
			err = usageError("unknown command %q", rest[0])
		}
	}
	var sf *silentFailure
	if errors.As(err, &sf) {
		fmt.Fprintln(stderr, "memidx:", sf.msg)
		return 1
	}
	if err != nil {
		writeError(stdout, err)
		var ce *cliError
		if errors.As(err, &ce) && ce.Code == "usage" {
			fmt.Fprint(stderr, usage)
		}
		return 1
	}
	return 0
}

// splitGlobals takes the global flags out of args wherever they stand and
// returns the rest in order.
func splitGlobals(args []string) (globals, []string, error) {
	var g globals
	var rest []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			rest = append(rest, args[i:]...)
			break
		}
		name, val, hasVal := strings.Cut(a, "=")
		var dst *string
		switch name {
		case "--agent-dir":
			dst = &g.agentDir
		case "--index-dir":
			dst = &g.indexDir
		case "--cwd":
			dst = &g.cwd
		case "--config":
			dst = &g.config
		case "--session-dir":
			dst = &g.sessionDir
		case "--pretty", "--trust-project":
			if hasVal {
				return g, nil, usageError("%s takes no value", name)
			}
			if name == "--pretty" {
				g.pretty = true
			} else {
				g.trustProject = true
			}
			continue
		default:
			rest = append(rest, a)
			continue
		}
		if !hasVal {
			if i+1 >= len(args) {
				return g, nil, usageError("%s needs a value", name)
			}
			i++
			val = args[i]
		}
		*dst = val
	}
	return g, rest, nil
}

// writeError prints err as {"error":{"code":…,"message":…}}; a domain
// error keeps its code.
func writeError(w io.Writer, err error) {
	var ce *cliError
	var eo *engine.ErrorObject
	if !errors.As(err, &ce) {
		if errors.As(err, &eo) {
			ce = &cliError{Code: eo.Code, Message: eo.Message}
		} else if de := engine.DomainError(err); de != nil {
			ce = &cliError{Code: de.Code, Message: de.Message}
		} else {
			ce = &cliError{Code: "error", Message: err.Error()}
		}
	}
	writeJSON(w, false, map[string]any{"error": ce})
}

func writeJSON(w io.Writer, pretty bool, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	if pretty {
		enc.SetIndent("", "  ")
	}
	return enc.Encode(v)
}

// openEngine builds the engine the global flags describe.
func openEngine(g globals) (*engine.Engine, error) { return openEngineWith(g, "", nil) }

// answer opens the engine the global flags describe, asks it one question
// and writes the answer as JSON.
func answer[R any](g globals, stdout io.Writer, ask func(*engine.Engine) (R, error)) error {
	e, err := openEngine(g)
	if err != nil {
		return err
	}
	res, err := ask(e)
	if err != nil {
		return err
	}
	return writeJSON(stdout, g.pretty, res)
}

// openEngineWith also loads a capability catalog file.
func openEngineWith(g globals, catalogFile string, live engine.LiveSession) (*engine.Engine, error) {
	opt := engine.Options{
		AgentDir:     g.agentDir,
		IndexDir:     g.indexDir,
		Cwd:          g.cwd,
		ConfigFile:   g.config,
		SessionDir:   g.sessionDir,
		TrustProject: g.trustProject,
	}
	switch {
	case live != nil:
		opt.Live = live
	case g.live != nil:
		opt.Live = *g.live
	}
	if catalogFile != "" {
		c, err := catalog.Load(catalogFile)
		if err != nil {
			return nil, &cliError{Code: "invalid_catalog", Message: err.Error()}
		}
		opt.Catalog = c
	}
	return engine.Open(opt)
}

// isTerminal reports whether w is a terminal (a character device).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
