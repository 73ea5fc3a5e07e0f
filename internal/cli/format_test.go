package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// --format (and --human, --json) choose the form whatever stdout is: the
// human form goes through a pipe, JSON comes on a terminal.
func TestFormat(t *testing.T) {
	runCases(t, []cliCase{
		{name: "recall-human-pipe", args: []string{"recall", "flaky", "--human"}, exit: 0},
		{name: "sessions-format-text-pipe", args: []string{"--format", "text", "sessions"}, exit: 0},
		{name: "recall-format-json-tty", args: []string{"recall", "flaky", "--format=json", "--page-size", "1"}, tty: true, exit: 0},
		{name: "recall-pretty-human", args: []string{"recall", "flaky", "--pretty", "--human"}, exit: 2},
		{name: "walk-human-is-json", args: []string{"walk", "$ID", "-n", "0", "--human"}, exit: 0},
	})
}

// Colour: auto on a terminal unless NO_COLOR is set or TERM is dumb;
// --color always and never win; never in JSON.
func TestColor(t *testing.T) {
	const esc = "\x1b["
	for _, c := range []struct {
		name      string
		query     string
		tty       bool
		noColor   string
		term      string
		args      []string
		colour    bool
		highlight string
	}{
		{name: "auto on a terminal", tty: true, term: "xterm-256color", colour: true, highlight: sgrMatch + "flaky" + sgrReset},
		{name: "NO_COLOR", tty: true, noColor: "1", term: "xterm", colour: false},
		{name: "TERM dumb", tty: true, term: "dumb", colour: false},
		{name: "auto into a pipe", term: "xterm", args: []string{"--human"}, colour: false},
		{name: "always into a pipe", noColor: "1", args: []string{"--human", "--color", "always"}, colour: true, highlight: sgrMatch + "flaky" + sgrReset},
		{name: "never on a terminal", tty: true, term: "xterm", args: []string{"--color=never"}, colour: false},
		{name: "always with JSON", args: []string{"--color", "always"}, colour: false},
		{name: "regex highlight", query: "fla[k]y", args: []string{"--human", "--color", "always", "--mode", "regex"}, colour: true, highlight: sgrMatch + "flaky" + sgrReset},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := newWorld(t)
			t.Setenv("NO_COLOR", c.noColor)
			t.Setenv("TERM", c.term)
			if c.query == "" {
				c.query = "flaky"
			}
			args := append([]string{"--agent-dir", w.agent, "--index-dir", w.index, "--cwd", w.proj, "recall", c.query}, c.args...)
			r := runCLI(t, args, "", c.tty)
			require.Equal(t, exitOK, r.code, r.stderr)
			assert.Equal(t, c.colour, strings.Contains(r.stdout, esc), r.stdout)
			if c.highlight != "" {
				assert.Contains(t, r.stdout, c.highlight)
				assert.Contains(t, r.stdout, sgrFollow+"→ memidx expand")
			}
			if !c.colour && !strings.HasPrefix(r.stdout, " 1.") {
				assert.True(t, json.Valid([]byte(r.stdout)), r.stdout)
			}
		})
	}
}

// Notices about normal operation (the default scope at a shell, entries
// cut at maxEntryChars) stay in the JSON, and the human form shows them
// only with --verbose.
func TestRoutineNotices(t *testing.T) {
	const scopeNote = "no live session"
	cutEntries := func(t *testing.T, w *world) {
		writeFile(t, w.agent+"/fabric.json", `{"memory":{"maxEntryChars":100}}`)
	}
	for _, c := range []struct {
		name         string
		args         []string
		tty          bool
		setup        func(*testing.T, *world)
		note, footer bool
	}{
		{name: "human", args: []string{"recall", "flaky"}, tty: true},
		{name: "human verbose", args: []string{"recall", "flaky", "--verbose"}, tty: true, note: true},
		{name: "json", args: []string{"recall", "flaky"}, note: true},
		{name: "sessions human", args: []string{"sessions"}, tty: true},
		{name: "sessions verbose", args: []string{"--verbose", "sessions"}, tty: true, note: true},
		{name: "cut human", args: []string{"recall", "flaky"}, tty: true, setup: cutEntries},
		{name: "cut verbose", args: []string{"recall", "flaky", "--verbose"}, tty: true, setup: cutEntries, note: true, footer: true},
		{name: "cut json", args: []string{"recall", "flaky"}, setup: cutEntries, note: true, footer: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := newWorld(t)
			if c.setup != nil {
				c.setup(t, w)
			}
			r := runCLI(t, append([]string{"--agent-dir", w.agent, "--index-dir", w.index, "--cwd", w.proj}, c.args...), "", c.tty)
			require.Equal(t, exitOK, r.code, r.stderr)
			assert.Equal(t, c.note, strings.Contains(r.stdout+r.stderr, scopeNote), "stdout %s\nstderr %s", r.stdout, r.stderr)
			if c.setup != nil {
				assert.Equal(t, c.footer, strings.Contains(r.stdout, "max_entry_chars"), r.stdout)
			}
		})
	}
}

// A recall dispatched by memidx call highlights its query too.
func TestCallHighlights(t *testing.T) {
	w := newWorld(t)
	r := runCLI(t, []string{"--agent-dir", w.agent, "--index-dir", w.index, "--cwd", w.proj, "--human", "--color", "always",
		"call", `{"ref":"memory.recall","args":{"query":"flaky","scope":"project"}}`}, "", false)
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Contains(t, r.stdout, sgrMatch+"flaky"+sgrReset)
}
