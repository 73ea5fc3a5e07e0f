package benchmark

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/memidx/memidx/engine"
	"github.com/memidx/memidx/internal/catalog"
	"github.com/memidx/memidx/internal/corpus"
	"github.com/memidx/memidx/internal/coverage"
	"github.com/memidx/memidx/internal/index"
	"github.com/memidx/memidx/internal/jsjson"
)

// Options configure a run.
type Options struct {
	// Corpus is a directory made by memidx gen (sessions/ and
	// manifest.json). It is only read: the bench works on a mirror of it
	// in its temporary directory, and refuses a manifest naming a path
	// outside it. Empty: generate Sessions sessions into that directory.
	Corpus   string
	Sessions int
	Seed     int64
	Scale    float64
	// Binary is the memidx executable for whole-process timings; empty
	// means the running executable.
	Binary string
	// Runs is how many times each latency is measured.
	Runs int
	// Progress receives one line per phase.
	Progress io.Writer
}

// Latency summarizes repeated timings in milliseconds.
type Latency struct {
	Runs int     `json:"runs"`
	Min  float64 `json:"minMs"`
	P50  float64 `json:"p50Ms"`
	P95  float64 `json:"p95Ms"`
	P99  float64 `json:"p99Ms"`
	Max  float64 `json:"maxMs"`
}

func summarize(d []time.Duration) Latency {
	if len(d) == 0 {
		return Latency{}
	}
	ms := make([]float64, len(d))
	for i, x := range d {
		ms[i] = float64(x.Microseconds()) / 1000
	}
	sort.Float64s(ms)
	q := func(p float64) float64 {
		i := int(math.Ceil(p*float64(len(ms)))) - 1
		if i < 0 {
			i = 0
		}
		return ms[i]
	}
	return Latency{Runs: len(ms), Min: ms[0], P50: q(0.5), P95: q(0.95), P99: q(0.99), Max: ms[len(ms)-1]}
}

// Check is one correctness check; a failed check fails the run.
type Check struct {
	Name   string `json:"name"`
	OK     bool   `json:"ok"`
	Detail string `json:"detail,omitempty"`
}

// Target is one of the performance targets, reported met or not.
type Target struct {
	Name  string  `json:"name"`
	Value float64 `json:"value"`
	Limit float64 `json:"limit"`
	Unit  string  `json:"unit"`
	// Max is true when Value must not exceed Limit, false when it must
	// reach it.
	Max bool `json:"max"`
	Met bool `json:"met"`
	// Hard targets fail the run when missed (bounds the product promises
	// on any machine); the others are reported.
	Hard bool `json:"hard"`
}

// Quality is recall quality on planted facts.
type Quality struct {
	Queries    int     `json:"queries"`
	RecallAt1  float64 `json:"recallAt1"`
	RecallAt10 float64 `json:"recallAt10"`
	MRR        float64 `json:"mrr"`
}

// Report is the result of a run.
type Report struct {
	Date        string             `json:"date"`
	Corpus      string             `json:"corpus"`
	Sessions    int                `json:"sessions"`
	SourceBytes int64              `json:"sourceBytes"`
	Rebuild     RebuildStats       `json:"rebuild"`
	Index       engine.IndexTotals `json:"index"`
	Latency     map[string]Latency `json:"latency"`
	Quality     map[string]Quality `json:"quality"`
	RSS         map[string]int64   `json:"peakRssKiB"`
	Checks      []Check            `json:"checks"`
	Targets     []Target           `json:"targets"`
	Failed      int                `json:"failed"`
	Notes       []string           `json:"notes,omitempty"`
}

// RebuildStats describe index construction.
type RebuildStats struct {
	Seconds          float64 `json:"seconds"`
	MBPerSecond      float64 `json:"mbPerSecond"`
	UserSeconds      float64 `json:"userSeconds"`
	SystemSeconds    float64 `json:"systemSeconds"`
	NoChangeMs       float64 `json:"noChangeRefreshMs"`
	OneAppendMs      float64 `json:"oneAppendRefreshMs"`
	OneAppendRebuilt int     `json:"oneAppendRebuilt"`
}

