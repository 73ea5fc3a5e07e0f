package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/memidx/memidx/engine"
)

// globalFlags are the flags every command accepts, before or after its
// name (splitGlobals).
var globalFlags = []flagSpec{
	{names: []string{"agent-dir"}, arg: "DIR", help: "OMP's agent directory (default: found as OMP finds it)", global: func(g *globals, v string) { g.agentDir = v }},
	{names: []string{"index-dir"}, arg: "DIR", help: "where the index lives (default <agent-dir>/fabric/memory-index)", global: func(g *globals, v string) { g.indexDir = v }},
	{names: []string{"session-dir"}, arg: "DIR", help: "an explicit flat session directory", global: func(g *globals, v string) { g.sessionDir = v }},
	{names: []string{"cwd"}, arg: "DIR", help: "the project directory (default: the working directory)", global: func(g *globals, v string) { g.cwd = v }},
	{names: []string{"config"}, arg: "FILE", help: "the configuration (default <agent-dir>/fabric.json)", global: func(g *globals, v string) { g.config = v }},
	{names: []string{"trust-project"}, help: "apply <cwd>/.omp/fabric.json too", global: func(g *globals, _ string) { g.trustProject = true }},
	{names: []string{"format"}, arg: "F", values: formats, help: "output form (default: text on a terminal, else json)", global: func(g *globals, v string) { g.format = v }},
	{names: []string{"json"}, help: "--format json", global: func(g *globals, _ string) { g.format = formatJSON }},
	{names: []string{"human"}, help: "--format text (the human form, also into a pipe)", global: func(g *globals, _ string) { g.format = formatText }},
	{names: []string{"pretty"}, help: "indented JSON", global: func(g *globals, _ string) { g.pretty = true }},
	{names: []string{"color"}, arg: "WHEN", values: colors, help: "colour the human form (default auto)", global: func(g *globals, v string) { g.color = v }},
	{names: []string{"verbose"}, help: "also the notices of normal operation", global: func(g *globals, _ string) { g.verbose = true }},
	{names: []string{"no-server"}, help: "answer here, not through a running server (also MEMIDX_NO_SERVER=1)", global: func(g *globals, _ string) { g.noServer = true }},
}

