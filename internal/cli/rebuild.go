package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/memidx/memidx/engine"
	"github.com/memidx/memidx/internal/index"
)

func cmdRebuild(ctx context.Context, g globals, args []string, stdout, stderr io.Writer) error {
	fl := newFlags("rebuild")
	scope := fl.String("scope", "global", "session, project, global or session:<id-or-path>")
	branches := fl.String("branches", "active", "active or all")
	asJSON := fl.Bool("json", false, "print one JSON summary")
	jobs := fl.Int("jobs", 0, "sessions read and built at once (default GOMAXPROCS)")
	force := fl.Bool("force", false, "rebuild every selected session, changed or not")
	pos, err := parseInterleaved(fl, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return usageError("rebuild takes no arguments, only flags")
	}
	if *jobs < 0 || (*jobs == 0 && flagSet(fl, "jobs")) {
		return usageError("--jobs takes a number of sessions at once, 1 or more")
	}
	workers := *jobs
	if workers == 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	// A rebuild allocates and drops a file's worth of memory per session;
	// collecting less often costs some peak memory (still far under the
	// 256 MiB bound) and saves much CPU.
	debug.SetGCPercent(200)
	var charged func(inUse int64)
	if os.Getenv("GOMEMLIMIT") == "" {
		// Garbage must not triple a long session's build.
		var restore func()
		charged, restore = index.HeapSteering(0, rebuildHeapFloor)
		defer restore()
	}
	e, err := openEngineWith(g, "", nil, func(o *engine.Options) { o.Workers, o.BuildCharged = workers, charged })
	if err != nil {
		return err
	}
	showNotices(stderr, e.Notices())
	var bar *progressBar
	var progress func(done, total int, bytesRead int64)
	if isTerminal(stderr) {
		bar = &progressBar{w: stderr, start: time.Now()}
		progress = bar.update
	}
	req := engine.RebuildRequest{Scope: engine.Scope(*scope), Branches: engine.Branches(*branches), Progress: progress, Force: *force}
	sum, err := rebuildRequest(ctx, e, workers, req)
	if bar != nil {
		bar.finish()
	}
	if err != nil {
		return err
	}
	rep := sum.RebuildReport
	if *asJSON || !humanOutput(g, stdout) {
		if err := writeJSON(stdout, g.pretty, sum); err != nil {
			return err
		}
	} else {
		c := rep.Coverage
		fmt.Fprintf(stdout, "%d sessions: %d indexed (%d rebuilt, %d unchanged), %d removed, %.1f MB read in %.2fs (%.1f MB/s, %d jobs, peak memory %.0f MiB)\n",
			rep.Seen, rep.Indexed, rep.Rebuilt, rep.Unchanged, rep.Removed, float64(rep.BytesRead)/1e6, rep.Seconds,
			sum.BytesPerSecond/1e6, workers, float64(sum.PeakRSSBytes)/(1<<20))
		if !c.Complete {
			fmt.Fprintf(stdout, "coverage incomplete: %d stale, %d incomplete; %s\n", c.StaleSessions, c.IncompleteSessions, strings.Join(c.Reasons, ", "))
		}
		for _, f := range sum.Failures {
			if f.Detail != "" {
				fmt.Fprintf(stdout, "failed: %s (%s: %s)\n", f.Path, f.Reason, f.Detail)
				continue
			}
			fmt.Fprintf(stdout, "failed: %s (%s)\n", f.Path, f.Reason)
		}
	}
	if sum.Error != nil {
		return &answered{sum.Error}
	}
	return nil
}

// rebuildSummary is what `memidx rebuild --json` prints: the engine's
// report and what a batch scheduler wants besides.
type rebuildSummary struct {
	*engine.RebuildReport
	// Jobs is how many sessions were read and built at once.
	Jobs int `json:"jobs"`
	// BytesPerSecond is source bytes read per second of the rebuild.
	BytesPerSecond float64 `json:"bytesPerSecond"`
	// PeakRSSBytes is the process's peak resident memory so far (0 where
	// the system does not say).
	PeakRSSBytes int64 `json:"peakRSSBytes"`
	// Failed counts the sessions left without a current record (not
	// indexed: unreadable, no session header, over a bound, a failed
	// build); any makes the exit status 1.
	Failed int `json:"failed"`
	// FailedBy counts the failed sessions by reason.
	FailedBy map[string]int `json:"failedBy,omitempty"`
	// Failures names them, at most maxFailures.
	Failures []rebuildFailure `json:"failures,omitempty"`
	// Error is set by the CLI when any session failed (code
	// sessions_failed) or the index file did not take a write (code
	// index_unwritable): the exit status is then 1.
	Error *engine.ErrorObject `json:"error,omitempty"`
}

type rebuildFailure struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
	// Detail is the error behind the reason, when it says more (a write
	// the index file did not take: "no space left on device").
	Detail string `json:"detail,omitempty"`
}

