package corpus

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"
)

// model is the assistant model a session talks to.
type model struct {
	api, provider, id string
	// prices in dollars per million tokens
	in, out, cacheRead, cacheWrite float64
}

var models = []model{
	{"anthropic-messages", "anthropic", "claude-sonnet-4-5", 3, 15, 0.3, 3.75},
	{"anthropic-messages", "anthropic", "claude-opus-4-1", 15, 75, 1.5, 18.75},
	{"openai-responses", "openai", "gpt-5", 1.25, 10, 0.125, 0},
	{"openai-codex-responses", "openai-codex", "gpt-5-codex", 1.25, 10, 0.125, 0},
	{"google-generative-ai", "google", "gemini-2.5-pro", 1.25, 10, 0.31, 0},
}

var tinyModel = model{"openai-completions", "openai", "gpt-5-nano", 0.05, 0.4, 0.005, 0}

// gen writes one session file.
type gen struct {
	run *run
	t   *text
	w   jw
	s   []byte // scratch for text bodies

	rel, abs, id         string
	parentAbs, parentRel string
	agentID              string // subagents: the id under the parent's artifacts dir
	task, agent          string // subagents: the assignment and the agent name
	depth                int
	target               int64
	now                  int64 // unix ms of the latest entry
	info                 int   // index of this file's SessionInfo in run.infos

	bw      *bufio.Writer
	size    int64
	entries int

	ids       map[uint32]struct{}
	curID     string
	leaf      string
	path      []string // ids from the root to the leaf of the current branch
	userAt    []int    // positions in path of user messages
	abandoned bool     // writing an abandoned branch
	branched  bool
	abLog     []abEntry

	m          model
	thinking   string
	execStarts bool // writes custom tool_execution_start records
	ctxTokens  int
	agents     int
	readFiles  []string
	modFiles   []string
	fileSeen   map[string]bool
	usage      usage // totals, reported by a subagent to its task result

	plants    []*plant
	branchAt  []int64
	compactAt []int64
	flush     bool

	title, titleSource string
	titleChange        bool
	titleAt            int64
}

// abEntry remembers an entry written on an abandoned branch, for the
// branch summary envelope.
type abEntry struct {
	id, role, text string
	calls          []*call
}

type usage struct {
	input, output, cacheRead, cacheWrite int
	cost                                 [4]float64
}

// newGen prepares the file of a session created at created (unix ms). A
// top-level session (depth 0) is filed as <bucket>/<ts>_<id>.jsonl; a
// subagent gets rel from its parent.
func newGen(r *run, t *text, created int64, bucket, rel, parentAbs string, target int64, depth int) *gen {
	g := &gen{
		run: r, t: t, rel: rel, parentAbs: parentAbs, depth: depth, target: target,
		now: created, ids: map[uint32]struct{}{}, fileSeen: map[string]bool{},
	}
	g.id = uuidV7(created, t.r)
	if rel == "" {
		g.rel = "sessions/" + bucket + "/" + fileStamp(created) + "_" + g.id + ".jsonl"
	}
	g.info = len(r.infos)
	r.infos = append(r.infos, SessionInfo{})
	return g
}

// uuidV7 makes a UUIDv7-shaped id from a creation time and random bits.
func uuidV7(ms int64, r *rand.Rand) string {
	var b [16]byte
	for i := range 6 {
		b[i] = byte(ms >> (40 - 8*i))
	}
	x, y := r.Uint64(), r.Uint64()
	for i := 6; i < 16; i++ {
		if i < 8 {
			b[i] = byte(x >> (8 * i))
		} else {
			b[i] = byte(y >> (8 * (i - 8)))
		}
	}
	b[6] = 0x70 | b[6]&0x0f
	b[8] = 0x80 | b[8]&0x3f
	const h = hexDigits
	out := make([]byte, 0, 36)
	for i, c := range b {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			out = append(out, '-')
		}
		out = append(out, h[c>>4], h[c&15])
	}
	return string(out)
}

// iso formats unix milliseconds as OMP writes timestamps.
func iso(ms int64) string {
	return time.UnixMilli(ms).UTC().Format("2006-01-02T15:04:05.000Z")
}

// fileStamp is the ISO time with ':' and '.' replaced by '-', as OMP names
// session files.
func fileStamp(ms int64) string {
	return strings.NewReplacer(":", "-", ".", "-").Replace(iso(ms))
}

