// Package benchmark is memidx bench: one command that measures how fast and
// how small memidx is on a realistic generated archive (internal/corpus)
// and fails when a correctness check or a hard bound breaks.
//
// It reports, each latency as min/p50/p95/p99/max over repeated runs:
// full rebuild throughput and peak RSS (a child process), refresh with
// nothing changed and after one appended turn, index and cold-digest size
// against source size, in-process hot and cold query latency, hot exact
// operation-address recall, cold combined lexical + structural retrieval
// (which must name the hydration reason), catalog head selection on its
// own, whole-process `memidx recall` latency on an unchanged index (against
// `rg -c` over the same files when ripgrep is installed), and recall
// quality on the planted facts (recall@1, recall@10, MRR). Negative
// controls: a nonexistent ref returns nothing, catalog text never matches,
// thinking text is not indexed, abandoned-branch terms appear only with
// branches "all", a deep term past the hot cut is reported, never silently
// missed.
//
// A corpus given with --corpus is only read: a manifest naming a path
// outside it is refused before anything runs, and the bench works on a
// copy of it in its own temporary directory (copies, not hard links, which
// would move the corpus files' ctimes), so no file of the corpus, nor any
// file a crafted manifest points at, is ever written or touched.
//
// Checks and hard bounds (peak rebuild RSS ≤ 256 MiB, every response ≤
// 30,000 UTF-16 units) fail the run; the speed targets (Target) are
// reported as met or missed, because a shared 2-core machine cannot make
// them pass/fail reliably.
package benchmark