// commands is the command table (table.go), in the order of memidx --help.
var commands = []command{
	{name: "recall", synopsis: "[QUERY...|JSON|-] [flags]", list: "recall [QUERY|JSON|-]", summary: "ranked, bounded evidence; every hit has a follow call",
		about: `Ranked, bounded evidence: entry hits of hot sessions and cold session
candidates; every hit carries a copy-ready follow call (memidx call).
QUERY is words (as -q); a JSON request object or - (stdin) is the wire form.
Without a live session the scope is project, not session.`,
		flags: join([]flagSpec{
			{names: []string{"q", "query"}, arg: "TEXT", help: "query text"},
			{names: []string{"mode"}, arg: "M", values: modes, help: "query mode (default literal)"},
			{names: []string{"match"}, arg: "M", values: matches, help: "literal queries only (default any)"},
			scopeFlag,
			branchesFlag,
			{names: []string{"role"}, arg: "ROLE", values: engine.Roles, help: "entries of this role"},
			{names: []string{"tool"}, arg: "T", help: "entries of this tool"},
			{names: []string{"ref"}, arg: "R", help: "entries of this capability ref"},
			{names: []string{"provider"}, arg: "P", help: "entries of this provider"},
			{names: []string{"action"}, arg: "A", help: "entries of this action"},
			{names: []string{"outcome"}, arg: "O", values: engine.Outcomes, help: "entries with this outcome"},
			{names: []string{"since"}, arg: "T", help: `epoch ms, ISO date, 7d, 3h, "3 weeks ago", yesterday`},
			{names: []string{"until"}, arg: "T", help: "as --since (both inclusive)"},
			{names: []string{"page-size", "limit"}, arg: "N", help: "hits per page, 1..50 (default 10)"},
			{names: []string{"offset"}, arg: "N", help: "skip this many ranked hits"},
			{names: []string{"snippet-chars"}, arg: "N", help: "snippet length, 80..2000 (default 480)"},
			{names: []string{"context-next"}, arg: "N", help: "the N entries after each entry hit, 0..3 (memidx's extension)"},
		}, liveFlagSpecs)},
	{name: "expand", synopsis: "SESSION [-n INDEX[,INDEX…]] [--entry-id ID] [-C K] [flags]\n       memidx expand JSON|-", list: "expand SESSION -n N", summary: "full records behind a hit (or a JSON request)",
		about: `Full, untruncated records behind a hit, in chunks (follow "next" with
memidx call). SESSION is an id, a unique id prefix (8 characters or more)
or a path. Without a selector: the session's entry count and first page.`,
		flags: join(selectorFlags, liveFlagSpecs)},
	{name: "walk", synopsis: "SESSION [-n INDEX…] [--entry-id ID] [-C K] [flags]\n       memidx walk JSON|-", list: "walk SESSION", summary: "every complete entry, one JSON line each",
		about: `Every complete entry of a selection (the whole session without one), one
JSON line each: memidx walk 0198f2a4 | jq 'select(.outcome=="failed")'.
Stdout holds only entries. A walk that ends before the whole selection
(walk_deadline, a stale_pointer when the session changes mid-walk, an
interrupt) says so on stderr after the entries it visited and exits 1
(130 when interrupted).`,
		flags: join(selectorFlags, []flagSpec{{names: []string{"timeout"}, arg: "D", help: "end the walk after D (e.g. 30s, 2m; default 5m)"}}, liveFlagSpecs)},
	{name: "sessions", synopsis: "[JSON|-] [flags]", list: "sessions", summary: "sessions of a scope with tier, counts and coverage",
		about: `Sessions of a scope, newest first, with tier, counts and coverage. Without
a live session the scope is project.`,
		flags: join([]flagSpec{scopeFlag, branchesFlag,
			{names: []string{"limit", "page-size"}, arg: "N", help: "rows per page (1..maxSessions)"},
			{names: []string{"offset"}, arg: "N", help: "skip this many rows"},
		}, liveFlagSpecs)},
	{name: "call", synopsis: "JSON|- [flags]", list: "call JSON|-", summary: "dispatch a hit's follow or a page's next unchanged",
		about: `Dispatch a hit's follow or a page's next token unchanged:
memory.recall, memory.expand, memory.sessions or memory.walk.`,
		flags: liveFlagSpecs},
	{name: "catalog", synopsis: "[flags] [search QUERY | describe REF]", list: "catalog", summary: "capability heads (never memory evidence)", args: []string{"search", "describe"},
		about: `Capability heads (never memory evidence): the catalog, a search of it, or
one action's full description.`,
		flags: []flagSpec{
			{names: []string{"catalog"}, arg: "FILE", help: "capability catalog JSON file (default: the built-in memory provider)"},
			{names: []string{"limit"}, arg: "N", help: "at most this many actions or hits"},
		}},
	{name: "serve", synopsis: "--stdio|--socket [flags]", list: "serve --stdio|--socket", summary: "JSON-RPC 2.0 for non-Go hosts; answers shell commands",
		about: `JSON-RPC 2.0 over stdin/stdout, one message per line or Content-Length
framed, batches, $/cancelRequest, memory.progress: initialize, memory.recall,
memory.expand, memory.sessions, memory.walk (pages), memory.rebuild,
tools.call, tools.catalog, tools.search, tools.describe; host.setLive
{sessionFile, leafId, branchIds} sets the connection's live session for
every request read after it. See docs/SERVE.md.

The server watches the session directories it has listed (inotify, on
Linux) and lists again only what changed; --no-watch lists and stats every
session file on each call instead. Answers are the same either way.

Limits: a batch larger than --max-batch is refused with one
invalid-request error; an answer held past --max-batch-bytes is error
-32001 naming the limit; past --max-queued-bytes or --max-pending-bytes
serve stops reading requests until the client reads.

Either way the server also listens on <index dir>/memidx.sock (mode 0600,
this user only; not on Windows): a one-shot recall, expand, sessions, walk
or call of the same index directory is answered by it, with the shell's
own settings. --socket serves only that, in the foreground, until
interrupted or terminated; --no-socket leaves the socket out. See
docs/SERVER.md.`,
		flags: join([]flagSpec{
			{names: []string{"stdio"}, help: "serve JSON-RPC on stdin/stdout"},
			{names: []string{"socket"}, help: "serve only shell commands, on the index directory's socket"},
			{names: []string{"no-socket"}, help: "do not answer shell commands on the socket"},
			{names: []string{"catalog"}, arg: "FILE", help: "capability catalog JSON file"},
			{names: []string{"no-watch"}, help: "list and stat every session file on each call"},
		}, liveFlagSpecs, []flagSpec{
			{names: []string{"max-batch"}, arg: "N", help: "requests a batch may hold (default 1000)"},
			{names: []string{"max-batch-bytes"}, arg: "N", help: "batch answers held until complete (default 64 MiB)"},
			{names: []string{"max-queued-bytes"}, arg: "N", help: "answers the client has not read (default 64 MiB)"},
			{names: []string{"max-pending-bytes"}, arg: "N", help: "arguments of calls read and not yet answered"},
		})},
	{name: "mcp", synopsis: "[flags]", list: "mcp", summary: "the memory tools for MCP hosts (Claude Code, Cursor, …)",
		about: `The memory tools over the Model Context Protocol on stdin/stdout (newline-
delimited JSON-RPC; stdout carries only MCP messages): memory_recall,
memory_expand, memory_sessions, memory_walk and memory_call. Every follow
or next token a result hands out passes unchanged to memory_call. The live
session is the host's (--live-* flags), never a tool argument's. The
server exits 0 when stdin closes. memidx runs memidx-mcp (beside it, else
on PATH) for this command, so that no other command loads the MCP SDK;
install both with go install github.com/memidx/memidx/cmd/...@latest.
See "From an MCP host" in README.md.

Limits: a tool result, text and structured content together, stays within
--max-result-bytes (default 1 MiB, at least 128 KiB): a walk page holds
half of it in entries, an entry larger than that arrives in chunks with its
textRange, and a result still past it is the tool error result_too_large.
One inbound message holds at most --max-message-bytes (default 16 MiB).
Like serve, it answers the shell's one-shot commands on the index
directory's socket (docs/SERVER.md) unless --no-socket.

A call that carries a progress token and runs longer than --progress-after
(default 250ms) gets notifications/progress every --progress-every (default
1s) until its answer.`,
		flags: join([]flagSpec{
			{names: []string{"catalog"}, arg: "FILE", help: "capability catalog JSON file"},
			{names: []string{"no-watch"}, help: "list and stat every session file on each call"},
			{names: []string{"no-socket"}, help: "do not answer shell commands on the socket"},
		}, liveFlagSpecs, []flagSpec{
			{names: []string{"max-result-bytes"}, arg: "N", help: "bytes a tool result may hold (default 1 MiB, at least 128 KiB)"},
			{names: []string{"max-message-bytes"}, arg: "N", help: "bytes an inbound message may hold (default 16 MiB)"},
			{names: []string{"progress-after"}, arg: "D", help: "a call's first progress notification after D (default 250ms)"},
			{names: []string{"progress-every"}, arg: "D", help: "time between progress notifications (default 1s)"},
		})},
	{name: "rebuild", synopsis: "[flags]", list: "rebuild", summary: "bring the index up to date",
		about: `Bring the index up to date (default scope: global), with a progress bar on
a terminal. The summary adds jobs, bytesPerSecond, peakRSSBytes and the
failed sessions, counted by reason (failedBy); the exit status is 1 when any
session failed. A write the index file does not take (a full disk, a file
size limit) fails the sessions it held, with the error (writeError).`,
		flags: []flagSpec{
			{names: []string{"scope"}, arg: "S", help: "session, project, global (default) or session:<id-or-path>", hints: scopeHints},
			branchesFlag,
			{names: []string{"json"}, help: "print one JSON summary"},
			{names: []string{"jobs"}, arg: "N", help: "sessions read and built at once (default GOMAXPROCS)"},
			{names: []string{"force"}, help: "rebuild every selected session, changed or not"},
		}},
	{name: "inspect", synopsis: "SUBJECT ...", list: "inspect SUBJECT", summary: "lineage, entries, tokens, index or session", args: inspectSubjects,
		about: `  inspect lineage SESSION   records, leaf and active branch as the OMP host sees them
  inspect entries SESSION   the normalized entries of a session
  inspect tokens TEXT|-     the canonical tokens of TEXT
  inspect index             every record of the index, with totals
  inspect session SESSION   refresh one session and describe its record

SESSION is an id, a unique id prefix or a path.`},
	{name: "inspect lineage", synopsis: "SESSION [flags]",
		about: `Records, leaf, active branch and lineage fingerprint of a session file
exactly as the OMP host sees them. SESSION is an id, a unique id prefix
or a path.`,
		flags: []flagSpec{branchesFlag}},
	{name: "inspect entries", synopsis: "SESSION [flags]",
		about: `The normalized entries of a session file. SESSION is an id, a unique id
prefix or a path.`,
		flags: []flagSpec{branchesFlag,
			{names: []string{"index-thinking"}, help: "include thinking blocks"},
			{names: []string{"no-index-tool-output"}, help: "leave tool output out"},
			{names: []string{"max-entry-chars"}, arg: "N", help: "cut each entry's text after N characters (0: no cut)"},
		}},
	{name: "inspect tokens", synopsis: "TEXT|-", about: `The canonical tokens of TEXT (or of stdin).`},
	{name: "inspect index", synopsis: "[--json] [--storage]",
		about: `Every record of the index, with totals (on a terminal: the totals, sizes
and cache/source ratios; --json for the records). --storage also reads and
verifies every value of the index file and shows where its bytes go, per
bucket (values, keys, checksums, pages allocated and in use).`,
		flags: []flagSpec{jsonFlag, {names: []string{"storage"}, help: "also show where the index file's bytes go, per bucket"}}},
	{name: "inspect session", synopsis: "SESSION [flags]",
		about: `Refresh one session (an id, a unique id prefix or a path) and describe its
record.`,
		flags: []flagSpec{jsonFlag, branchesFlag}},
	{name: "gen", synopsis: "--out DIR [flags]", list: "gen, bench", summary: "synthetic corpora and benchmarks",
		about: `Write a deterministic realistic corpus with a manifest of planted facts.`,
		flags: []flagSpec{
			{names: []string{"out"}, arg: "DIR", help: "output directory (sessions/ and manifest.json)"},
			{names: []string{"sessions"}, arg: "N", help: "top-level sessions to write (default 200)"},
			{names: []string{"seed"}, arg: "S", help: "corpus seed (same seed, same bytes; default 1)"},
			{names: []string{"scale"}, arg: "F", help: "session size multiplier (1: about 0.5 MB a session)"},
			{names: []string{"projects"}, arg: "N", help: "working directories (default 8)"},
		}},
	{name: "bench", synopsis: "[--corpus DIR | --sessions N] [flags]",
		about: `Speed, size and correctness on a corpus; exits 1 when a check fails.`,
		flags: []flagSpec{
			{names: []string{"corpus"}, arg: "DIR", help: "a corpus made by memidx gen (default: generate one)"},
			{names: []string{"sessions"}, arg: "N", help: "sessions to generate without --corpus (default 200)"},
			{names: []string{"scale"}, arg: "F", help: "session size multiplier of a generated corpus"},
			{names: []string{"seed"}, arg: "S", help: "seed of a generated corpus"},
			{names: []string{"runs"}, arg: "N", help: "repetitions of each latency (default 20)"},
			{names: []string{"json"}, help: "print the report as JSON"},
		}},
	{name: "eval", synopsis: "SET.jsonl|- [flags]", list: "eval SET.jsonl", summary: "recall quality on a labelled set (R@k, MRR)",
		about: `Ask every question of a labelled set through recall (in-process) and
report R@1, R@5, R@10 and MRR at entry and at session level, and how
well pages tell answered from unanswerable. SET is JSONL:
{"query", "expected": [{"sessionId", "entryId"}]} (an empty list is a
must-abstain question), or OMP-MemBench's {"query", "expectedEpisodes":
[{"sessionId", "ordinal"}], "mustAbstain"}. The sessions are those of
--agent-dir (or --session-dir); without --index-dir the index is built
in a temporary directory and removed. The global --verbose lists the
questions whose evidence is not first.`,
		flags: []flagSpec{
			{names: []string{"mode"}, arg: "M", values: modes, help: "query mode (default literal)"},
			{names: []string{"match"}, arg: "M", values: matches, help: "literal queries only (default any)"},
			branchesFlag,
			{names: []string{"scope"}, arg: "S", help: "the scope of every question (default global)", hints: scopeHints},
			{names: []string{"page-size"}, arg: "N", help: "hits per question, 1..50 (default 10)"},
			{names: []string{"weak-below"}, arg: "C", help: "count pages whose queryCoverage is under C"},
			{names: []string{"min-r1"}, arg: "X", help: "exit 1 when entry R@1 is below X"},
			{names: []string{"min-r5"}, arg: "X", help: "exit 1 when entry R@5 is below X"},
			{names: []string{"min-mrr"}, arg: "X", help: "exit 1 when entry MRR is below X"},
		}},
	{name: "completion", synopsis: "bash|zsh|fish", list: "completion SHELL", summary: "a completion script for bash, zsh or fish", args: completionShells,
		about: `Print a completion script for the shell, made from the same command table
the parser reads:

  bash:  source <(memidx completion bash)     (in ~/.bashrc)
  zsh:   source <(memidx completion zsh)      (in ~/.zshrc, after compinit)
  fish:  memidx completion fish > ~/.config/fish/completions/memidx.fish`},
	{name: "version", synopsis: "", list: "version", summary: "module version and VCS revision (also --version)",
		about: `The module version and VCS revision the binary was built from.`},
	{name: "help", synopsis: "[COMMAND [SUBJECT]]", about: `The help of memidx or of a command.`},
}