// tick advances the clock by a random amount in [lo, hi] milliseconds.
func (g *gen) tick(lo, hi int) { g.now += int64(g.t.between(lo, hi)) }

// lite reports whether the session is small (a quick exchange of a few
// KB): it then gets fewer and shorter tool calls.
func (g *gen) lite() bool { return g.target < 25e3 }

// write generates the session into its file: a placeholder slot, the
// header and the entries, then the real title slot in place. It records
// the file in run.infos.
func (g *gen) write() error {
	full := filepath.Join(g.run.c.opt.Out, filepath.FromSlash(g.rel))
	if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
		return fmt.Errorf("corpus: %w", err)
	}
	f, err := os.Create(full)
	if err != nil {
		return fmt.Errorf("corpus: %w", err)
	}
	g.abs = agentSessionsDir + "/" + strings.TrimPrefix(g.rel, "sessions/")
	g.bw = bufio.NewWriterSize(f, 256<<10)
	// The title slot is written last, in place, as OMP does.
	g.emit([]byte(strings.Repeat(" ", 255) + "\n"))
	created := g.now
	if g.depth == 0 {
		g.body()
	} else {
		g.subBody()
	}
	updated := created
	if g.titleAt != 0 {
		updated = g.titleAt
	}
	err = g.bw.Flush()
	if err == nil {
		_, err = f.WriteAt(titleSlot(g.title, g.titleSource, updated), 0)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("corpus: %w", err)
	}
	g.run.infos[g.info] = SessionInfo{
		Path: g.rel, ID: g.id, Cwd: g.t.p.cwd, Bucket: strings.Split(g.rel, "/")[1],
		Bytes: g.size, Mtime: time.UnixMilli(g.now + int64(g.t.between(5, 4000))).UTC(),
		Entries: g.entries, Branched: g.branched, Leaf: g.leaf, Parent: g.parentRel,
	}
	return nil
}

// emit writes one line.
func (g *gen) emit(line []byte) {
	g.bw.Write(line) // errors surface at Flush
	g.size += int64(len(line))
}

// titleSlot renders the fixed 256-byte first line. The title is cut to
// whole code points until the line fits.
func titleSlot(title, source string, updated int64) []byte {
	for {
		var w jw
		w.obj()
		w.kstr("type", "title")
		w.kint("v", 1)
		w.kstr("title", title)
		if source != "" && title != "" {
			w.kstr("source", source)
		}
		w.kstr("updatedAt", iso(updated))
		w.key("pad")
		base := len(w.b) + len(`""}`) + 1
		if base <= 256 {
			w.str(strings.Repeat(" ", 256-base))
			w.endObj()
			return append(w.b, '\n')
		}
		_, n := utf8.DecodeLastRuneInString(title)
		title = title[:len(title)-n]
	}
}

// start begins an entry of the common shape {type, id, parentId, timestamp, …}.
func (g *gen) start(typ string) {
	g.w.reset()
	g.w.obj()
	g.w.kstr("type", typ)
	g.curID = g.newID()
	g.w.kstr("id", g.curID)
	g.w.kstrOrNull("parentId", g.leaf)
	g.w.kstr("timestamp", iso(g.now))
}

// startMessage begins a message entry and opens its message object with
// the given role.
func (g *gen) startMessage(role string) {
	g.start("message")
	g.w.key("message")
	g.w.obj()
	g.w.kstr("role", role)
}

// startCustom begins a custom or custom_message entry, whose id, parentId
// and timestamp come last (OMP spreads the payload first).
func (g *gen) startCustom(typ, customType string) {
	g.w.reset()
	g.w.obj()
	g.w.kstr("type", typ)
	g.w.kstr("customType", customType)
	g.curID = g.newID()
}

// finishCustom writes id, parentId and timestamp and finishes the entry.
func (g *gen) finishCustom() {
	g.w.kstr("id", g.curID)
	g.w.kstrOrNull("parentId", g.leaf)
	g.w.kstr("timestamp", iso(g.now))
	g.finish()
}

// finish closes the entry, writes it and makes it the leaf.
func (g *gen) finish() {
	g.w.endObj()
	g.w.b = append(g.w.b, '\n')
	g.emit(g.w.b)
	g.ctxTokens += len(g.w.b) / 4
	g.entries++
	g.leaf = g.curID
	g.path = append(g.path, g.curID)
	if g.abandoned {
		g.abLog = append(g.abLog, abEntry{id: g.curID})
	}
}