type runner struct {
	opt    Options
	rep    *Report
	dir    string // the corpus the bench works on, in its temporary directory
	idx    string // index dir
	man    *corpus.Manifest
	newest string // the session the refresh step appends to, relative to dir
	leaf   string // its leaf entry id
	eng    *engine.Engine
	binary string
	ctx    context.Context
	raw    map[string][]time.Duration
}

func (r *runner) logf(format string, a ...any) {
	if r.opt.Progress != nil {
		fmt.Fprintf(r.opt.Progress, format+"\n", a...)
	}
}

func (r *runner) check(name string, ok bool, format string, a ...any) {
	c := Check{Name: name, OK: ok, Detail: fmt.Sprintf(format, a...)}
	r.rep.Checks = append(r.rep.Checks, c)
	if !ok {
		r.rep.Failed++
		r.logf("FAIL %s: %s", name, c.Detail)
	}
}

func (r *runner) target(name string, value, limit float64, unit string, max, hard bool) {
	met := value >= limit
	if max {
		met = value <= limit
	}
	r.rep.Targets = append(r.rep.Targets, Target{Name: name, Value: round3(value), Limit: limit, Unit: unit, Max: max, Met: met, Hard: hard})
	if hard && !met {
		r.rep.Failed++
		r.logf("FAIL bound %s: %.3f %s (limit %.3f)", name, value, unit, limit)
	}
}

func round3(f float64) float64 { return math.Round(f*1000) / 1000 }

