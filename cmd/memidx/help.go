package main

import (
	"fmt"
	"io"
	"strings"
)

const usage = `memidx: fast, exact, branch-aware recall over OMP session files

usage: memidx [global flags] COMMAND [flags] [args]

commands:
  recall [QUERY|JSON|-]   ranked, bounded evidence; every hit has a follow call
  expand SESSION -n N     full records behind a hit (or a JSON request)
  walk SESSION            every complete entry, one JSON line each
  sessions                sessions of a scope with tier, counts and coverage
  call JSON|-             dispatch a hit's follow or a page's next unchanged
  catalog                 capability heads (never memory evidence)
  serve --stdio           JSON-RPC 2.0 for non-Go hosts
  rebuild                 bring the index up to date
  inspect SUBJECT         lineage, entries, tokens, index or session
  gen, bench              synthetic corpora and benchmarks
  eval SET.jsonl          recall quality on a labelled set (R@k, MRR)
  version                 module version and VCS revision (also --version)

global flags (before or after the command):
  --agent-dir DIR    OMP's agent directory (default: found as OMP finds it)
  --index-dir DIR    where the index lives (default <agent-dir>/fabric/memory-index)
  --session-dir DIR  an explicit flat session directory
  --cwd DIR          the project directory (default: the working directory)
  --config FILE      the configuration (default <agent-dir>/fabric.json)
  --trust-project    apply <cwd>/.omp/fabric.json too
  --json, --pretty   JSON output even on a terminal (--pretty indents it)

Relative directories are taken from the shell's working directory.
Output is JSON when stdout is not a terminal. Exit status: 0 answered
(also with no hits), 1 answered with an error, a walk cut short or a
failure, 2 usage error.
Run 'memidx COMMAND --help' for a command's flags.
`

