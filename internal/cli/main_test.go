package cli

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/memidx/memidx/internal/mcpserver"
	"github.com/memidx/memidx/internal/session/locate"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// The bundled example session and its id.
const (
	fixture   = "../../testdata/sessions/example-v3.jsonl"
	fixtureID = "0198f2a4-7c1e-7b3a-9d2e-4f5a6b7c8d9e"
	// otherID shares fixtureID's first 8 characters.
	otherID = "0198f2a4-0000-7000-8000-000000000000"
)

func TestMain(m *testing.M) {
	if os.Getenv(runMainEnv) == "1" {
		os.Exit(Main(mcpserver.Serve)) // the test binary is memidx-mcp (signal tests)
	}
	mcpServe = mcpserver.Serve // run serves memidx mcp in process, as memidx-mcp does
	// Dates in the terminal form and relative times are fixed.
	time.Local = time.UTC
	now = func() time.Time { return time.Date(2026, 9, 5, 12, 0, 0, 0, time.UTC) }
	// Colour is asked for by the tests that want it (--color, NO_COLOR).
	os.Setenv("NO_COLOR", "1")
	os.Exit(m.Run())
}

// runMainEnv makes the test binary run memidx's main.
const runMainEnv = "MEMIDX_TEST_RUN_MAIN"

// world is a temporary agent directory, index directory and project with
// the example session in the project's bucket.
type world struct {
	root, agent, index, proj, session string
	// bucket is the project's bucket directory name, which spells root.
	bucket string
}

func newWorld(t *testing.T) *world {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	w := &world{root: root, agent: filepath.Join(root, "agent"), index: filepath.Join(root, "index"), proj: filepath.Join(root, "proj")}
	home := filepath.Join(root, "home")
	for _, d := range []string{home, w.proj, filepath.Join(root, "empty")} {
		mkdir(t, d)
	}
	t.Setenv("HOME", home)
	for _, k := range []string{"PI_CODING_AGENT_DIR", "PI_CONFIG_DIR", "PI_CODING_AGENT_SESSION_DIR", "OMP_PROFILE", "PI_PROFILE"} {
		t.Setenv(k, "")
	}
	env := locate.DefaultEnv()
	w.bucket = locate.BucketNames(w.proj, env)[0]
	bucket := filepath.Join(w.agent, "sessions", w.bucket)
	mkdir(t, bucket)
	body, err := os.ReadFile(fixture)
	if err != nil {
		t.Fatal(err)
	}
	w.session = filepath.Join(bucket, "2026-09-01T10-00-00-000Z_"+fixtureID+".jsonl")
	writeFile(t, w.session, string(body))
	return w
}

// addOther writes a second session, of another project, whose id shares
// the example's first 8 characters.
func (w *world) addOther(t *testing.T) {
	body, err := os.ReadFile(fixture)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(w.agent, "sessions", "-other-proj")
	mkdir(t, dir)
	writeFile(t, filepath.Join(dir, "2026-09-02T10-00-00-000Z_"+otherID+".jsonl"),
		strings.ReplaceAll(string(body), fixtureID, otherID))
}

func mkdir(t *testing.T, d string) {
	t.Helper()
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
}

func writeFile(t *testing.T, p, body string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
}

// expand replaces $ROOT, $AGENT, $INDEX, $PROJ, $SESSION and $ID in s.
func (w *world) expand(s string) string {
	return strings.NewReplacer("$ROOT", w.root, "$AGENT", w.agent, "$INDEX", w.index,
		"$PROJ", w.proj, "$SESSION", w.session, "$ID", fixtureID).Replace(s)
}

// result is one run of the CLI.
type result struct {
	code           int
	stdout, stderr string
}

// runCLI runs the CLI in process. tty makes both outputs terminals.
func runCLI(t *testing.T, args []string, stdin string, tty bool) result {
	t.Helper()
	var out, errb bytes.Buffer
	if tty {
		old := isTerminal
		isTerminal = func(io.Writer) bool { return true }
		defer func() { isTerminal = old }()
	}
	code := run(context.Background(), args, strings.NewReader(stdin), &out, &errb)
	return result{code, out.String(), errb.String()}
}

// volatile are JSON fields whose values depend on the clock or the
// machine: they are masked in golden files.
var volatile = regexp.MustCompile(`"(mtime|seconds|mbPerSecond|bytesPerSecond|peakRSSBytes|jobs|indexBytes|fileBytes|lexiconBytes|hotBytes|coldBytes|size|sizeBytes|dbBytes|checkedAt|refreshedAt|indexedAt|builtAt|modTime|elapsedMs|indexFileBytes)":\s*[0-9.e+-]+`)

// mask makes an output deterministic: the temporary root becomes $ROOT,
// clock- and machine-dependent numbers become 0.
func (w *world) mask(s string) string {
	s = strings.ReplaceAll(s, w.bucket, "$BUCKET")
	s = strings.ReplaceAll(s, w.root, "$ROOT")
	s = volatile.ReplaceAllString(s, `"$1":0`)
	s = regexp.MustCompile(`read in [0-9.]+s`).ReplaceAllString(s, "read in 0.00s")
	s = regexp.MustCompile(`index file  [0-9.]+ [kMG]?B`).ReplaceAllString(s, "index file  0 B")
	s = regexp.MustCompile(`memidx \S+ go1\S*`).ReplaceAllString(s, "memidx VERSION GO")
	return s
}

// golden compares got with testdata/golden/name.golden, or writes it with
// -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name+".golden")
	if *update {
		mkdir(t, filepath.Dir(path))
		writeFile(t, path, got)
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./cmd/memidx -run %s -update)", err, t.Name())
	}
	if string(want) != got {
		t.Errorf("%s differs from the golden file (run with -update to accept):\n--- want\n%s\n--- got\n%s", path, want, got)
	}
}

// cliCase is one command line and what it must exit with.
type cliCase struct {
	name  string
	args  []string
	stdin string
	exit  int
	tty   bool
	// setup prepares the world further.
	setup func(t *testing.T, w *world)
	// bare leaves out the --agent-dir/--index-dir/--cwd flags.
	bare bool
}

func (c cliCase) run(t *testing.T) {
	w := newWorld(t)
	if c.setup != nil {
		c.setup(t, w)
	}
	var args []string
	if !c.bare {
		args = append(args, "--agent-dir", w.agent, "--index-dir", w.index, "--cwd", w.proj)
	}
	for _, a := range c.args {
		args = append(args, w.expand(a))
	}
	var served func()
	if caseServer != nil {
		served = caseServer(t, c, args)
	}
	r := runCLI(t, args, w.expand(c.stdin), c.tty)
	if served != nil {
		served()
	}
	if r.code != c.exit {
		t.Errorf("exit %d, want %d\nstdout: %s\nstderr: %s", r.code, c.exit, r.stdout, r.stderr)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "$ memidx %s\n", strings.Join(c.args, " "))
	if c.stdin != "" {
		fmt.Fprintf(&b, "stdin: %s\n", c.stdin)
	}
	if c.tty {
		b.WriteString("(on a terminal)\n")
	}
	fmt.Fprintf(&b, "exit %d\n--- stdout\n%s--- stderr\n%s", r.code, w.mask(r.stdout), w.mask(r.stderr))
	golden(t, c.name, b.String())
}

// caseServer, when set, starts a server for a case before it runs and
// returns what checks it after (socket_test.go).
var caseServer func(t *testing.T, c cliCase, args []string) (after func())

func runCases(t *testing.T, cases []cliCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, c.run)
	}
}