// Run runs the benchmark. A non-nil error means it could not run; failed
// checks are counted in Report.Failed.
func Run(ctx context.Context, opt Options) (*Report, error) {
	if opt.Runs <= 0 {
		opt.Runs = 20
	}
	r := &runner{opt: opt, ctx: ctx, rep: &Report{Date: time.Now().UTC().Format("2006-01-02"),
		Latency: map[string]Latency{}, Quality: map[string]Quality{}, RSS: map[string]int64{}}}
	tmp, err := os.MkdirTemp("", "memidx-bench-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	r.binary = opt.Binary
	if r.binary == "" {
		if r.binary, err = os.Executable(); err != nil {
			return nil, err
		}
	}
	if err := r.corpus(tmp); err != nil {
		return nil, err
	}
	r.idx = filepath.Join(tmp, "index")
	steps := []func() error{r.rebuild, r.refreshes, r.open, r.queries, r.wholeProcess}
	defer func() {
		if r.eng != nil {
			r.eng.Close()
		}
	}()
	for _, step := range steps {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if err := step(); err != nil {
			return r.rep, err
		}
	}
	return r.rep, nil
}

// corpus prepares the corpus in tmp/corpus: generated there, or a mirror
// of Options.Corpus, whose manifest is checked first.
func (r *runner) corpus(tmp string) error {
	r.dir = filepath.Join(tmp, "corpus")
	src := r.opt.Corpus
	if src == "" {
		if err := r.generate(); err != nil {
			return err
		}
		src = r.dir
	}
	root, m, err := loadManifest(src)
	if err != nil {
		return err
	}
	r.man = m
	r.newest, r.leaf = newestSession(root, m)
	if r.newest == "" {
		return fmt.Errorf("benchmark: no session named by %s exists", filepath.Join(src, "manifest.json"))
	}
	if r.opt.Corpus != "" {
		start := time.Now()
		st, err := mirror(root, r.dir)
		if err != nil {
			return fmt.Errorf("benchmark: mirroring %s: %w", src, err)
		}
		r.logf("mirrored %s: %d files copied in %.2fs", src, st.copied, time.Since(start).Seconds())
	}
	// Let the ctimes of generation, or of the copies, age out of the racy
	// window, as they would on any real archive.
	time.Sleep(index.DefaultRacyWindow)
	r.rep.Corpus = src
	r.rep.Sessions = len(m.Sessions)
	r.rep.SourceBytes = m.TotalBytes
	return nil
}

// generate writes Options.Sessions sessions into r.dir.
func (r *runner) generate() error {
	n := r.opt.Sessions
	if n <= 0 {
		n = 200
	}
	start := time.Now()
	m, err := corpus.Generate(corpus.Options{Sessions: n, Seed: r.opt.Seed, Out: r.dir, Scale: r.opt.Scale})
	if err != nil {
		return err
	}
	r.logf("generated %d sessions, %.1f MB in %.1fs", len(m.Sessions), float64(m.TotalBytes)/1e6, time.Since(start).Seconds())
	return nil
}

// cli runs the memidx binary and returns stdout, wall time and rusage.
func (r *runner) cli(args ...string) ([]byte, time.Duration, *usage, error) {
	return r.run(false, args...)
}

// cliRSS is cli with the process's own peak RSS (a little slower).
func (r *runner) cliRSS(args ...string) ([]byte, time.Duration, *usage, error) {
	return r.run(true, args...)
}

func (r *runner) run(rss bool, args ...string) ([]byte, time.Duration, *usage, error) {
	full := append([]string{"--agent-dir", r.dir, "--index-dir", r.idx}, args...)
	cmd := exec.CommandContext(r.ctx, r.binary, full...)
	// Linux counts in a child's peak RSS the memory of the process it was
	// started from (the bench, hundreds of MiB by now); /usr/bin/time
	// starts it from a small process and reports its own peak.
	var rssFile string
	if timeBin, err := exec.LookPath("/usr/bin/time"); err == nil && rss && runtime.GOOS == "linux" {
		f, err := os.CreateTemp("", "memidx-bench-rss")
		if err == nil {
			rssFile = f.Name()
			f.Close()
			defer os.Remove(rssFile)
			cmd = exec.CommandContext(r.ctx, timeBin, append([]string{"-f", "%M", "-o", rssFile, r.binary}, full...)...)
		}
	}
	var out strings.Builder
	cmd.Stdout = &out
	var errb strings.Builder
	cmd.Stderr = &errb
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	var ru *usage
	if cmd.ProcessState != nil {
		ru = usageOf(cmd.ProcessState)
	}
	if ru != nil && rssFile != "" {
		if b, err := os.ReadFile(rssFile); err == nil {
			lines := strings.Fields(string(b)) // a failure adds a line before it
			if len(lines) == 0 {
				lines = []string{""}
			}
			if kib, err := strconv.ParseInt(lines[len(lines)-1], 10, 64); err == nil {
				ru.maxRSSKiB = kib
			}
		}
	}
	if err != nil {
		return []byte(out.String()), wall, ru, fmt.Errorf("%s %s: %v: %s", r.binary, strings.Join(args, " "), err, errb.String())
	}
	return []byte(out.String()), wall, ru, nil
}

func (r *runner) rebuild() error {
	out, wall, ru, err := r.cliRSS("rebuild", "--scope", "global", "--json")
	if err != nil {
		return err
	}
	var rep engine.RebuildReport
	if err := json.Unmarshal(out, &rep); err != nil {
		return err
	}
	st := &r.rep.Rebuild
	st.Seconds = wall.Seconds()
	st.MBPerSecond = float64(rep.BytesRead) / 1e6 / wall.Seconds()
	if ru != nil {
		st.UserSeconds, st.SystemSeconds = ru.user, ru.system
		r.rep.RSS["rebuild"] = ru.maxRSSKiB
	}
	r.logf("rebuild: %d sessions, %.1f MB in %.2fs (%.1f MB/s), peak RSS %d MiB", rep.Rebuilt, float64(rep.BytesRead)/1e6, wall.Seconds(), st.MBPerSecond, r.rep.RSS["rebuild"]/1024)
	r.check("rebuild indexes every session", rep.Indexed == rep.Seen && rep.Seen >= len(r.man.Sessions), "%d of %d indexed (%d in the manifest)", rep.Indexed, rep.Seen, len(r.man.Sessions))
	r.target("rebuild throughput", st.MBPerSecond, 100, "MB/s", false, false)
	r.target("rebuild peak RSS", float64(r.rep.RSS["rebuild"])/1024, 256, "MiB", true, true)
	return nil
}

// openEngine opens an in-process engine over the corpus and its index.
func (r *runner) openEngine() (*engine.Engine, error) {
	cfg := engine.DefaultConfig()
	cfg.IndexDir = r.idx
	return engine.Open(engine.Options{AgentDir: r.dir, Memory: &cfg})
}

// open opens the engine the queries use: long-lived and watching the
// session directories, as serve does, so that a query's latency is its
// own, after the freshness gate (the listing's cost is the whole-process
// figure's).
func (r *runner) open() error {
	cfg := engine.DefaultConfig()
	cfg.IndexDir = r.idx
	e, err := engine.Open(engine.Options{AgentDir: r.dir, Memory: &cfg, Watch: true})
	if err != nil {
		return err
	}
	r.eng = e
	tot, err := e.InspectIndex(r.ctx)
	if err != nil {
		return err
	}
	r.rep.Index = tot.Totals
	r.target("index bytes / source bytes", tot.Totals.CacheSourceRatio, 0.15, "ratio", true, false)
	r.target("cold digest bytes / source bytes", tot.Totals.ColdSourceRatio, 0.05, "ratio", true, false)
	return nil
}

func (r *runner) refreshes() error {
	// The first repeat clears any racy records; then measure.
	if _, _, _, err := r.cli("rebuild", "--scope", "global", "--json"); err != nil {
		return err
	}
	e, err := r.openEngine()
	if err != nil {
		return err
	}
	var times []time.Duration
	for i := 0; i < r.opt.Runs; i++ {
		start := time.Now()
		rep, err := e.Rebuild(r.ctx, engine.RebuildRequest{Scope: "global"})
		if err != nil {
			return err
		}
		times = append(times, time.Since(start))
		if i == 0 {
			r.check("no-change refresh reads nothing", rep.Rebuilt == 0 && rep.BytesRead == 0, "rebuilt %d, read %d bytes", rep.Rebuilt, rep.BytesRead)
		}
	}
	lat := summarize(times)
	r.rep.Latency["refresh nothing changed"] = lat
	r.rep.Rebuild.NoChangeMs = lat.P50
	r.target("no-change refresh p50", lat.P50, 10, "ms", true, false)

	// One appended turn to the newest session, a child of its leaf so that
	// the active branch only grows.
	f, err := os.OpenFile(filepath.Join(r.dir, filepath.FromSlash(r.newest)), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	fmt.Fprintf(f, `{"type":"message","id":"benchapp","parentId":%s,"timestamp":"2026-11-30T00:00:00.000Z","message":{"role":"user","content":"one more turn","timestamp":1796000000000}}`+"\n",
		jsjson.Stringify(jsjson.MakeString(r.leaf)))
	f.Close()
	start := time.Now()
	rep, err := e.Rebuild(r.ctx, engine.RebuildRequest{Scope: "global"})
	if err != nil {
		return err
	}
	r.rep.Rebuild.OneAppendMs = float64(time.Since(start).Microseconds()) / 1000
	r.rep.Rebuild.OneAppendRebuilt = rep.Rebuilt
	r.check("one append re-reads one session", rep.Rebuilt == 1, "rebuilt %d", rep.Rebuilt)
	r.logf("refresh: nothing changed p50 %.2f ms; after one append %.1f ms", lat.P50, r.rep.Rebuild.OneAppendMs)
	return nil
}

// newestSession returns the path (as in m) and leaf id of the session of
// m modified last under dir.
func newestSession(dir string, m *corpus.Manifest) (string, string) {
	best, leaf, bestT := "", "", time.Time{}
	for _, s := range m.Sessions {
		p := filepath.Join(dir, filepath.FromSlash(s.Path))
		if st, err := os.Stat(p); err == nil && st.ModTime().After(bestT) {
			best, leaf, bestT = s.Path, s.Leaf, st.ModTime()
		}
	}
	return best, leaf
}

func (r *runner) recall(req engine.RecallRequest) (*engine.RecallPage, time.Duration) {
	start := time.Now()
	p, err := r.eng.Recall(r.ctx, req)
	d := time.Since(start)
	if err != nil {
		return &engine.RecallPage{Error: &engine.ErrorObject{Code: "engine_error", Message: err.Error()}}, d
	}
	return p, d
}

// rankOf returns the 1-based rank of the fact's entry (or, for a cold
// session, the session) in page, 0 when absent.
func rankOf(p *engine.RecallPage, f corpus.Fact) int {
	for i, h := range p.Hits {
		if e := h.Entry; e != nil && e.SessionID == f.SessionID && e.EntryID != nil && *e.EntryID == f.EntryID {
			return i + 1
		}
		if s := h.Session; s != nil && s.SessionID == f.SessionID {
			return i + 1
		}
	}
	return 0
}

// hotSet returns the ids of the sessions the index holds hot.
func (r *runner) hotSet() map[string]bool {
	hot := map[string]bool{}
	rep, err := r.eng.InspectIndex(r.ctx)
	if err != nil {
		return hot
	}
	for _, rec := range rep.Records {
		if rec.Branches == "active" && rec.Tier == index.Hot.String() {
			hot[rec.SessionID] = true
		}
	}
	return hot
}

// settle waits for the archive to settle and warms the engine up, as a
// host's would be: the session the refresh step appended to is re-hashed
// by every call until it ages out of the racy window, and the first calls
// start the watch (a watch on every directory, then a barrier) and read
// the listing and the records (the whole-process figure pays those).
func (r *runner) settle() {
	time.Sleep(index.DefaultRacyWindow)
	for range 10 {
		r.recall(engine.RecallRequest{Query: "zqwarmup", Scope: engine.ScopeGlobal})
	}
}

// queries asks for the planted facts, measuring recall latency and quality,
// then runs the negative controls and the catalog and envelope checks.
func (r *runner) queries() error {
	hot := r.hotSet()
	r.settle()
	picked := pickFacts(r.man.Facts, 400)
	run := factRun{quality: map[string]*factQuality{}}
	for _, f := range picked {
		r.askFact(&run, f, hot[f.SessionID])
	}
	r.rep.Latency["hot query (in process, watching)"] = summarize(run.hotLat)
	r.rep.Latency["cold query (in process, watching)"] = summarize(run.coldLat)
	r.questions(picked)
	// The in-process latency targets, after the freshness gate (hot BM25
	// alone has its own: go test ./search -bench HotBM25).
	r.target("hot recall p99 in process", summarize(run.hotLat).P99, 5, "ms", true, false)
	r.target("cold recall p99 in process", summarize(run.coldLat).P99, 5, "ms", true, false)
	for k, q := range run.quality {
		r.rep.Quality[k] = Quality{Queries: q.n, RecallAt1: round3(float64(q.at1) / float64(q.n)),
			RecallAt10: round3(float64(q.at10) / float64(q.n)), MRR: round3(q.mrr / float64(q.n))}
		r.check("planted facts are found: "+k, q.at10 == q.n, "%d of %d in the top 10", q.at10, q.n)
	}
	r.negativeControls()
	r.catalogSelection()
	r.largestResponse()
	r.logf("queries: hot p50 %.2f ms p99 %.2f ms; cold p50 %.2f ms p99 %.2f ms",
		summarize(run.hotLat).P50, summarize(run.hotLat).P99, summarize(run.coldLat).P50, summarize(run.coldLat).P99)
	return nil
}

// factQuality counts how well the facts of one kind are found.
type factQuality struct {
	n, at1, at10 int
	mrr          float64
}

// factRun is what the queries for planted facts measure.
type factRun struct {
	hotLat, coldLat []time.Duration
	quality         map[string]*factQuality // by kind and tier
}

// addQuality counts one query for a fact of kind found at rank (0: not
// found).
func (run *factRun) addQuality(kind string, rank int) {
	q := run.quality[kind]
	if q == nil {
		q = &factQuality{}
		run.quality[kind] = q
	}
	q.n++
	if rank == 1 {
		q.at1++
	}
	if rank >= 1 && rank <= 10 {
		q.at10++
	}
	if rank > 0 {
		q.mrr += 1 / float64(rank)
	}
}

// isTermFact reports whether f is asked as a plain term query.
func isTermFact(f corpus.Fact) bool {
	return f.Kind == "term" || f.Kind == "subagent-term" || f.Kind == "deep-term"
}

// pickFacts takes up to limit/4 facts of each kind, the plain term queries
// first, timed as they come; then the checks, some of which index the
// other branch mode or read sessions from source: the collections that
// work sets off would otherwise land in the term queries timed between
// them (p99 7-9 ms at 10k, against under 3 ms in a run of the term queries
// alone).
func pickFacts(facts []corpus.Fact, limit int) []corpus.Fact {
	counts := map[string]int{}
	var picked []corpus.Fact
	for _, f := range facts {
		if counts[f.Kind] >= limit/4 {
			continue
		}
		counts[f.Kind]++
		picked = append(picked, f)
	}
	slices.SortStableFunc(picked, func(a, b corpus.Fact) int {
		switch {
		case isTermFact(a) && !isTermFact(b):
			return -1
		case !isTermFact(a) && isTermFact(b):
			return 1
		}
		return 0
	})
	return picked
}

// askFact asks for the planted fact f, in a hot session or a cold one, and
// checks or measures what comes back as its kind asks.
func (r *runner) askFact(run *factRun, f corpus.Fact, hot bool) {
	tier := "cold"
	if hot {
		tier = "hot"
	}
	switch f.Kind {
	case "term", "subagent-term", "deep-term":
		p, d := r.recall(engine.RecallRequest{Query: f.Term, Scope: engine.ScopeGlobal})
		if hot {
			run.hotLat = append(run.hotLat, d)
		} else {
			run.coldLat = append(run.coldLat, d)
		}
		rank := rankOf(p, f)
		if f.Kind == "deep-term" && hot {
			// Past maxEntryChars of hot text: no hit, and coverage says so.
			r.checkOnce("deep hot term is reported, not silently missed", rank > 0 || contains(p.Coverage.Reasons, coverage.MaxEntryChars),
				"%s: rank %d, reasons %v", f.Term, rank, p.Coverage.Reasons)
			return
		}
		run.addQuality(f.Kind+" ("+tier+")", rank)
	case "thinking-term":
		p, _ := r.recall(engine.RecallRequest{Query: f.Term, Scope: engine.ScopeGlobal})
		r.checkOnce("thinking text is not indexed by default", p.Total == 0, "%s found %d times", f.Term, p.Total)
	case "abandoned-term":
		r.askAbandoned(f)
	case "operation":
		r.askOperation(f, hot)
	}
}

// askAbandoned checks that a term of an abandoned branch is found with
// branches all only.
func (r *runner) askAbandoned(f corpus.Fact) {
	// A branch summary on the active branch may carry the abandoned
	// branch's typed facts: those hits are right.
	p, _ := r.recall(engine.RecallRequest{Query: f.Term, Scope: engine.ScopeGlobal})
	leaked := 0
	for _, h := range p.Hits {
		if h.Session != nil && h.Session.SessionID == f.SessionID || h.Entry != nil && h.Entry.Type != "fabric_branch_fact" {
			leaked++
		}
	}
	r.checkOnce("abandoned-branch terms are not returned by default", leaked == 0, "%s found %d times", f.Term, leaked)
	pa, _ := r.recall(engine.RecallRequest{Query: f.Term, Scope: engine.ScopeGlobal, Branches: "all"})
	r.checkOnce("abandoned-branch terms are returned with branches all", pa.Total >= 1, "%s found %d times", f.Term, pa.Total)
}

// askOperation times a recall of a term with an operation's ref and
// outcome, and checks that it finds the exact operation (hot) or names
// the hydration it would need (cold).
func (r *runner) askOperation(f corpus.Fact, hot bool) {
	p, d := r.recall(engine.RecallRequest{Query: f.Term, Ref: f.Ref, Outcome: f.Outcome, Scope: engine.ScopeGlobal})
	if !hot {
		r.addLatency("cold combined lexical+structural", d)
		r.checkOnce("cold combined lexical+structural names the hydration reason",
			p.Total == 0 || contains(p.Coverage.Reasons, coverage.ColdStructuralFilterRequiresHydration),
			"%s: total %d reasons %v", f.Term, p.Total, p.Coverage.Reasons)
		r.checkOnce("cold combined candidate is the planted session", rankOf(p, f) > 0, "%s: %d hits", f.Term, len(p.Hits))
		return
	}
	r.addLatency("hot operation-address recall", d)
	found := false
	for _, h := range p.Hits {
		if e := h.Entry; e != nil && e.OperationAddress != nil && strings.HasPrefix(f.Note, "address="+*e.OperationAddress) {
			found = true
		}
	}
	r.checkOnce("hot operation recall finds the exact operation address", found, "%s ref %s outcome %s: %d hits", f.Term, f.Ref, f.Outcome, len(p.Hits))
}

// negativeControls checks that what is not in memory is not found.
func (r *runner) negativeControls() {
	p, _ := r.recall(engine.RecallRequest{Ref: "omp.no_such_action", Scope: engine.ScopeGlobal})
	r.check("a nonexistent ref returns nothing", p.Total == 0 && p.Error == nil, "total %d", p.Total)
	desc := catalog.MemoryProvider().Actions[0].Description
	p, _ = r.recall(engine.RecallRequest{Query: desc, QueryMode: "phrase", Scope: engine.ScopeGlobal})
	r.check("catalog text never matches memory", p.Total == 0, "the memory provider's description matched %d entries", p.Total)
}

// catalogSelection times catalog head selection, separately from source
// retrieval.
func (r *runner) catalogSelection() {
	var catLat []time.Duration
	for i := 0; i < r.opt.Runs; i++ {
		start := time.Now()
		res, err := r.eng.SearchTools(r.ctx, engine.ToolSearchRequest{Query: "search past session evidence", Limit: 10})
		catLat = append(catLat, time.Since(start))
		if i == 0 {
			var hits []engine.ToolHit
			if err == nil {
				hits, err = res.Hits, res.Err()
			}
			r.check("catalog search selects a head", err == nil && len(hits) > 0, "%d hits, %v", len(hits), err)
		}
	}
	r.rep.Latency["catalog head selection"] = summarize(catLat)
}

// largestResponse checks the envelope bound on a broad page.
func (r *runner) largestResponse() {
	p, _ := r.recall(engine.RecallRequest{Query: "error test file", Scope: engine.ScopeGlobal, PageSize: 50, SnippetChars: 2000})
	b, _ := json.Marshal(p)
	r.target("largest response (UTF-16 units)", float64(jsjson.UTF16Len(string(b))), engine.MaxResponseChars, "units", true, true)
}

// maxQuestions bounds the planted facts asked as questions.
const maxQuestions = 100

// questions asks planted term facts as a person would, once literal and
// once natural, in turn: the natural mode's in-process cost against the
// literal one on the same text (its target is at most twice literal's
// p99), and whether it still finds the planted entry.
func (r *runner) questions(picked []corpus.Fact) {
	var lit, nat []time.Duration
	found, foundLit, asked := 0, 0, 0
	for _, f := range picked {
		if f.Kind != "term" || asked == maxQuestions {
			continue
		}
		asked++
		q := "how did we fix the error " + f.Term + " in the test file?"
		pl, dl := r.recall(engine.RecallRequest{Query: q, Scope: engine.ScopeGlobal})
		p, dn := r.recall(engine.RecallRequest{Query: q, QueryMode: engine.ModeNatural, Scope: engine.ScopeGlobal})
		lit, nat = append(lit, dl), append(nat, dn)
		if rank := rankOf(p, f); rank >= 1 && rank <= 10 {
			found++
		}
		if rank := rankOf(pl, f); rank >= 1 && rank <= 10 {
			foundLit++
		}
	}
	if asked == 0 {
		return
	}
	r.rep.Latency["question, literal (in process)"] = summarize(lit)
	r.rep.Latency["question, natural (in process)"] = summarize(nat)
	r.check("a planted fact asked as a question: natural finds it as often as literal", found >= foundLit,
		"natural %d, literal %d of %d in the top 10", found, foundLit, asked)
	r.logf("questions: natural finds %d, literal %d of %d planted facts in the top 10", found, foundLit, asked)
	ratio := summarize(nat).P99 / math.Max(summarize(lit).P99, 1e-3)
	r.target("natural question p99 ÷ literal p99", ratio, 2, "×", true, false)
	r.logf("questions: literal p50 %.2f ms p99 %.2f ms; natural p50 %.2f ms p99 %.2f ms",
		summarize(lit).P50, summarize(lit).P99, summarize(nat).P50, summarize(nat).P99)
}

// addLatency adds one timing to a named latency.
func (r *runner) addLatency(name string, d time.Duration) {
	if r.raw == nil {
		r.raw = map[string][]time.Duration{}
	}
	r.raw[name] = append(r.raw[name], d)
	r.rep.Latency[name] = summarize(r.raw[name])
}

// checkOnce records a check the first time it fails, or once as passed.
func (r *runner) checkOnce(name string, ok bool, format string, a ...any) {
	for i := range r.rep.Checks {
		c := &r.rep.Checks[i]
		if c.Name != name {
			continue
		}
		if !ok && c.OK {
			c.OK = false
			c.Detail = fmt.Sprintf(format, a...)
			r.rep.Failed++
			r.logf("FAIL %s: %s", name, c.Detail)
		}
		return
	}
	r.check(name, ok, format, a...)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// wholeProcess times memidx recall as a process on the unchanged index,
// against rg over the same files when rg is installed.
func (r *runner) wholeProcess() error {
	var term string
	for _, f := range r.man.Facts {
		if f.Kind == "term" {
			term = f.Term
			break
		}
	}
	if term == "" {
		return errors.New("benchmark: the corpus has no planted term")
	}
	var times []time.Duration
	var maxRSS int64
	for i := 0; i < r.opt.Runs; i++ {
		out, wall, _, err := r.cli("recall", "-q", term, "--scope", "global")
		if err != nil {
			return err
		}
		times = append(times, wall)
		if i == 0 {
			var p engine.RecallPage
			err := json.Unmarshal(out, &p)
			r.check("whole-process recall answers", err == nil && p.Total >= 1, "total %d, %v", p.Total, err)
		}
	}
	// Peak RSS from three more runs, each under /usr/bin/time (see run).
	for range 3 {
		if _, _, ru, err := r.cliRSS("recall", "-q", term, "--scope", "global"); err == nil && ru != nil && ru.maxRSSKiB > maxRSS {
			maxRSS = ru.maxRSSKiB
		}
	}
	lat := summarize(times)
	r.rep.Latency["memidx recall (whole process)"] = lat
	r.rep.RSS["query"] = maxRSS
	r.target("whole-process recall p50", lat.P50, 10, "ms", true, false)
	if rg, err := exec.LookPath("rg"); err == nil {
		var rgTimes []time.Duration
		for i := 0; i < r.opt.Runs; i++ {
			start := time.Now()
			cmd := exec.CommandContext(r.ctx, rg, "-c", "--no-messages", term, filepath.Join(r.dir, "sessions"))
			cmd.Stdout = io.Discard
			_ = cmd.Run() // exit 1 means no match, which is fine for timing
			rgTimes = append(rgTimes, time.Since(start))
		}
		rl := summarize(rgTimes)
		r.rep.Latency["rg -c (whole process)"] = rl
		r.target("speed-up over rg (p50)", rl.P50/lat.P50, 20, "x", false, false)
	} else {
		r.rep.Notes = append(r.rep.Notes, "rg is not installed: no ripgrep baseline (apt-get install ripgrep)")
	}
	r.logf("whole process: memidx recall p50 %.1f ms p99 %.1f ms, peak RSS %d MiB", lat.P50, lat.P99, maxRSS/1024)
	return nil
}
