package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memidx/memidx/engine"
)

const staleHash = "0000000000000000000000000000000000000000000000000000000000000000"

// Exit codes: 0 answered (also with no hits), 1 answered with an error,
// 2 usage. Every command, with golden outputs.

func TestRecall(t *testing.T) {
	runCases(t, []cliCase{
		{name: "recall-words", args: []string{"recall", "flaky", "worker"}, exit: 0},
		{name: "recall-q-page", args: []string{"recall", "-q", "flaky", "--scope", "project", "--page-size", "1"}, exit: 0},
		{name: "recall-stdin", args: []string{"recall", "-"}, stdin: `{"query":"compaction","scope":"project"}`, exit: 0},
		{name: "recall-zero-hits", args: []string{"recall", "zebra"}, exit: 0},
		{name: "recall-invalid-regex", args: []string{"recall", "--mode", "regex", "flaky("}, exit: 1},
		{name: "recall-bad-mode", args: []string{"recall", "--mode", "fuzzy", "x"}, exit: 2},
		{name: "recall-bad-role", args: []string{"recall", "--role", "robot", "x"}, exit: 2},
		{name: "recall-bad-outcome", args: []string{"recall", "--outcome", "error", "x"}, exit: 2},
		{name: "recall-bad-match", args: []string{"recall", "--match", "x", "x"}, exit: 2},
		{name: "recall-bad-branches", args: []string{"recall", "x", "--branches=x"}, exit: 2},
		{name: "recall-json-bad-mode", args: []string{"recall", `{"query":"x","queryMode":"fuzzy"}`}, exit: 1},
		{name: "recall-json-bad-outcome", args: []string{"recall", `{"query":"x","outcome":"error"}`}, exit: 1},
		{name: "recall-flag-typo", args: []string{"recall", "x", "-sinse", "7d"}, exit: 2},
		{name: "recall-flag-no-value", args: []string{"recall", "x", "--since"}, exit: 2},
		{name: "recall-invalid-scope", args: []string{"recall", "--scope", "all", "x"}, exit: 1},
		{name: "recall-session-not-found", args: []string{"recall", "--scope", "session:nosuchsession", "x"}, exit: 1},
		{name: "recall-stale-pointer", args: []string{"recall", `{"query":"flaky","scope":"session:$ID","expectedSourceHash":"` + staleHash + `"}`}, exit: 1},
		{name: "recall-bad-json", args: []string{"recall", `{"query":`}, exit: 2},
		{name: "recall-unknown-field", args: []string{"recall", `{"bogus":1}`}, exit: 2},
		{name: "recall-bad-flag", args: []string{"recall", "--bogus", "x"}, exit: 2},
		{name: "recall-query-twice", args: []string{"recall", "-q", "a", "b"}, exit: 2},
		{name: "recall-help", args: []string{"recall", "--help"}, exit: 0},
		{name: "recall-clamps", args: []string{"recall", "flaky", "--page-size", "0", "--snippet-chars", "10"}, exit: 0},
		{name: "recall-wire-clamps", args: []string{"recall", `{"query":"flaky","pageSize":0,"snippetChars":10}`}, exit: 0},
		{name: "recall-since-relative", args: []string{"recall", "flaky", "--since", "7d", "--until", "now"}, exit: 0},
		{name: "recall-until-weeks-ago", args: []string{"recall", "flaky", "--until", "3 weeks ago"}, exit: 0},
		{name: "recall-since-bad", args: []string{"recall", "flaky", "--since", "lastweek"}, exit: 2},
		{name: "recall-no-project-sessions", args: []string{"recall", "flaky", "--cwd", "$ROOT/empty"}, exit: 0},
		{name: "recall-subdirectory", args: []string{"recall", "flaky", "--page-size", "1", "--cwd", "$PROJ/src/deep"}, exit: 0,
			setup: func(t *testing.T, w *world) { mkdir(t, w.proj+"/src/deep") }},
		{name: "recall-tty-cold", args: []string{"recall", "flaky", "--scope", "project", "--role", "assistant"}, tty: true, exit: 0, setup: coldExample},
		// The command recall-tty-cold prints returns the cold session's entries.
		{name: "recall-cold-follow", args: []string{"recall", "--scope", "session:0198f2a4-7c1", "--role", "assistant", "--", "flaky"}, tty: true, exit: 0, setup: coldExample},
		{name: "recall-live-session", args: []string{"recall", "flaky", "--live-session", "$SESSION", "--live-leaf", "e000001e"}, exit: 0},
		{name: "recall-scope-prefix", args: []string{"recall", "flaky", "--scope", "session:0198f2a4-7c1"}, exit: 0},
		{name: "recall-tty", args: []string{"recall", "flaky"}, tty: true, exit: 0},
		{name: "recall-tty-invalid-regex", args: []string{"recall", "--mode", "regex", "flaky("}, tty: true, exit: 1},
		{name: "recall-config-notices", args: []string{"recall", "flaky", "--page-size", "1"}, exit: 0, setup: func(t *testing.T, w *world) {
			writeFile(t, w.agent+"/fabric.json", `{"memory":{"hotSessions":-1,"colour":"blue"}}`)
		}},
	})
}

