//go:build unix

package reliability

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/memidx/memidx/internal/session/locate"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/internal/jsjson"
)

// ---------------------------------------------------------------------------
// The CLI under test, built once per run.

var (
	binOnce sync.Once
	binDir  string
	binPath string
	binErr  error
	errNoGo = errors.New("go is not on PATH")
)

// sharedDirs are fixture directories shared by several tests, removed when
// the run ends.
var (
	sharedMu   sync.Mutex
	sharedDirs []string
)

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	for _, d := range sharedDirs {
		os.RemoveAll(d)
	}
	os.Exit(code)
}

// memidxBin builds the memidx CLI once (go build, optionally -race with
// MEMIDX_CLI_RACE=1) and returns its path; it skips when go is missing.
// MEMIDX_BIN names a CLI built beforehand instead (for a run as another
// user, who may not be able to use the Go toolchain's caches).
func memidxBin(t testing.TB) string {
	t.Helper()
	binOnce.Do(func() {
		if p := os.Getenv("MEMIDX_BIN"); p != "" {
			binPath = p
			return
		}
		goTool, err := exec.LookPath("go")
		if err != nil {
			binErr = errNoGo
			return
		}
		binDir, binErr = os.MkdirTemp("", "memidx-reliability-")
		if binErr != nil {
			return
		}
		binPath = filepath.Join(binDir, "memidx")
		args := []string{"build", "-o", binPath}
		if os.Getenv("MEMIDX_CLI_RACE") != "" {
			args = append(args, "-race")
		}
		args = append(args, "github.com/memidx/memidx/cmd/memidx")
		out, err := exec.Command(goTool, args...).CombinedOutput()
		if err != nil {
			binErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if errors.Is(binErr, errNoGo) {
		t.Skip("go is not on PATH: cannot build the memidx CLI")
	}
	require.NoError(t, binErr)
	return binPath
}

// ---------------------------------------------------------------------------
// Seeds.

// baseSeed is MEMIDX_RELIABILITY_SEED, or a fixed default.
func baseSeed() uint64 {
	if s := os.Getenv("MEMIDX_RELIABILITY_SEED"); s != "" {
		if v, err := strconv.ParseUint(s, 10, 64); err == nil {
			return v
		}
	}
	return 20260901
}

// seeded returns the test's own random stream (the base seed mixed with the
// test name) and logs how to reproduce it.
func seeded(t testing.TB) *rand.Rand { return seededAs(t, t.Name()) }

// seededAs is seeded for a stream named by name rather than by the test
// (fixtures shared by several tests).
func seededAs(t testing.TB, name string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(name))
	s := baseSeed()
	t.Logf("seed: MEMIDX_RELIABILITY_SEED=%d (stream %q)", s, name)
	return rand.New(rand.NewPCG(s, h.Sum64()))
}

// envInt reads a positive integer environment variable.
func envInt(name string, def int) int {
	if s := os.Getenv(name); s != "" {
		if v, err := strconv.Atoi(s); err == nil && v > 0 {
			return v
		}
	}
	return def
}

// ---------------------------------------------------------------------------
// A world: an agent directory, a project and an index directory, with a
// process environment that sees nothing of the real machine.

type world struct {
	t        testing.TB
	bin      string
	root     string
	home     string
	agent    string
	project  string
	bucket   string
	index    string
	procEnv  []string
	nWritten int
}

func newWorld(t testing.TB) *world {
	t.Helper()
	return newWorldIn(t, t.TempDir())
}

// sharedWorld is a world that outlives the test that builds it, for
// fixtures several tests share.
func sharedWorld(t testing.TB) *world {
	t.Helper()
	root, err := os.MkdirTemp("", "memidx-shared-")
	require.NoError(t, err)
	sharedMu.Lock()
	sharedDirs = append(sharedDirs, root)
	sharedMu.Unlock()
	return newWorldIn(t, root)
}

func newWorldIn(t testing.TB, root string) *world {
	t.Helper()
	bin := memidxBin(t)
	w := &world{t: t, bin: bin, root: root,
		home: filepath.Join(root, "home"), project: filepath.Join(root, "proj"), index: filepath.Join(root, "index")}
	w.agent = filepath.Join(w.home, ".omp", "agent")
	tmp := filepath.Join(root, "tmp")
	for _, d := range []string{w.home, w.project, tmp} {
		require.NoError(t, os.MkdirAll(d, 0o755))
	}
	env := locate.Env{Home: w.home, Cwd: w.project, TmpDir: tmp, LookupEnv: locate.EnvMap(nil)}
	w.bucket = filepath.Join(w.agent, "sessions", locate.BucketNames(w.project, env)[0])
	require.NoError(t, os.MkdirAll(w.bucket, 0o755))
	w.procEnv = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + w.home, "TMPDIR=" + tmp, "LANG=C.UTF-8"}
	return w
}

// sessionPath names the n-th session file of the bucket.
func (w *world) sessionPath(id string) string {
	w.nWritten++
	return filepath.Join(w.bucket, fmt.Sprintf("2026-09-01T10-%02d-%02d-000Z_%s.jsonl", w.nWritten/60%60, w.nWritten%60, id))
}

// writeSession writes a session file and sets its mtime to base + n
// minutes, so that later sessions are newer and no two share an mtime.
func (w *world) writeSession(id string, body []byte) string {
	p := w.sessionPath(id)
	require.NoError(w.t, os.WriteFile(p, body, 0o600))
	mt := time.Date(2026, 9, 1, 10, 0, 0, 0, time.UTC).Add(time.Duration(w.nWritten) * time.Minute)
	require.NoError(w.t, os.Chtimes(p, mt, mt))
	return p
}

// result is one finished CLI run.
type result struct {
	args     []string
	stdout   []byte
	stderr   []byte
	code     int
	dur      time.Duration
	timedOut bool
	maxRSSKB int64 // with /usr/bin/time -v only
}

func (r result) String() string {
	return fmt.Sprintf("memidx %s: exit %d after %v (timed out %v)\nstdout: %s\nstderr: %s",
		strings.Join(shorten(r.args), " "), r.code, r.dur.Round(time.Millisecond), r.timedOut, clip(r.stdout, 2000), clip(r.stderr, 2000))
}

func shorten(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		if len(a) > 300 {
			a = a[:300] + fmt.Sprintf("…(%d bytes)", len(a))
		}
		out[i] = a
	}
	return out
}