// newID returns an entry id of 8 hex digits, unique in the file.
func (g *gen) newID() string {
	for {
		v := g.t.r.Uint32()
		if _, ok := g.ids[v]; !ok {
			g.ids[v] = struct{}{}
			return fmt.Sprintf("%08x", v)
		}
	}
}

// header writes the session header line.
func (g *gen) header() {
	w := &g.w
	w.reset()
	w.obj()
	w.kstr("type", "session")
	w.kint("version", 3)
	w.kstr("id", g.id)
	w.kstr("timestamp", iso(g.now))
	w.kstr("cwd", g.t.p.cwd)
	if g.parentAbs != "" {
		w.kstr("parentSession", g.parentAbs)
	}
	if g.title != "" {
		w.kstr("title", g.title)
		w.kstr("titleSource", g.titleSource)
	}
	w.endObj()
	w.b = append(w.b, '\n')
	g.emit(w.b)
}

// body writes a top-level session: settings records, then turns with
// events between them until the size target is reached and every plant
// is planted.
func (g *gen) body() {
	t := g.t
	g.m = models[[]int{0, 0, 0, 0, 1, 2, 2, 3, 4, 4}[t.n(10)]]
	g.execStarts = t.chance(0.5)
	g.header()
	g.tick(200, 3000)
	if !g.lite() && t.chance(0.3) {
		g.sessionInit("", "")
	}
	g.modelChange("default")
	g.thinkingChange()
	if t.chance(0.1) {
		g.start("service_tier_change")
		g.w.key("serviceTier")
		g.w.obj()
		g.w.kstr(t.pick([]string{"anthropic", "openai"}), t.pick([]string{"priority", "flex", "default"}))
		g.w.endObj()
		g.finish()
	}
	if t.chance(0.05) {
		g.start("mode_change")
		g.w.kstr("mode", "plan")
		g.finish()
	}
	first := true
	for iter := 0; iter < 100000; iter++ {
		g.flush = g.size >= g.target
		if g.flush && !g.pending() {
			break
		}
		if g.branchDue() {
			g.branch()
			continue
		}
		if p := g.due(pCompaction); p != nil || g.compactionDue() {
			g.compaction(p)
		}
		if p := g.due(pCustom); p != nil || t.chance(0.04) {
			g.customMessage(p)
		}
		if p := g.due(pBashExec); p != nil || t.chance(0.05) {
			g.bashExecution(p)
		}
		g.sideEntries()
		g.turn()
		if first {
			first = false
			if g.titleChange {
				g.tick(500, 4000)
				g.start("title_change")
				g.w.kstr("title", g.title)
				g.w.kstr("source", g.titleSource)
				if g.titleSource == "user" {
					g.w.kstr("previousTitle", t.title())
				}
				g.titleAt = g.now
				g.finish()
				if t.chance(0.5) {
					g.modelUsage("title")
				}
			}
		}
	}
	if t.chance(0.3) {
		g.tick(1000, 60000)
		g.startCustom("custom", "session_exit")
		g.w.key("data")
		g.w.obj()
		g.w.kstr("reason", t.pick([]string{"user_exit", "sigint", "idle"}))
		g.w.kstr("kind", t.pick([]string{"normal", "normal", "signal"}))
		g.w.kstr("recordedAt", iso(g.now))
		g.w.endObj()
		g.finishCustom()
	}
}

// sideEntries now and then writes a label, model_usage, model change,
// thinking level change, ttsr_injection or reset_boundary.
func (g *gen) sideEntries() {
	t := g.t
	if t.chance(0.03) && len(g.path) > 2 {
		g.tick(1000, 30000)
		g.start("label")
		g.w.kstr("targetId", g.path[t.n(len(g.path)-1)])
		if t.n(6) > 0 {
			g.w.kstr("label", t.pick([]string{"before-refactor", "checkpoint", "good state", "repro", "✅ tests green", "try-2"}))
		}
		g.finish()
	}
	if t.chance(0.03) {
		g.modelUsage(t.pick([]string{"summary", "title", "classify"}))
	}
	if t.chance(0.012) {
		g.m = models[t.n(len(models))]
		g.modelChange(t.pick([]string{"default", "default", "smol", "slow"}))
	}
	if t.chance(0.015) {
		g.thinkingChange()
	}
	if t.chance(0.015) {
		g.tick(100, 2000)
		g.start("ttsr_injection")
		g.w.kstrs("injectedRules", []string{t.pick([]string{"no-sleep-in-tests", "prefer-table-tests", "no-any", "small-commits"})})
		g.finish()
	}
	if t.chance(0.006) {
		g.tick(1000, 60000)
		g.start("reset_boundary")
		g.finish()
	}
}

