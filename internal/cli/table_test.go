package cli

import (
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/engine"
)

// Every enum flag's help lists exactly the values of engine's one
// declaration, and the parser refuses any other value with exit 2.
func TestEnumFlagsListEngineValues(t *testing.T) {
	for _, c := range []struct {
		cmd, flag string
		want      []string
	}{
		{"recall", "mode", strs(engine.QueryModes())},
		{"recall", "match", strs(engine.QueryMatches())},
		{"recall", "branches", strs(engine.BranchModes())},
		{"recall", "role", engine.Roles()},
		{"recall", "outcome", engine.Outcomes()},
		{"expand", "branches", strs(engine.BranchModes())},
		{"walk", "branches", strs(engine.BranchModes())},
		{"sessions", "branches", strs(engine.BranchModes())},
		{"rebuild", "branches", strs(engine.BranchModes())},
		{"inspect lineage", "branches", strs(engine.BranchModes())},
		{"inspect entries", "branches", strs(engine.BranchModes())},
		{"inspect session", "branches", strs(engine.BranchModes())},
		{"eval", "mode", strs(engine.QueryModes())},
		{"eval", "match", strs(engine.QueryMatches())},
		{"eval", "branches", strs(engine.BranchModes())},
	} {
		t.Run(c.cmd+" --"+c.flag, func(t *testing.T) {
			r := runCLI(t, append(strings.Fields(c.cmd), "--help"), "", false)
			assert.ElementsMatch(t, c.want, helpValues(t, r.stdout, c.flag))
			r = runCLI(t, append(strings.Fields(c.cmd), "x", "--"+c.flag, "no-such-value"), "", false)
			assert.Equal(t, exitUsage, r.code, r.stderr)
			assert.Contains(t, r.stderr, "allowed: "+strings.Join(c.want, ", "))
		})
	}
}

// helpValues reads the allowed values of --flag from a help text: the
// a|b|c after its name, or the "one of:" lines under it.
func helpValues(t *testing.T, help, flag string) []string {
	t.Helper()
	lines := strings.Split(help, "\n")
	for i, l := range lines {
		m := regexp.MustCompile(`^\s+--` + flag + ` (\S+)`).FindStringSubmatch(l)
		if m == nil {
			continue
		}
		if strings.Contains(m[1], "|") {
			return strings.Split(m[1], "|")
		}
		var list string
		for j := i + 1; j < len(lines) && strings.HasPrefix(lines[j], strings.Repeat(" ", flagColumn)); j++ {
			list += " " + strings.TrimSpace(lines[j])
		}
		list, ok := strings.CutPrefix(strings.TrimSpace(list), "one of: ")
		require.True(t, ok, "--%s lists no values in\n%s", flag, help)
		return strings.Split(list, ", ")
	}
	t.Fatalf("no --%s in\n%s", flag, help)
	return nil
}

// Every command that parses flags parses exactly the table's: an unknown
// flag is a usage error naming it, never an internal error, for each.
func TestEveryCommandParsesTheTable(t *testing.T) {
	w := newWorld(t)
	for _, c := range commands {
		if len(c.flags) == 0 {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			args := append([]string{"--agent-dir", w.agent, "--index-dir", w.index}, strings.Fields(c.name)...)
			r := runCLI(t, append(args, "--no-such-flag"), "", false)
			assert.Equal(t, exitUsage, r.code, r.stdout+r.stderr)
			assert.Contains(t, r.stderr, "unknown flag --no-such-flag")
		})
	}
}

func TestSuggestions(t *testing.T) {
	for _, c := range []struct{ got, cmd, want string }{
		{"sinse", "recall", "; did you mean --since?"},
		{"mdoe", "recall", "; did you mean --mode?"},
		{"page", "recall", "; did you mean --page-size?"},
		{"jsno", "sessions", "; did you mean --json?"},
		{"zzzzzz", "recall", ""},
		{"x", "recall", ""},
	} {
		assert.Equal(t, c.want, suggestFlag(c.cmd, c.got), c.got)
	}
	for _, c := range []struct{ got, want string }{
		{"recal", "; did you mean 'recall'?"},
		{"sesions", "; did you mean 'sessions'?"},
		{"rebiuld", "; did you mean 'rebuild'?"},
		{"inspect lineag", "; did you mean 'inspect lineage'?"},
		{"forget", ""},
	} {
		assert.Equal(t, c.want, suggestCommand(c.got), c.got)
	}
}