func clip(b []byte, n int) string {
	if len(b) > n {
		return string(b[:n]) + fmt.Sprintf("…(%d bytes)", len(b))
	}
	return string(b)
}

// runOpts tune one CLI run.
type runOpts struct {
	index   string // "" is the world's index
	timeout time.Duration
	stdin   []byte
	global  []string // extra global flags
	timeV   bool     // wrap in /usr/bin/time -v to measure the peak RSS
}

// run runs the CLI with the world's directories. A run that outlives its
// timeout is killed and reported with timedOut.
func (w *world) run(o runOpts, args ...string) result {
	if o.timeout == 0 {
		o.timeout = 20 * time.Second
	}
	idx := o.index
	if idx == "" {
		idx = w.index
	}
	full := append([]string{"--agent-dir", w.agent, "--index-dir", idx, "--cwd", w.project}, o.global...)
	full = append(full, args...)
	ctx, cancel := context.WithTimeout(context.Background(), o.timeout)
	defer cancel()
	name, argv := w.bin, full
	if o.timeV {
		name, argv = "/usr/bin/time", append([]string{"-v", w.bin}, full...)
	}
	cmd := exec.CommandContext(ctx, name, argv...)
	cmd.Dir = w.project
	cmd.Env = w.procEnv
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 2 * time.Second
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if o.stdin != nil {
		cmd.Stdin = bytes.NewReader(o.stdin)
	}
	start := time.Now()
	err := cmd.Run()
	r := result{args: args, stdout: out.Bytes(), stderr: errb.Bytes(), dur: time.Since(start)}
	r.timedOut = ctx.Err() != nil
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	default:
		r.code = -1
	}
	if o.timeV {
		r.maxRSSKB = parseMaxRSS(r.stderr)
	}
	return r
}