// sessionInit writes a session_init record; agent is set for a subagent.
func (g *gen) sessionInit(task, agent string) {
	t := g.t
	g.start("session_init")
	g.s = t.prose(g.s[:0], t.between(1500, 6000))
	g.w.kstr("systemPrompt", "You are omp, a coding agent working in "+t.p.cwd+".\n\n"+string(g.s))
	if task == "" {
		task = t.shortText(t.between(4, 10))
	}
	g.w.kstr("task", task)
	tools := []string{"read", "grep", "find", "ls", "edit", "write", "bash", "task", "fabric_exec", "web_search", "todo_write"}
	if agent != "" {
		tools = []string{"read", "grep", "find", "ls", "bash"}
	}
	g.w.kstrs("tools", tools)
	if agent != "" {
		g.w.kstr("agent", agent)
		g.w.kstr("spawns", "")
	}
	g.finish()
}

// modelChange writes a model_change to the session's current model.
func (g *gen) modelChange(role string) {
	g.tick(10, 500)
	g.start("model_change")
	g.w.kstr("model", g.m.provider+"/"+g.m.id)
	g.w.kstr("role", role)
	g.w.kbool("resolvedModelIsFallback", false)
	g.finish()
}

// thinkingChange picks a thinking level and writes it.
func (g *gen) thinkingChange() {
	t := g.t
	g.thinking = t.pick([]string{"high", "high", "medium", "low", "off", "xhigh"})
	if g.thinking == "off" {
		for _, p := range g.plants {
			if p.kind == pThinking && !p.done {
				g.thinking = "medium"
			}
		}
	}
	g.tick(10, 500)
	g.start("thinking_level_change")
	g.w.kstr("thinkingLevel", g.thinking)
	if t.chance(0.2) {
		g.w.kstr("configured", "auto")
	} else {
		g.w.kstr("configured", g.thinking)
	}
	g.finish()
}

// modelUsage writes a model_usage record of a side call to a tiny model.
func (g *gen) modelUsage(purpose string) {
	g.tick(300, 5000)
	g.start("model_usage")
	g.w.kstr("purpose", purpose)
	g.w.kstr("role", "tiny")
	m := tinyModel
	g.w.kstr("api", m.api)
	g.w.kstr("provider", m.provider)
	g.w.kstr("model", m.id)
	in := g.t.between(200, 4000)
	g.writeUsage(m, in, 0, 0, g.t.between(5, 300))
	g.w.kstr("stopReason", "stop")
	g.finish()
}

// writeUsage writes a usage object with its cost, as OMP requires.
func (g *gen) writeUsage(m model, input, cacheRead, cacheWrite, output int) {
	w := &g.w
	w.key("usage")
	w.obj()
	w.kint("input", int64(input))
	w.kint("output", int64(output))
	w.kint("cacheRead", int64(cacheRead))
	w.kint("cacheWrite", int64(cacheWrite))
	w.kint("totalTokens", int64(input+output+cacheRead+cacheWrite))
	c := [4]float64{
		float64(input) * m.in / 1e6, float64(output) * m.out / 1e6,
		float64(cacheRead) * m.cacheRead / 1e6, float64(cacheWrite) * m.cacheWrite / 1e6,
	}
	w.key("cost")
	w.obj()
	w.knum("input", c[0])
	w.knum("output", c[1])
	w.knum("cacheRead", c[2])
	w.knum("cacheWrite", c[3])
	w.knum("total", c[0]+c[1]+c[2]+c[3])
	w.endObj()
	w.endObj()
	g.usage.input += input
	g.usage.output += output
	g.usage.cacheRead += cacheRead
	g.usage.cacheWrite += cacheWrite
	for i := range c {
		g.usage.cost[i] += c[i]
	}
}