func TestExpand(t *testing.T) {
	runCases(t, []cliCase{
		{name: "expand-flags", args: []string{"expand", "0198f2a4", "-n", "14", "-C", "1"}, exit: 0},
		{name: "expand-entry-id", args: []string{"expand", "$ID", "--entry-id", "e0000006"}, exit: 0},
		{name: "expand-json", args: []string{"expand", `{"session":"$ID","indices":[0]}`}, exit: 0},
		{name: "expand-out-of-bounds", args: []string{"expand", "0198f2a4", "-n", "99"}, exit: 1},
		{name: "expand-not-found", args: []string{"expand", "nosuchsession", "-n", "0"}, exit: 1},
		{name: "expand-ambiguous-prefix", args: []string{"expand", "0198f2a4", "-n", "0"}, exit: 1, setup: func(t *testing.T, w *world) { w.addOther(t) }},
		{name: "expand-longer-prefix", args: []string{"expand", "0198f2a4-7c", "-n", "0"}, exit: 0, setup: func(t *testing.T, w *world) { w.addOther(t) }},
		{name: "expand-no-session", args: []string{"expand"}, exit: 2},
		{name: "expand-json-and-flags", args: []string{"expand", `{"session":"$ID"}`, "-n", "1"}, exit: 2},
		{name: "expand-json-and-long-flag", args: []string{"expand", `{"session":"$ID"}`, "--max-chars", "300"}, exit: 2},
		{name: "expand-context-too-wide", args: []string{"expand", "$ID", "-C", "101"}, exit: 2},
		{name: "expand-bad-index", args: []string{"expand", "$ID", "-n", "x"}, exit: 2},
		{name: "expand-unknown-field", args: []string{"expand", `{"session":"$ID","idx":[1]}`}, exit: 2},
		{name: "expand-help", args: []string{"expand", "-h"}, exit: 0},
		{name: "expand-first-page", args: []string{"expand", "0198f2a4"}, exit: 0},
		{name: "expand-first-page-tty", args: []string{"expand", "0198f2a4", "--max-entries", "2"}, tty: true, exit: 0},
		{name: "expand-json-metadata", args: []string{"expand", `{"session":"$ID"}`}, exit: 0},
		{name: "expand-tty", args: []string{"expand", "0198f2a4", "-n", "0,1"}, tty: true, exit: 0},
	})
}

func TestWalk(t *testing.T) {
	runCases(t, []cliCase{
		{name: "walk-indices", args: []string{"walk", "0198f2a4", "-n", "0,1"}, exit: 0},
		{name: "walk-json", args: []string{"walk", `{"session":"$ID","entryRange":{"first":0,"last":1}}`}, exit: 0},
		{name: "walk-not-found", args: []string{"walk", "nosuchsession"}, exit: 1},
		{name: "walk-bad-json", args: []string{"walk", `{"session":`}, exit: 2},
		{name: "walk-help", args: []string{"walk", "--help"}, exit: 0},
		{name: "walk-bad-branches", args: []string{"walk", "$ID", "--branches", "both"}, exit: 2},
	})
}