// inspectSubjects are inspect's subjects, from the table.
var inspectSubjects = []string{"lineage", "entries", "tokens", "index", "session"}

// usageText is memidx --help.
func usageText() string {
	var b strings.Builder
	b.WriteString(`memidx: fast, exact, branch-aware recall over OMP session files

usage: memidx [global flags] COMMAND [flags] [args]

commands:
`)
	for _, c := range commands {
		if c.list != "" {
			fmt.Fprintf(&b, "  %-24s%s\n", c.list, c.summary)
		}
	}
	b.WriteString("\nglobal flags (before or after the command):\n")
	writeFlags(&b, globalFlags)
	b.WriteString(`
Relative directories are taken from the shell's working directory.
Output is JSON when stdout is not a terminal (--human prints the human
form anyway). Colour (auto) needs a terminal, NO_COLOR unset and TERM
not dumb. Exit status: 0 answered (also with no hits), 1 answered
with an error, a walk cut short or a failure, 2 usage error (also a flag
value outside its allowed set), 130 interrupted (SIGINT).
Run 'memidx COMMAND --help' for a command's flags.
`)
	return b.String()
}

// commandHelp is the help of a command ("inspect lineage" for a subject),
// "" for an unknown one.
func commandHelp(name string) string {
	c := lookupCommand(name)
	if c == nil {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "usage: memidx %s %s\n\n%s\n", c.name, c.synopsis, c.about)
	if len(c.flags) > 0 {
		b.WriteString("\nflags:\n")
		writeFlags(&b, c.flags)
	}
	return b.String()
}

