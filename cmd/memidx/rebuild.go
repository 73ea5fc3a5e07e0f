package main

import (
	"context"
	"fmt"
	"io"
	"runtime/debug"
	"strings"
	"time"

	"github.com/memidx/memidx/engine"
)

func cmdRebuild(ctx context.Context, g globals, args []string, stdout, stderr io.Writer) error {
	fl := newFlags("rebuild")
	scope := fl.String("scope", "global", "session, project, global or session:<id-or-path>")
	branches := fl.String("branches", "active", "active or all")
	asJSON := fl.Bool("json", false, "print one JSON summary")
	pos, err := parseInterleaved(fl, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return usageError("rebuild takes no arguments, only flags")
	}
	e, err := openEngine(g)
	if err != nil {
		return err
	}
	showNotices(stderr, e.Notices())
	// A rebuild allocates and drops a file's worth of memory per session;
	// collecting less often costs some peak memory (still far under the
	// 256 MiB bound) and saves much CPU.
	debug.SetGCPercent(200)
	var bar *progressBar
	var progress func(done, total int, bytesRead int64)
	if isTerminal(stderr) {
		bar = &progressBar{w: stderr, start: time.Now()}
		progress = bar.update
	}
	rep, err := rebuildIndex(ctx, e, *scope, *branches, progress)
	if bar != nil {
		bar.finish()
	}
	if err != nil {
		return err
	}
	if *asJSON || !humanOutput(g, stdout) {
		return writeJSON(stdout, g.pretty, rep)
	}
	c := rep.Coverage
	fmt.Fprintf(stdout, "%d sessions: %d indexed (%d rebuilt, %d unchanged), %d removed, %.1f MB read in %.2fs\n",
		rep.Seen, rep.Indexed, rep.Rebuilt, rep.Unchanged, rep.Removed, float64(rep.BytesRead)/1e6, rep.Seconds)
	if !c.Complete {
		fmt.Fprintf(stdout, "coverage incomplete: %d stale, %d incomplete; %s\n", c.StaleSessions, c.IncompleteSessions, strings.Join(c.Reasons, ", "))
	}
	return nil
}

// rebuildIndex is what `memidx rebuild` and serve's memory.rebuild do:
// refresh every session of the scope (default global, active branches)
// without the per-call budgets; progress, when set, is called after each
// session read.
func rebuildIndex(ctx context.Context, e *engine.Engine, scope, branches string, progress func(done, total int, bytesRead int64)) (*engine.RebuildReport, error) {
	if scope == "" {
		scope = "global"
	}
	if branches == "" {
		branches = "active"
	}
	return e.Rebuild(ctx, engine.RebuildRequest{Scope: scope, Branches: branches, Progress: progress})
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