func TestSessions(t *testing.T) {
	runCases(t, []cliCase{
		{name: "sessions-default", args: []string{"sessions"}, exit: 0},
		{name: "sessions-global", args: []string{"sessions", "--scope", "global", "--branches", "all"}, exit: 0},
		{name: "sessions-empty-project", args: []string{"sessions", "--cwd", "$ROOT/empty"}, exit: 0},
		{name: "sessions-invalid-scope", args: []string{"sessions", "--scope", "everything"}, exit: 1},
		{name: "sessions-bad-limit", args: []string{"sessions", "--limit", "0"}, exit: 1},
		{name: "sessions-words", args: []string{"sessions", "foo"}, exit: 2},
		{name: "sessions-tty", args: []string{"sessions"}, tty: true, exit: 0},
	})
}

func TestCall(t *testing.T) {
	runCases(t, []cliCase{
		{name: "call-follow", args: []string{"call", `{"ref":"memory.expand","args":{"session":"$SESSION","indices":[0]}}`}, exit: 0},
		{name: "call-unknown-ref", args: []string{"call", `{"ref":"memory.forget","args":{}}`}, exit: 1},
		{name: "call-stale", args: []string{"call", `{"ref":"memory.expand","args":{"session":"$SESSION","indices":[0],"expectedSourceHash":"` + staleHash + `"}}`}, exit: 1},
		{name: "call-bad-args", args: []string{"call", `{"ref":"memory.recall","args":{"bogus":1}}`}, exit: 2},
		{name: "call-not-json", args: []string{"call", "hello"}, exit: 2},
		{name: "call-none", args: []string{"call"}, exit: 2},
	})
}

func TestInspect(t *testing.T) {
	runCases(t, []cliCase{
		{name: "inspect-lineage", args: []string{"inspect", "lineage", "$SESSION"}, exit: 0},
		{name: "inspect-lineage-missing", args: []string{"inspect", "lineage", "$ROOT/nope.jsonl"}, exit: 1},
		{name: "inspect-lineage-two-files", args: []string{"inspect", "lineage", "a", "b"}, exit: 2},
		{name: "inspect-lineage-help", args: []string{"inspect", "lineage", "--help"}, exit: 0},
		{name: "inspect-tokens", args: []string{"inspect", "tokens", "Flaky TestWorker!"}, exit: 0},
		{name: "inspect-session-prefix", args: []string{"inspect", "session", "0198f2a4"}, exit: 0},
		{name: "inspect-session-missing", args: []string{"inspect", "session", "nosuchsession"}, exit: 1},
		{name: "inspect-unknown", args: []string{"inspect", "everything"}, exit: 2},
		{name: "inspect-lineage-prefix", args: []string{"inspect", "lineage", "0198f2a4"}, exit: 0},
		{name: "inspect-lineage-id", args: []string{"inspect", "lineage", "$ID"}, exit: 0},
		{name: "inspect-lineage-ambiguous", args: []string{"inspect", "lineage", "0198f2a4"}, exit: 1, setup: func(t *testing.T, w *world) { w.addOther(t) }},
		{name: "inspect-lineage-no-session", args: []string{"inspect", "lineage", "nosuchsession"}, exit: 1},
		{name: "inspect-entries-prefix", args: []string{"inspect", "entries", "0198f2a4-7c1", "--max-entry-chars", "40"}, exit: 0},
		{name: "inspect-subject-typo", args: []string{"inspect", "lineag", "x"}, exit: 2},
		{name: "inspect-bad-branches", args: []string{"inspect", "lineage", "$SESSION", "--branches", "some"}, exit: 2},
		// On a terminal: a short human form; --json asks for JSON anyway.
		{name: "inspect-lineage-tty", args: []string{"inspect", "lineage", "$SESSION"}, tty: true, exit: 0},
		{name: "inspect-lineage-tty-all", args: []string{"inspect", "lineage", "--branches", "all", "$SESSION"}, tty: true, exit: 0},
		{name: "inspect-lineage-tty-empty", args: []string{"inspect", "lineage", "$ROOT/empty.jsonl"}, tty: true, exit: 0,
			setup: func(t *testing.T, w *world) { writeFile(t, w.root+"/empty.jsonl", "") }},
		{name: "inspect-session-tty", args: []string{"inspect", "session", "0198f2a4"}, tty: true, exit: 0},
		{name: "inspect-session-tty-missing", args: []string{"inspect", "session", "nosuchsession"}, tty: true, exit: 1},
		{name: "inspect-session-tty-json", args: []string{"inspect", "session", "0198f2a4", "--json"}, tty: true, exit: 0},
		{name: "inspect-index-tty", args: []string{"inspect", "index"}, tty: true, exit: 0, setup: rebuilt},
		{name: "inspect-index-tty-empty", args: []string{"inspect", "index"}, tty: true, exit: 0},
		{name: "inspect-index", args: []string{"inspect", "index"}, exit: 0, setup: rebuilt},
	})
}