// helps are the per-command help texts, by command (and inspect subject).
var helps = map[string]string{
	"recall": `usage: memidx recall [QUERY...|JSON|-] [flags]

Ranked, bounded evidence: entry hits of hot sessions and cold session
candidates; every hit carries a copy-ready follow call (memidx call).
QUERY is words (as -q); a JSON request object or - (stdin) is the wire form.
Without a live session the scope is project, not session.

  -q, --query TEXT         query text
  --mode literal|natural|phrase|regex   (default literal)
  --match any|all          literal queries only (default any)
  --scope S                session, project, global or session:<id-or-path>
  --branches active|all    (default active)
  --role R, --tool T, --ref R, --provider P, --action A, --outcome O
                           exact filters
  --since T, --until T     epoch ms, ISO date, 7d, 3h, "3 weeks ago", yesterday
  --page-size N (--limit)  hits per page, 1..50 (default 10)
  --offset N               skip this many ranked hits
  --snippet-chars N        snippet length, 80..2000 (default 480)
  --context-next N         show the N entries after each entry hit, 0..3 (memidx's extension)
  --live-session FILE --live-leaf ID --live-branch ID,ID,…
                           the host's live session
`,
	"expand": `usage: memidx expand SESSION [-n INDEX[,INDEX…]] [--entry-id ID] [-C K] [flags]
       memidx expand JSON|-

Full, untruncated records behind a hit, in chunks (follow "next" with
memidx call). SESSION is an id, a unique id prefix (4 characters or more)
or a path. Without a selector: the session's entry count and first page.

  -n INDEX          entry index; repeat or comma-separate
  --entry-id ID     stable entry id; repeat
  --address A       operation address; repeat
  --range A..B      inclusive entry range
  -B N, -A N, -C N  entries of context before, after, both (0..100)
  --branches active|all
  --max-chars N     characters per response (256..24000)
  --max-entries N   entries per response (1..20)
  --live-session FILE --live-leaf ID --live-branch ID,…
`,
	"walk": `usage: memidx walk SESSION [-n INDEX…] [--entry-id ID] [-C K] [flags]
       memidx walk JSON|-

Every complete entry of a selection (the whole session without one), one
JSON line each: memidx walk 0198f2a4 | jq 'select(.outcome=="failed")'.
Takes the selector flags of expand, and

  --timeout D       end the walk after D (e.g. 30s, 2m; default 5m)

Stdout holds only entries. A walk that ends before the whole selection
(walk_deadline, a stale_pointer when the session changes mid-walk, an
interrupt) says so on stderr after the entries it visited and exits 1.
`,
	"sessions": `usage: memidx sessions [JSON|-] [--scope S] [--branches active|all] [--limit N] [--offset N]

Sessions of a scope, newest first, with tier, counts and coverage. Without
a live session the scope is project.

  --scope S          session, project, global or session:<id-or-path>
  --branches M       active (default) or all
  --limit N          rows per page (1..maxSessions)
  --offset N         skip this many rows
  --live-session FILE --live-leaf ID --live-branch ID,…
`,
	"call": `usage: memidx call JSON|- [--live-session FILE --live-leaf ID --live-branch ID,…]

Dispatch a hit's follow or a page's next token unchanged:
memory.recall, memory.expand or memory.sessions.
`,
	"catalog": `usage: memidx catalog [--catalog FILE] [--limit N] [search QUERY | describe REF]

Capability heads (never memory evidence): the catalog, a search of it, or
one action's full description.
`,
	"serve": `usage: memidx serve --stdio [--catalog FILE] [--no-watch] [--live-session FILE --live-leaf ID --live-branch ID,…]
                    [--max-batch N] [--max-batch-bytes N] [--max-queued-bytes N]

JSON-RPC 2.0 over stdin/stdout, one message per line or Content-Length
framed, batches, $/cancelRequest, $/progress: initialize, memory.recall,
memory.expand, memory.sessions, memory.walk (pages), memory.rebuild,
tools.call, tools.catalog, tools.search, tools.describe; host.setLive
{sessionFile, leafId, branchIds} sets the connection's live session for
every request read after it. See "Serve protocol" in README.md.

The server watches the session directories it has listed (inotify, on
Linux) and lists again only what changed; --no-watch lists and stats every
session file on each call instead. Answers are the same either way.

Limits: a batch holds at most --max-batch requests (default 1000; a larger
one is refused with one invalid-request error); the answers of batches held
until their batch is complete stay within --max-batch-bytes (default 64 MiB;
an answer past it is error -32001 naming the limit); answers the client has
not read stay within --max-queued-bytes (default 64 MiB; past it serve stops
reading requests until the client reads).
`,
	"rebuild": `usage: memidx rebuild [--scope S] [--branches active|all] [--jobs N] [--json]

Bring the index up to date (default scope: global), with a progress bar on
a terminal. --jobs N reads and builds N sessions at once (default
GOMAXPROCS). The summary adds jobs, bytesPerSecond, peakRSSBytes and the
failed sessions, counted by reason (failedBy); the exit status is 1 when any
session failed. A write the index file does not take (a full disk, a file
size limit) fails the sessions it held, with the error (writeError).
`,
	"inspect": `usage: memidx inspect SUBJECT ...

  inspect lineage FILE [--branches active|all]
      records, leaf and active branch exactly as the OMP host sees them
  inspect entries FILE [--branches active|all] [--index-thinking]
                       [--no-index-tool-output] [--max-entry-chars N]
      the normalized entries of a session
  inspect tokens TEXT|-
      the canonical tokens of TEXT
  inspect index [--storage]
      every record of the index, with totals (and where its bytes go)
  inspect session SESSION [--branches active|all]
      refresh one session and describe its record
`,
	"inspect lineage": `usage: memidx inspect lineage FILE [--branches active|all]

Records, leaf, active branch and lineage fingerprint of FILE exactly as
the OMP host sees them.
`,
	"inspect entries": `usage: memidx inspect entries FILE [--branches active|all] [--index-thinking]
                              [--no-index-tool-output] [--max-entry-chars N]

The normalized entries of a session file.
`,
	"inspect tokens": `usage: memidx inspect tokens TEXT|-

The canonical tokens of TEXT (or of stdin).
`,
	"inspect index": `usage: memidx inspect index [--storage]

Every record of the index, with totals (on a terminal: the totals, sizes
and cache/source ratios; --json for the records). --storage reads the
whole file and says where its bytes go: per bucket (records, hot shards,
cold digests, lexicon, roster, meta) its keys, values, block checksums,
and the bbolt pages that hold them; and the free pages.
`,
	"inspect session": `usage: memidx inspect session SESSION [--branches active|all]

Refresh one session (an id, a unique id prefix or a path) and describe its
record.
`,
	"gen": `usage: memidx gen --out DIR [--sessions N] [--seed S] [--scale F] [--projects N]

Write a deterministic realistic corpus with a manifest of planted facts.
`,
	"eval": `usage: memidx eval SET.jsonl|- [flags]

Ask every question of a labelled set through recall (in-process) and
report R@1, R@5, R@10 and MRR at entry and at session level, and how
well pages tell answered from unanswerable. SET is JSONL:
{"query", "expected": [{"sessionId", "entryId"}]} (an empty list is a
must-abstain question), or OMP-MemBench's {"query", "expectedEpisodes":
[{"sessionId", "ordinal"}], "mustAbstain"}. The sessions are those of
--agent-dir (or --session-dir); without --index-dir the index is built
in a temporary directory and removed.

  --mode M                 literal (default), natural, phrase or regex
  --match any|all          (default any)
  --branches active|all    (default active)
  --scope S                (default global)
  --page-size N            hits per question, 1..50 (default 10)
  --weak-below C           count pages whose queryCoverage is under C (default:
                           the pages' weakMatch, memory.weakMatchBelow)
  --min-r1 X, --min-r5 X, --min-mrr X
                           exit 1 when entry R@1, R@5 or MRR is below X
  --verbose                list the questions whose evidence is not first
`,
	"bench": `usage: memidx bench [--corpus DIR | --sessions N] [--runs N] [--scale F] [--seed S] [--json]

Speed, size and correctness on a corpus; exits 1 when a check fails.
`,
}

// commandHelp is the help of a command ("inspect lineage" for a subject),
// "" for an unknown one.
func commandHelp(name string) string { return helps[name] }

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
		fmt.Fprint(stdout, usage)
		return exitOK
	}
	name := strings.Join(args, " ")
	if h := commandHelp(name); h != "" {
		fmt.Fprint(stdout, h)
		return exitOK
	}
	fmt.Fprintf(stderr, "memidx help: unknown command %q\nsee 'memidx --help'\n", name)
	return exitUsage
}
