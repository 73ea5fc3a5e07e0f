package cli

import (
	"context"
	"fmt"
	"io"
	"sort"
	"text/tabwriter"

	"github.com/memidx/memidx/internal/benchmark"
	"github.com/memidx/memidx/internal/corpus"
)

// silentFailure ends a command with exit 1 after it has printed its own
// result (bench, whose report says what failed).
type silentFailure struct{ msg string }

func (s *silentFailure) Error() string { return s.msg }

func cmdGen(ctx context.Context, g globals, args []string, stdout io.Writer) error {
	fl := newFlags("gen")
	n := fl.Int("sessions", 200, "top-level sessions to write")
	seed := fl.Int64("seed", 1, "corpus seed (same seed, same bytes)")
	out := fl.String("out", "", "output directory (sessions/ and manifest.json are written there)")
	scale := fl.Float64("scale", 1, "session size multiplier (1: about 0.5 MB per session)")
	projects := fl.Int("projects", 0, "working directories (default 8)")
	pos, err := parseInterleaved(fl, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 || *out == "" {
		return usageError("gen takes --out DIR (and --sessions N --seed S --scale F)")
	}
	m, err := corpus.Generate(corpus.Options{Sessions: *n, Seed: *seed, Out: *out, Scale: *scale, Projects: *projects})
	if err != nil {
		return err
	}
	return writeJSON(stdout, g.pretty, map[string]any{
		"out": *out, "sessions": len(m.Sessions), "facts": len(m.Facts), "totalBytes": m.TotalBytes,
	})
}

func cmdBench(ctx context.Context, g globals, args []string, stdout, stderr io.Writer) error {
	fl := newFlags("bench")
	dir := fl.String("corpus", "", "a corpus made by memidx gen (default: generate one)")
	n := fl.Int("sessions", 200, "sessions to generate when no --corpus is given")
	scale := fl.Float64("scale", 1, "session size multiplier for a generated corpus")
	seed := fl.Int64("seed", 1, "seed of a generated corpus")
	runs := fl.Int("runs", 20, "repetitions of each latency")
	asJSON := fl.Bool("json", false, "print the report as JSON")
	pos, err := parseInterleaved(fl, args)
	if err != nil {
		return err
	}
	if len(pos) != 0 {
		return usageError("bench takes only flags")
	}
	rep, err := benchmark.Run(ctx, benchmark.Options{
		Corpus: *dir, Sessions: *n, Scale: *scale, Seed: *seed, Runs: *runs, Progress: stderr,
	})
	if err != nil {
		return err
	}
	if *asJSON {
		if err := writeJSON(stdout, g.pretty, rep); err != nil {
			return err
		}
	} else {
		printBench(stdout, rep)
	}
	if rep.Failed > 0 {
		return &silentFailure{fmt.Sprintf("%d checks or bounds failed", rep.Failed)}
	}
	return nil
}

func printBench(w io.Writer, r *benchmark.Report) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "corpus\t%s: %d sessions, %.1f MB (%s)\n", r.Corpus, r.Sessions, float64(r.SourceBytes)/1e6, r.Date)
	fmt.Fprintf(tw, "rebuild\t%.2fs, %.1f MB/s, %.1fs user + %.1fs sys, peak RSS %d MiB\n", r.Rebuild.Seconds, r.Rebuild.MBPerSecond, r.Rebuild.UserSeconds, r.Rebuild.SystemSeconds, r.RSS["rebuild"]/1024)
	fmt.Fprintf(tw, "refresh\tnothing changed p50 %.2f ms; one append %.1f ms (%d re-read)\n", r.Rebuild.NoChangeMs, r.Rebuild.OneAppendMs, r.Rebuild.OneAppendRebuilt)
	fmt.Fprintf(tw, "index\t%.1f MB for %.1f MB: %.3f overall, %.3f cold\n", float64(r.Index.CacheBytes)/1e6, float64(r.Index.SourceBytes)/1e6, r.Index.CacheSourceRatio, r.Index.ColdSourceRatio)
	fmt.Fprintln(tw, "\nlatency (ms)\tmin\tp50\tp95\tp99\tmax")
	names := make([]string, 0, len(r.Latency))
	for k := range r.Latency {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		l := r.Latency[k]
		fmt.Fprintf(tw, "%s\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\n", k, l.Min, l.P50, l.P95, l.P99, l.Max)
	}
	fmt.Fprintln(tw, "\nquality\tqueries\trecall@1\trecall@10\tMRR")
	names = names[:0]
	for k := range r.Quality {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		q := r.Quality[k]
		fmt.Fprintf(tw, "%s\t%d\t%.3f\t%.3f\t%.3f\n", k, q.Queries, q.RecallAt1, q.RecallAt10, q.MRR)
	}
	fmt.Fprintln(tw, "\ntarget\tvalue\tlimit\tmet")
	for _, t := range r.Targets {
		op := ">="
		if t.Max {
			op = "<="
		}
		met := "yes"
		if !t.Met {
			met = "NO"
			if t.Hard {
				met = "NO (hard bound)"
			}
		}
		fmt.Fprintf(tw, "%s\t%.3f %s\t%s %.3f\t%s\n", t.Name, t.Value, t.Unit, op, t.Limit, met)
	}
	fmt.Fprintln(tw, "\ncheck\tresult")
	for _, c := range r.Checks {
		res := "ok"
		if !c.OK {
			res = "FAILED: " + c.Detail
		}
		fmt.Fprintf(tw, "%s\t%s\n", c.Name, res)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(tw, "note\t%s\n", n)
	}
	tw.Flush()
}
