// Package corpus generates deterministic, realistic corpora of OMP
// (oh-my-pi) v3 session files with planted, checkable facts, for memidx's
// tests and benchmarks.
//
//	m, err := corpus.Generate(corpus.Options{Sessions: 2000, Seed: 1, Out: dir})
//
// [Generate] writes Out/sessions/… and Out/manifest.json and returns the
// [Manifest]. The same Options give byte-identical files and the same
// modification times. The package imports only the standard library and
// jsjson; it never reads the clock (all times derive from a fixed base,
// 2026-06-01T00:00:00Z).
//
// # Layout
//
// Sessions run in Options.Projects made-up working directories (default 8)
// of a user whose home is /home/dev. Each file lies where OMP 18 files it:
//
//	sessions/<bucket>/<ts>_<id>.jsonl                      a session
//	sessions/<bucket>/<ts>_<id>/<agentId>.jsonl            its subagent
//	sessions/<bucket>/<ts>_<id>/<agentId>/<agentId>.<childId>.jsonl
//
// Buckets use OMP's current scheme: "-src-<name>" and "-work-<name>" for
// directories under home, "-" for home itself, "-tmp-<name>" under /tmp,
// "--srv-<name>--" elsewhere; some older sessions of ~/src projects sit in
// the legacy "--home-dev-src-<name>--" bucket. <ts> is the creation time
// with ':' and '.' replaced by '-', <id> a UUIDv7. Subagent headers name
// their parent in parentSession, as an absolute path under the made-up
// /home/dev/.omp/agent/sessions (never under Out, so the bytes do not
// depend on Out). Sessions are created at random times in the 90 days
// before the base time; every file's mtime is a little after its last
// entry, set with os.Chtimes, and no two files share one, so "newest" is
// well defined.
//
// # Files
//
// Every file starts with the 256-byte title slot line (exactly 256 bytes
// with its "\n", padded with spaces in "pad", rewritten in place at the
// end as OMP does), then the header {type:"session", version:3, id,
// timestamp, cwd, parentSession?, title?, titleSource?}, then entries with
// 8-hex ids and parentIds forming a tree. Every line is what
// JSON.stringify writes (strings via jsjson.AppendString, numbers via
// jsjson.FormatNumber, no HTML escaping) with OMP's key order: type, id,
// parentId, timestamp, then the payload; custom and custom_message put id,
// parentId and timestamp last.
//
// A session holds model_change and thinking_level_change records, often a
// session_init, then turns: a user message (string or text parts), rounds
// of assistant messages with thinking blocks (with thinkingSignature),
// text and several toolCall blocks (read, grep, find, ls, edit, write,
// bash, task, fabric_exec, web_search, todo_write) with realistic
// arguments, each answered by a toolResult paired by toolCallId: code
// excerpts, grep matches, file lists, test runs, compiler output, stack
// traces, diffs. Some outputs are large (10 KB to 400 KB). Some tools fail
// (isError; a bash failure carries details.exitCode), and now and then an
// assistant turn ends in an API error. Usage objects always carry a cost.
// Between turns come bashExecution messages (exitCode or cancelled),
// custom_message records, custom tool_execution_start and session_exit
// records, labels, model_usage, title_change, ttsr_injection,
// service_tier_change, mode_change, reset_boundary, and compactions (with
// summary and a firstKeptEntryId on the path).
//
// About one session in five is branched: after some entry X it holds an
// abandoned sibling branch of one to three turns, then a branch_summary
// with parentId and fromId X, which moves the leaf back (so the last line
// is on the active branch). Its details are {readFiles, modifiedFiles}, a
// FabricBranchSummaryDetailsV2 envelope, or, for a discarded entry, an
// empty summary with {kind:"discarded-entry-branch"}. fabric_exec results
// carry a valid FabricExecutionTraceV1 ({success, trace, audits, phases,
// error?}, exactly the keys the reader guard allows, strictly increasing
// sequences). A few percent of sessions spawn a subagent through a task
// call (its result details hold the subagent's usage with cost), and some
// subagents spawn a child of their own.
//
// Text is drawn from a Zipf-distributed vocabulary built from the seed:
// English words, code identifiers (snake_case, camelCase, PascalCase,
// CONSTANTS), pseudo-words for the long tail, and now and then non-ASCII
// words (é, ß, Greek, Cyrillic, CJK, Hangul) and emoji.
//
// # Sizes
//
// A top-level session's size target is drawn from a mixture: 12% quick
// exchanges (log-normal, median 7 KB) and working sessions (log-normal,
// median 275 KB, σ 1.2, clamped to 5 KB..14 MB), all times Options.Scale.
// Sessions=2000 at Scale 1 comes to about 1.0 GB (1,003,270,451 bytes for
// seed 1: sessions from 3.6 KB to 14 MB, median 228 KB, 10% under 18 KB,
// 10% over 1.1 MB, plus 82 subagent files). Scale 0.05 gives a corpus of a
// few MB for quick tests.
//
// # Planted facts
//
// Sessions carry planted terms: "zqx" and six base32 digits, unique in the
// corpus and all of one length. No generated word or random string
// contains "zqx" in any letter case, so a term occurs exactly once: on the
// line of the entry the fact names. The kinds ([Fact] documents each):
// term (user, assistant, toolResult, custom_message, compaction text),
// thinking-term, deep-term (more than 2000 characters into a large tool
// output), abandoned-term (only on an abandoned branch: absent from the
// active branch, present with branches=all), tool-outcome (a failed tool,
// e.g. bash with exitCode 1), bash-execution, operation (a Fabric
// operation with ref and outcome), branch-fact (a fact of a V2 branch
// summary envelope) and subagent-term. Except for deep terms, a term in
// message, custom_message or compaction text lies within the first 2000
// characters of its entry's text, thinking included. The first 28 sessions get one fact of each kind in turn, so
// even a 20-session corpus has every kind.
//
// # Manifest
//
// Out/manifest.json is the [Manifest] as JSON:
//
//	{
//	 "seed": 1,
//	 "sessions": [{"path": "sessions/-src-webshop/2026-…Z_019d….jsonl",
//	   "id": "019d…", "cwd": "/home/dev/src/webshop", "bucket": "-src-webshop",
//	   "bytes": 207053, "mtime": "2026-04-12T09:41:07.331Z", "entries": 212,
//	   "branched": true, "leaf": "3fa9c2d1"}, …],
//	 "facts": [{"kind": "abandoned-term", "term": "zqxaaabqa",
//	   "sessionId": "019d…", "path": "sessions/…jsonl", "entryId": "9b1e0c77",
//	   "role": "toolResult", "tool": "bash", "outcome": "error",
//	   "branch": "abandoned", "note": "exitCode=1"}, …],
//	 "totalBytes": 1003270451
//	}
//
// Paths are relative to Out with '/' separators. A subagent's entry has
// "parent", the path of the session that spawned it.
//
// # Generating a corpus from the command line
//
//	MEMIDX_CORPUS_OUT=/tmp/corpus-2000 go test -run TestGenerate_Out -v ./internal/corpus/
//	MEMIDX_CORPUS_CHECK=/tmp/corpus-2000 go test -run 'TestFacts$|TestSessions$' ./internal/corpus/
//
// The first writes a corpus (MEMIDX_CORPUS_SESSIONS, _SEED and _SCALE
// override 2000, 1 and 1) and logs its size and generation time; the
// second re-checks every planted fact and every file of an existing corpus.
//
// Generation is parallel over sessions (GOMAXPROCS workers); each session
// and its subagents draw from their own random stream, derived from the
// seed and the session's index, so scheduling never changes the output.
package corpus