func parseMaxRSS(stderr []byte) int64 {
	for _, l := range strings.Split(string(stderr), "\n") {
		l = strings.TrimSpace(l)
		if v, ok := strings.CutPrefix(l, "Maximum resident set size (kbytes):"); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			return n
		}
	}
	return 0
}

// problem returns what is wrong with a run that must end cleanly: a hang,
// a crash, a panic, an exit code other than 0, 1 (answered with an error)
// or 2 (usage), output that is not one JSON value, an exit 1 or 2 without
// a JSON error, or an internal_error.
func (r result) problem() string {
	switch {
	case r.timedOut:
		return "hang: killed after the timeout"
	case bytes.Contains(r.stderr, []byte("WARNING: DATA RACE")):
		return "data race (MEMIDX_CLI_RACE build)"
	case bytes.Contains(r.stderr, []byte("panic:")) || bytes.Contains(r.stderr, []byte("goroutine ")):
		return "panic in stderr"
	case r.code != 0 && r.code != 1 && r.code != 2:
		return fmt.Sprintf("exit code %d", r.code)
	case bytes.Contains(r.stdout, []byte(`"internal_error"`)):
		return "internal_error"
	}
	var v any
	dec := json.NewDecoder(bytes.NewReader(r.stdout))
	if err := dec.Decode(&v); err != nil {
		return "stdout is not JSON: " + err.Error()
	}
	if dec.More() {
		return "stdout holds more than one JSON value"
	}
	if r.code == 1 || r.code == 2 {
		var e struct {
			Error *struct {
				Code    string `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if json.Unmarshal(r.stdout, &e) != nil || e.Error == nil || e.Error.Code == "" {
			return fmt.Sprintf("exit %d without a JSON error", r.code)
		}
	}
	return ""
}

// clean asserts that r ended cleanly (see problem).
func clean(t testing.TB, r result) bool {
	t.Helper()
	if p := r.problem(); p != "" {
		t.Errorf("%s\n%s", p, r)
		return false
	}
	return true
}

// errCode is the error code of a failed run ("" when it succeeded).
func (r result) errCode() string {
	var e struct {
		Error *struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	if json.Unmarshal(r.stdout, &e) == nil && e.Error != nil {
		return e.Error.Code
	}
	return ""
}

// ---------------------------------------------------------------------------
// Wire shapes, decoded independently of package engine.

type coverageOut struct {
	Complete           bool     `json:"complete"`
	IndexedSessions    int      `json:"indexedSessions"`
	EligibleSessions   int      `json:"eligibleSessions"`
	StaleSessions      int      `json:"staleSessions"`
	IncompleteSessions int      `json:"incompleteSessions"`
	Reasons            []string `json:"reasons"`
	Error              *errOut  `json:"error"`
}

type errOut struct {
	Code             string  `json:"code"`
	Message          string  `json:"message"`
	ActualSourceHash *string `json:"actualSourceHash"`
}

type callOut struct {
	Ref  string          `json:"ref"`
	Args json.RawMessage `json:"args"`
}

type hitOut struct {
	Kind      string   `json:"kind"`
	SessionID string   `json:"sessionId"`
	Tier      string   `json:"tier"`
	Index     int      `json:"index"`
	EntryID   *string  `json:"entryId"`
	Score     float64  `json:"score"`
	Snippet   string   `json:"snippet"`
	Truncated bool     `json:"truncated"`
	Follow    *callOut `json:"follow"`
}

type recallOut struct {
	Total    int         `json:"total"`
	Hits     []hitOut    `json:"hits"`
	Next     *callOut    `json:"next"`
	Coverage coverageOut `json:"coverage"`
	Error    *errOut     `json:"error"`
}

type expandedOut struct {
	Index     int     `json:"index"`
	EntryID   *string `json:"entryId"`
	Text      string  `json:"text"`
	TextRange struct {
		Start    int  `json:"start"`
		End      int  `json:"end"`
		Total    int  `json:"total"`
		Complete bool `json:"complete"`
	} `json:"textRange"`
}

type expandOut struct {
	Session    string        `json:"session"`
	SourceHash string        `json:"sourceHash"`
	EntryCount *int          `json:"entryCount"`
	Entries    []expandedOut `json:"entries"`
	Next       *callOut      `json:"next"`
	Error      *errOut       `json:"error"`
}

func decodeRecall(t testing.TB, r result) recallOut {
	t.Helper()
	var out recallOut
	require.NoError(t, json.Unmarshal(r.stdout, &out), "%s", r)
	return out
}

// hitKey is what two answers must agree on for a hit.
type hitKey struct {
	Kind      string
	SessionID string
	Index     int
	EntryID   string
	Score     float64
	Snippet   string
}

func keysOf(hits []hitOut) []hitKey {
	out := make([]hitKey, len(hits))
	for i, h := range hits {
		k := hitKey{Kind: h.Kind, SessionID: h.SessionID, Index: h.Index, Score: h.Score, Snippet: h.Snippet}
		if h.EntryID != nil {
			k.EntryID = *h.EntryID
		}
		if h.Kind == "session" {
			k.Index = -1
		}
		out[i] = k
	}
	return out
}

// ---------------------------------------------------------------------------
// Session lines, in the shapes of engine_test.go.

func jsString(s string) string { return string(jsjson.AppendString(nil, s)) }

func headerLine(id, cwd string) string {
	return fmt.Sprintf(`{"type":"session","version":3,"id":%q,"timestamp":"2026-09-01T10:00:00.000Z","cwd":%s}`, id, jsString(cwd))
}

func msgLine(id, parent, ts string, message string) string {
	p := "null"
	if parent != "" {
		p = jsString(parent)
	}
	return fmt.Sprintf(`{"type":"message","id":%s,"parentId":%s,"timestamp":%q,"message":%s}`, jsString(id), p, ts, message)
}

func userMsg(text string) string { return fmt.Sprintf(`{"role":"user","content":%s}`, jsString(text)) }

func assistantMsg(text string) string {
	return fmt.Sprintf(`{"role":"assistant","content":[{"type":"text","text":%s}],"stopReason":"stop","usage":{"cost":{"total":0}}}`, jsString(text))
}

func thinkingMsg(thinking, text string) string {
	return fmt.Sprintf(`{"role":"assistant","content":[{"type":"thinking","thinking":%s},{"type":"text","text":%s}],"stopReason":"stop","usage":{"cost":{"total":0}}}`, jsString(thinking), jsString(text))
}

func toolCallMsg(callID, name, args string) string {
	return fmt.Sprintf(`{"role":"assistant","content":[{"type":"toolCall","id":%q,"name":%q,"arguments":%s}],"stopReason":"toolUse"}`, callID, name, args)
}

func toolResultMsg(callID, name, out string, isErr bool, exit int) string {
	return fmt.Sprintf(`{"role":"toolResult","toolCallId":%q,"toolName":%q,"content":[{"type":"text","text":%s}],"isError":%v,"details":{"exitCode":%d}}`, callID, name, jsString(out), isErr, exit)
}

func tsAt(i int) string {
	return time.Date(2026, 9, 1, 10, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Second).Format("2006-01-02T15:04:05.000Z")
}

// ---------------------------------------------------------------------------
// A deterministic corpus generator.

// Planted terms use q and z, which the generated vocabulary never does, so
// no generated word can equal them.
const (
	abandonedTerm = "zqabandonedquokka"
	thinkingTerm  = "zqthinkingsecret"
)

var syllables = []string{"ba", "ce", "di", "fo", "gu", "ha", "ke", "li", "mo", "nu", "pa", "re", "si", "to", "vu", "wa", "ye",
	"bra", "cle", "dri", "flo", "gru", "pla", "sto", "tri", "ven", "mar", "lin", "dor", "pet", "kas"}

type gen struct {
	r     *rand.Rand
	words []string
}

func newGen(r *rand.Rand) *gen {
	g := &gen{r: r}
	seen := map[string]bool{}
	for len(g.words) < 3000 {
		var b strings.Builder
		for n := 2 + r.IntN(3); n > 0; n-- {
			b.WriteString(syllables[r.IntN(len(syllables))])
		}
		if w := b.String(); !seen[w] {
			seen[w] = true
			g.words = append(g.words, w)
		}
	}
	return g
}

// word is Zipf-ish: a few words are common, most are rare.
func (g *gen) word() string {
	f := g.r.Float64()
	return g.words[int(f*f*f*float64(len(g.words)))]
}

func (g *gen) text(n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		if i > 0 {
			if g.r.IntN(12) == 0 {
				b.WriteString(".\n")
			} else {
				b.WriteByte(' ')
			}
		}
		b.WriteString(g.word())
	}
	return b.String()
}

// model is a session under construction: its lines and the active leaf.
type model struct {
	id    string
	lines []string
	leaf  string
	seq   int
	size  int
}

func newModel(id, cwd string) *model {
	h := headerLine(id, cwd)
	return &model{id: id, lines: []string{h}, size: len(h) + 1}
}

func (m *model) bytes() []byte { return []byte(strings.Join(m.lines, "\n") + "\n") }

func (m *model) nextID(prefix string) string {
	m.seq++
	return fmt.Sprintf("%s%d", prefix, m.seq)
}

func (m *model) add(prefix, message string) string {
	id := m.nextID(prefix)
	l := msgLine(id, m.leaf, tsAt(m.seq), message)
	m.lines = append(m.lines, l)
	m.size += len(l) + 1
	m.leaf = id
	return id
}

// turn appends a user question, a tool call, its result and an answer
// whose sizes scale with words; it returns the appended lines.
func (g *gen) turn(m *model, words int) []string {
	before := len(m.lines)
	m.add("u", userMsg(g.text(1+words/8)))
	call := m.nextID("c")
	m.add("a", toolCallMsg(call, "bash", fmt.Sprintf(`{"command":%s}`, jsString("grep -rn "+g.word()+" ."))))
	fail := g.r.IntN(5) == 0
	exit := 0
	if fail {
		exit = 1
	}
	m.add("r", toolResultMsg(call, "bash", g.text(words), fail, exit))
	m.add("a", assistantMsg(g.text(1+words/2)))
	return append([]string(nil), m.lines[before:]...)
}

// abandon adds a branch that the active path leaves behind: an answer
// holding abandonedTerm, then a sibling answer to the same question that
// the session continues from.
func (g *gen) abandon(m *model) {
	q := m.add("u", userMsg("which approach "+g.text(6)))
	m.add("a", assistantMsg("abandoned approach "+abandonedTerm+" "+g.text(20)))
	m.leaf = q
	m.add("a", assistantMsg("chosen approach "+g.text(20)))
}

// session builds a session of about size bytes with an abandoned branch.
func (g *gen) session(id, cwd string, size, words int) *model {
	m := newModel(id, cwd)
	n := 0
	for m.size < size || n < 2 {
		g.turn(m, words)
		if n == 1 {
			g.abandon(m)
		}
		n++
	}
	return m
}

// ---------------------------------------------------------------------------
// Small helpers.

func percentile(d []time.Duration, p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(a, b int) bool { return s[a] < s[b] })
	i := int(p * float64(len(s)-1))
	return s[i]
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// assertSameHits compares two recall answers hit by hit. A page that the
// 30,000-unit envelope cut shorter (an answer around a foreign index file
// carries an error naming its path, whose length varies) shows a prefix of
// the same stream and a next call for the rest.
func assertSameHits(t testing.TB, want, got recallOut, msgAndArgs ...any) bool {
	t.Helper()
	ok := assert.Equal(t, want.Total, got.Total, msgAndArgs...)
	w, g := keysOf(want.Hits), keysOf(got.Hits)
	if len(g) < len(w) && got.Next != nil {
		w = w[:len(g)]
	} else if len(w) < len(g) && want.Next != nil {
		g = g[:len(w)]
	}
	return assert.Equal(t, w, g, msgAndArgs...) && ok
}