// rebuilt indexes the world before the case runs.
func rebuilt(t *testing.T, w *world) {
	t.Helper()
	if r := runCLI(t, []string{"--agent-dir", w.agent, "--index-dir", w.index, "--cwd", w.proj, "rebuild", "--json"}, "", false); r.code != 0 {
		t.Fatalf("rebuild: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

func TestRebuild(t *testing.T) {
	runCases(t, []cliCase{
		{name: "rebuild-json", args: []string{"rebuild", "--json"}, exit: 0},
		{name: "rebuild-invalid-scope", args: []string{"rebuild", "--scope", "all"}, exit: 1},
		{name: "rebuild-args", args: []string{"rebuild", "now"}, exit: 2},
	})
}

func TestCatalog(t *testing.T) {
	runCases(t, []cliCase{
		{name: "catalog-describe-unknown", args: []string{"catalog", "describe", "memory.nothing"}, exit: 1},
		{name: "catalog-bad", args: []string{"catalog", "list"}, exit: 2},
	})
}

func TestGlobal(t *testing.T) {
	runCases(t, []cliCase{
		{name: "no-command", args: nil, exit: 2},
		{name: "unknown-command", args: []string{"forget"}, exit: 2},
		{name: "completion-no-shell", args: []string{"completion", "tcsh"}, exit: 2},
		{name: "command-typo", args: []string{"recal", "x"}, exit: 2},
		{name: "help-command-typo", args: []string{"help", "sesions"}, exit: 2},
		{name: "global-bad-format", args: []string{"--format", "yaml", "sessions"}, exit: 2},
		{name: "global-bad-color", args: []string{"sessions", "--color=sometimes"}, exit: 2},
		{name: "help", args: []string{"--help"}, exit: 0},
		{name: "help-command", args: []string{"help", "sessions"}, exit: 0},
		{name: "version", args: []string{"--version"}, exit: 0},
		{name: "missing-agent-dir", args: []string{"--agent-dir", "$ROOT/nowhere", "recall", "x"}, exit: 2, bare: true},
		{name: "no-omp-dir", args: []string{"--cwd", "$PROJ", "recall", "x"}, exit: 1, bare: true, setup: noIndexCreated},
		{name: "missing-session-dir", args: []string{"--agent-dir", "$AGENT", "--session-dir", "$ROOT/nowhere", "recall", "x"}, exit: 2, bare: true},
		{name: "cwd-is-a-file", args: []string{"--agent-dir", "$AGENT", "--cwd", "$SESSION", "recall", "x"}, exit: 2, bare: true},
		{name: "new-index-dir", args: []string{"--agent-dir", "$AGENT", "--cwd", "$PROJ", "--index-dir", "$ROOT/a/b/index", "recall", "x"}, exit: 0, bare: true},
		{name: "global-flag-no-value", args: []string{"recall", "x", "--cwd"}, exit: 2},
	})
}

// coldExample makes the example session cold: one hot session, and a
// newer one in the project.
func coldExample(t *testing.T, w *world) {
	writeFile(t, w.agent+"/fabric.json", `{"memory":{"hotSessions":1}}`)
	writeFile(t, filepath.Join(filepath.Dir(w.session), "2026-09-03T10-00-00-000Z_0198f2a5-0000-7000-8000-000000000000.jsonl"),
		`{"type":"session","version":3,"id":"0198f2a5-0000-7000-8000-000000000000","timestamp":"2026-09-03T10:00:00.000Z","cwd":"`+w.proj+`"}`+"\n")
	old := time.Date(2026, 9, 1, 11, 0, 0, 0, time.UTC)
	if err := os.Chtimes(w.session, old, old); err != nil {
		t.Fatal(err)
	}
}

// noIndexCreated checks, when the test ends, that the home directory
// (which has no .omp) is still empty: a missing agent directory creates
// nothing.
func noIndexCreated(t *testing.T, w *world) {
	home := w.root + "/home"
	t.Cleanup(func() {
		if ents, err := os.ReadDir(home); err != nil || len(ents) != 0 {
			t.Errorf("home %s holds %d entries (%v) after the command; want none", home, len(ents), err)
		}
	})
}

// A walk that ends before its whole selection keeps stdout to whole entry
// lines, names its reason on stderr and exits 1: it never looks complete.
func TestWalkIncomplete(t *testing.T) {
	runCases(t, []cliCase{
		{name: "walk-stale-pointer", args: []string{"walk", `{"session":"$ID","expectedSourceHash":"` + staleHash + `"}`}, exit: 1},
		{name: "walk-timeout-zero", args: []string{"walk", "$ID", "--timeout", "0s"}, exit: 2},
		{name: "walk-timeout-not-duration", args: []string{"walk", "$ID", "--timeout", "5"}, exit: 2},
	})
	check := func(t *testing.T, r result, reason string, minLines, maxLines int) {
		t.Helper()
		if r.code != 1 {
			t.Errorf("exit %d, want 1\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
		}
		lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
		if r.stdout == "" {
			lines = nil
		}
		if len(lines) < minLines || len(lines) > maxLines {
			t.Errorf("%d lines on stdout, want %d..%d:\n%s", len(lines), minLines, maxLines, r.stdout)
		}
		for _, l := range lines {
			var en struct {
				Index     *int `json:"index"`
				TextRange struct {
					Complete bool `json:"complete"`
				} `json:"textRange"`
			}
			if err := json.Unmarshal([]byte(l), &en); err != nil || en.Index == nil || !en.TextRange.Complete {
				t.Errorf("stdout line is not a whole entry (%v): %s", err, l)
			}
		}
		want := fmt.Sprintf("memidx: walk incomplete after %d entries: %s: ", len(lines), reason)
		if !strings.HasPrefix(r.stderr, want) || strings.Count(r.stderr, "\n") != 1 {
			t.Errorf("stderr %q, want one line starting %q", r.stderr, want)
		}
	}
	t.Run("timeout", func(t *testing.T) {
		w := newWorld(t)
		for _, sel := range [][]string{{"$ID", "--timeout", "1ns"}, {`{"session":"$ID"}`, "--timeout=1ns"}} {
			args := []string{"--agent-dir", w.agent, "--index-dir", w.index, "--cwd", w.proj, "walk"}
			for _, a := range sel {
				args = append(args, w.expand(a))
			}
			check(t, runCLI(t, args, "", false), engine.WalkDeadline, 0, 14)
		}
	})
	t.Run("context-deadline", func(t *testing.T) {
		w := newWorld(t)
		ctx, cancel := context.WithDeadline(context.Background(), time.Unix(1, 0))
		defer cancel()
		var out, errb bytes.Buffer
		code := run(ctx, []string{"--agent-dir", w.agent, "--index-dir", w.index, "--cwd", w.proj, "walk", fixtureID}, strings.NewReader(""), &out, &errb)
		check(t, result{code, out.String(), errb.String()}, engine.WalkDeadline, 0, 0)
	})
	t.Run("interrupted", func(t *testing.T) {
		// The interrupt comes when the first block of lines reaches
		// stdout (the example's 15 lines are more than one block): the
		// lines already encoded are written whole, the rest never visited.
		w := newWorld(t)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		out := &cancelWriter{cancel: cancel}
		var errb bytes.Buffer
		code := run(ctx, []string{"--agent-dir", w.agent, "--index-dir", w.index, "--cwd", w.proj, "walk", fixtureID}, strings.NewReader(""), out, &errb)
		check(t, result{code, out.String(), errb.String()}, "interrupted", 1, 14)
	})
}

// cancelWriter cancels a context at its first write.
type cancelWriter struct {
	bytes.Buffer
	cancel func()
}

func (w *cancelWriter) Write(p []byte) (int, error) {
	w.cancel()
	return w.Buffer.Write(p)
}