// Each completion script offers every command, inspect subject and flag
// of the table, and the values of every enum flag.
func TestCompletionCoversTheTable(t *testing.T) {
	for _, shell := range completionShells {
		t.Run(shell, func(t *testing.T) {
			r := runCLI(t, []string{"completion", shell}, "", false)
			require.Equal(t, exitOK, r.code, r.stderr)
			script := r.stdout
			for _, c := range commands {
				for _, word := range strings.Fields(c.name) {
					assert.Contains(t, script, word)
				}
				for _, f := range join(c.flags, globalFlags) {
					for _, n := range f.names {
						assert.Contains(t, script, completionSpelling(shell, n), "%s %s", c.name, n)
					}
					if f.values != nil {
						assert.Contains(t, script, strings.Join(f.values(), " "), "%s %s", c.name, f.names[0])
					}
				}
			}
			assert.Contains(t, script, strings.Join(inspectSubjects, " "))
		})
	}
}

// completionSpelling is how a shell's script spells a flag.
func completionSpelling(shell, name string) string {
	if shell != "fish" {
		return dash(name)
	}
	if len(name) == 1 {
		return "-s " + name
	}
	return "-l " + name
}

// The scripts parse in their shells (bash is always there; zsh and fish
// when installed).
func TestCompletionParses(t *testing.T) {
	for _, c := range []struct{ shell, bin string }{{"bash", "bash"}, {"zsh", "zsh"}, {"fish", "fish"}} {
		t.Run(c.shell, func(t *testing.T) {
			bin, err := exec.LookPath(c.bin)
			if err != nil {
				t.Skipf("%s is not installed", c.bin)
			}
			r := runCLI(t, []string{"completion", c.shell}, "", false)
			flag := "-n"
			if c.shell == "fish" {
				flag = "--no-execute"
			}
			cmd := exec.Command(bin, flag)
			cmd.Stdin = strings.NewReader(r.stdout)
			out, err := cmd.CombinedOutput()
			assert.NoError(t, err, "%s", out)
		})
	}
}

// bash completes commands, a command's flags and an enum flag's values.
func TestBashCompletes(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	script := runCLI(t, []string{"completion", "bash"}, "", false).stdout
	for _, c := range []struct {
		line string
		want []string
	}{
		{"memidx re", []string{"recall", "rebuild"}},
		{"memidx recall x --mo", []string{"--mode"}},
		{"memidx recall --mode ", strs(engine.QueryModes())},
		{"memidx --cwd . recall --outcome ", engine.Outcomes()},
		{"memidx inspect ", inspectSubjects},
		{"memidx inspect lineage --br", []string{"--branches"}},
		{"memidx --color ", colors()},
		{"memidx completion ", completionShells},
	} {
		got := bashComplete(t, script, c.line)
		for _, w := range c.want {
			assert.True(t, slices.Contains(got, w), "%q: %v lacks %s", c.line, got, w)
		}
	}
}

// bashComplete runs the completion function on a command line.
func bashComplete(t *testing.T, script, line string) []string {
	t.Helper()
	words := strings.Fields(line)
	if strings.HasSuffix(line, " ") {
		words = append(words, "")
	}
	var quoted []string
	for _, w := range words {
		quoted = append(quoted, "'"+w+"'")
	}
	prog := script + "\nCOMP_WORDS=(" + strings.Join(quoted, " ") + ")\nCOMP_CWORD=" +
		strconv.Itoa(len(words)-1) + "\n_memidx\nprintf '%s\\n' \"${COMPREPLY[@]}\"\n"
	cmd := exec.Command("bash", "--norc", "--noprofile")
	cmd.Dir = t.TempDir()
	cmd.Stdin = strings.NewReader(prog)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	return strings.Fields(string(out))
}