// flagColumn is where a flag's help starts.
const flagColumn = 26

// writeFlags writes one line per flag, and a line of allowed values under
// an enum flag whose values do not fit its name column.
func writeFlags(b *strings.Builder, specs []flagSpec) {
	for _, f := range specs {
		var names []string
		for _, n := range f.names {
			names = append(names, dash(n))
		}
		left := "  " + strings.Join(names, ", ")
		var allowed []string
		if f.values != nil {
			allowed = f.values()
		}
		short := strings.Join(allowed, "|")
		switch {
		case allowed != nil && len(left)+1+len(short) < flagColumn:
			left += " " + short
			allowed = nil
		case f.arg != "":
			left += " " + f.arg
		}
		if len(left) >= flagColumn {
			fmt.Fprintf(b, "%s\n%s%s\n", left, strings.Repeat(" ", flagColumn), f.help)
		} else {
			fmt.Fprintf(b, "%-*s%s\n", flagColumn, left, f.help)
		}
		if allowed != nil {
			writeWrapped(b, "one of: "+strings.Join(allowed, ", "))
		}
	}
}

// writeWrapped writes text at the help column, wrapped at 78 columns.
func writeWrapped(b *strings.Builder, text string) {
	line := ""
	for _, w := range strings.Fields(text) {
		if line != "" && flagColumn+len(line)+1+len(w) > 78 {
			fmt.Fprintf(b, "%s%s\n", strings.Repeat(" ", flagColumn), line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	fmt.Fprintf(b, "%s%s\n", strings.Repeat(" ", flagColumn), line)
}

// helpFor is the help of cmd whose arguments are args: a subject's for
// inspect.
func helpFor(cmd string, args []string) string {
	if cmd == "inspect" && len(args) > 0 {
		if h := commandHelp("inspect " + args[0]); h != "" {
			return h
		}
	}
	return commandHelp(cmd)
}

// wantsHelp reports whether args ask for help (-h, -help, --help before
// a "--").
func wantsHelp(args []string) bool {
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "-h", "-help", "--help":
			return true
		}
	}
	return false
}

// cmdHelp is "memidx help [COMMAND [SUBJECT]]".
func cmdHelp(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stdout, usageText())
		return exitOK
	}
	name := strings.Join(args, " ")
	if h := commandHelp(name); h != "" {
		fmt.Fprint(stdout, h)
		return exitOK
	}
	fmt.Fprintf(stderr, "memidx help: unknown command %q%s\nsee 'memidx --help'\n", name, suggestCommand(name))
	return exitUsage
}