// maxFailures bounds the failures a summary names.
const maxFailures = 100

func summarize(rep *engine.RebuildReport, workers int) *rebuildSummary {
	s := &rebuildSummary{RebuildReport: rep, Jobs: workers, PeakRSSBytes: peakRSS()}
	if rep.Seconds > 0 {
		s.BytesPerSecond = float64(rep.BytesRead) / rep.Seconds
	}
	for _, st := range rep.Unindexed {
		s.Failed++
		if s.FailedBy == nil {
			s.FailedBy = map[string]int{}
		}
		s.FailedBy[st.Reason]++
		if len(s.Failures) < maxFailures {
			s.Failures = append(s.Failures, rebuildFailure{Path: st.Path, Reason: st.Reason, Detail: st.Detail})
		}
	}
	return s
}

// failure is the error of a rebuild that left sessions out of the index
// or whose index file did not take a write, nil for none. A batch job
// must see it: the exit status is 1, with the error every such answer
// carries, and a write error's own text says what to fix (a full disk).
func (s *rebuildSummary) failure() *engine.ErrorObject {
	rep := s.RebuildReport
	var why string
	if rep.WriteError != "" {
		why = "; the index file did not take a write: " + rep.WriteError
	}
	switch {
	case s.Failed > 0:
		return &engine.ErrorObject{Code: "sessions_failed", Message: fmt.Sprintf(
			"%d of %d sessions are not indexed (see failures; each has its reason)%s", s.Failed, rep.Seen, why)}
	case why != "":
		// Every session is indexed, but a removal or the hot roster was
		// not written.
		code := index.IndexUnwritable
		if slices.Contains(rep.Coverage.Reasons, index.IndexBusy) {
			code = index.IndexBusy
		}
		return &engine.ErrorObject{Code: code, Message: "the rebuild is not complete" + why}
	}
	return nil
}

// flagSet reports whether name was given on the command line.
func flagSet(fl *flag.FlagSet, name string) bool {
	set := false
	fl.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// rebuildHeapFloor is the soft limit of a rebuild's Go heap while its
// builds are charged less (index.HeapSteering): a rebuild's bound is 256 MiB,
// and the process holds the index file's pages besides, up to ~100 MiB at
// 100k sessions during a write. A rebuild lets go of its records as it
// writes them (index.RefreshOptions.Summary), so its live heap is some 55
// MB at 100k sessions, and 144 MiB leaves the collector as much room as
// 224 did with the records held (100k peak RSS 325 -> 245 MiB; 2k and 10k
// take the same time).
const rebuildHeapFloor = 144 << 20

// rebuildIndex is what `memidx rebuild` and serve's memory.rebuild do:
// refresh every session of the scope (default global, active branches)
// without the per-call budgets; progress, when set, is called after each
// session read; workers is the engine's Options.Workers. Its summary adds
// what a batch job wants (rebuildSummary).
func rebuildIndex(ctx context.Context, e *engine.Engine, workers int, scope, branches string, progress func(done, total int, bytesRead int64)) (*rebuildSummary, error) {
	return rebuildRequest(ctx, e, workers, engine.RebuildRequest{Scope: engine.Scope(scope), Branches: engine.Branches(branches), Progress: progress})
}

// rebuildRequest is rebuildIndex of a whole request (rebuild --force).
func rebuildRequest(ctx context.Context, e *engine.Engine, workers int, req engine.RebuildRequest) (*rebuildSummary, error) {
	if req.Scope == "" {
		req.Scope = engine.ScopeGlobal
	}
	if req.Branches == "" {
		req.Branches = engine.BranchesActive
	}
	rep, err := e.Rebuild(ctx, req)
	if err != nil {
		return nil, err
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	sum := summarize(rep, workers)
	sum.Error = sum.failure() // both surfaces say what went wrong
	return sum, nil
}

// progressBar draws one line on a terminal, at most ten times a second.
type progressBar struct {
	w     io.Writer
	start time.Time
	last  time.Time
	drawn bool
}

func (p *progressBar) update(done, total int, bytes int64) {
	now := time.Now()
	if done < total && now.Sub(p.last) < 100*time.Millisecond {
		return
	}
	p.last = now
	const width = 30
	fill := width
	if total > 0 {
		fill = done * width / total
	}
	secs := now.Sub(p.start).Seconds()
	rate := 0.0
	if secs > 0 {
		rate = float64(bytes) / 1e6 / secs
	}
	fmt.Fprintf(p.w, "\r[%s%s] %d/%d sessions  %.1f MB  %.1f MB/s ", strings.Repeat("=", fill), strings.Repeat(" ", width-fill), done, total, float64(bytes)/1e6, rate)
	p.drawn = true
}

func (p *progressBar) finish() {
	if p.drawn {
		fmt.Fprint(p.w, "\n")
	}
}
