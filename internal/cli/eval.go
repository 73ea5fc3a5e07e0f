package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/memidx/memidx/engine"
	"github.com/memidx/memidx/internal/evalset"
)

// evalFlags are eval's own flags.
type evalFlags struct {
	opt                evalset.Options
	minR1, minR5, minM float64
	verbose            bool
	set                map[string]bool
}

func parseEvalFlags(args []string) (evalFlags, []string, error) {
	fl := newFlags("eval")
	mode := fl.String("mode", string(engine.ModeLiteral), "query mode, passed to the engine as given")
	match := fl.String("match", string(engine.MatchAny), "any or all")
	branches := fl.String("branches", string(engine.BranchesActive), "active or all")
	scope := fl.String("scope", string(engine.ScopeGlobal), "the scope every question is asked in")
	pageSize := fl.Int("page-size", engine.DefaultPageSize, "hits per question (1..50)")
	var f evalFlags
	fl.Float64Var(&f.minR1, "min-r1", 0, "exit 1 when entry R@1 is below this")
	fl.Float64Var(&f.minR5, "min-r5", 0, "exit 1 when entry R@5 is below this")
	fl.Float64Var(&f.minM, "min-mrr", 0, "exit 1 when entry MRR is below this")
	weak := fl.Float64("weak-below", 0, "queryCoverage under which a page is no evidence")
	pos, err := parseInterleaved(fl, args)
	if err != nil {
		return f, nil, err
	}
	f.set = flagsSet(fl)
	if *pageSize < 1 || *pageSize > engine.MaxPageSize {
		return f, nil, usageError("--page-size takes 1..%d, not %d", engine.MaxPageSize, *pageSize)
	}
	f.opt = evalset.Options{
		Mode: engine.QueryMode(*mode), Match: engine.QueryMatch(*match),
		Branches: engine.Branches(*branches), Scope: engine.Scope(*scope), PageSize: *pageSize,
	}
	if f.set["weak-below"] {
		f.opt.WeakBelow = weak
	}
	return f, pos, nil
}

// cmdEval runs a labelled set through recall in-process and reports its
// figures. Without --index-dir the index is built in a temporary
// directory and removed: an evaluation never writes into the agent
// directory it reads.
func cmdEval(ctx context.Context, g globals, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	f, pos, err := parseEvalFlags(args)
	if err != nil {
		return err
	}
	f.verbose = g.verbose
	if len(pos) != 1 {
		return usageError("eval takes one labelled set (a JSONL file, or - for stdin)")
	}
	qs, err := readEvalSet(pos[0], stdin)
	if err != nil {
		return err
	}
	var set []func(*engine.Options)
	if g.indexDir == "" {
		tmp, err := os.MkdirTemp("", "memidx-eval-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		set = append(set, func(o *engine.Options) { o.IndexDir = tmp })
	}
	e, err := openEngineWith(g, "", nil, set...)
	if err != nil {
		return err
	}
	defer e.Close()
	rep, err := evalset.Run(ctx, e, qs, f.opt)
	if err != nil {
		return err
	}
	human := humanOutput(g, stdout)
	if !f.verbose && !human {
		rep.Results = nil // the figures only, unless asked
	}
	if human {
		printEval(stdout, rep, f.verbose)
	} else if err := writeJSON(stdout, g.pretty, rep); err != nil {
		return err
	}
	if missed := evalMissed(rep, f); missed != "" {
		return &silentFailure{"eval: " + missed}
	}
	return nil
}

func readEvalSet(name string, stdin io.Reader) ([]evalset.Question, error) {
	r := stdin
	if name != "-" {
		fh, err := os.Open(name)
		if err != nil {
			return nil, usageError("%v", err)
		}
		defer fh.Close()
		r = fh
	}
	qs, err := evalset.Read(r)
	if err != nil {
		return nil, usageError("%s: %v", name, err)
	}
	return qs, nil
}

// evalMissed names the thresholds the run missed, "" for none.
func evalMissed(rep *evalset.Report, f evalFlags) string {
	var out []string
	for _, t := range []struct {
		flag string
		got  float64
		min  float64
	}{{"min-r1", rep.Entry.R1, f.minR1}, {"min-r5", rep.Entry.R5, f.minR5}, {"min-mrr", rep.Entry.MRR, f.minM}} {
		if f.set[t.flag] && t.got < t.min {
			out = append(out, fmt.Sprintf("%.3f is below --%s %.3f", t.got, t.flag, t.min))
		}
	}
	return strings.Join(out, "; ")
}

func printEval(w io.Writer, rep *evalset.Report, verbose bool) {
	fmt.Fprintf(w, "%d questions: %d answerable, %d must-abstain, %d unlabelled (left out)\n",
		rep.Questions, rep.Answerable, rep.Abstain, rep.Unlabelled)
	fmt.Fprintf(w, "mode %s, match %s, branches %s, scope %s, page size %d\n\n",
		rep.Mode, rep.Match, rep.Branches, rep.Scope, rep.PageSize)
	fmt.Fprintf(w, "%-9s %6s %6s %6s %6s\n", "", "R@1", "R@5", "R@10", "MRR")
	for _, row := range []struct {
		name string
		m    evalset.Metrics
	}{{"entry", rep.Entry}, {"session", rep.Session}} {
		fmt.Fprintf(w, "%-9s %6.3f %6.3f %6.3f %6.3f\n", row.name, row.m.R1, row.m.R5, row.m.R10, row.m.MRR)
	}
	fmt.Fprintln(w, "(entry: the evidence entry, or any entry of an expected episode)")
	a := rep.Answerability
	fmt.Fprintln(w, "\nanswerability")
	if c := a.QueryCoverage; c == nil {
		fmt.Fprintln(w, "  queryCoverage: n/a (the pages report none)")
	} else {
		fmt.Fprintf(w, "  queryCoverage, answerable:   mean %.3f, min %.3f, max %.3f\n", c.Answerable.Mean, c.Answerable.Min, c.Answerable.Max)
		fmt.Fprintf(w, "  queryCoverage, must-abstain: mean %.3f, min %.3f, max %.3f\n", c.Abstain.Mean, c.Abstain.Min, c.Abstain.Max)
		if c.WeakBelow != nil {
			fmt.Fprintf(w, "  under %.3f: %d of %d answerable, %d of %d must-abstain\n",
				*c.WeakBelow, *c.AnswerableBelow, c.Answerable.N, *c.AbstainBelow, c.Abstain.N)
		} else if c.AnswerableBelow != nil {
			fmt.Fprintf(w, "  weak match (memory.weakMatchBelow): %d of %d answerable, %d of %d must-abstain\n",
				*c.AnswerableBelow, c.Answerable.N, *c.AbstainBelow, c.Abstain.N)
		}
	}
	fmt.Fprintf(w, "  must-abstain questions with any hit: %d of %d\n", a.AbstainWithHits, rep.Abstain)
	fmt.Fprintf(w, "  answerable questions with no hit: %d of %d\n", a.AnswerableWithoutHits, rep.Answerable)
	if verbose {
		printMisses(w, rep.Misses())
	}
}

func printMisses(w io.Writer, misses []evalset.Result) {
	fmt.Fprintf(w, "\nmisses (evidence not the first hit): %d\n", len(misses))
	for _, m := range misses {
		rank := "not in page"
		if m.Ranks.Entry > 0 {
			rank = fmt.Sprintf("rank %d", m.Ranks.Entry)
		}
		fmt.Fprintf(w, "  line %d, %s (session rank %d): %s\n", m.Line, rank, m.Ranks.Session, m.Query)
		for i, t := range m.Top {
			id := t.EntryID
			if id == "" {
				id = fmt.Sprintf("#%d", t.Index)
			}
			fmt.Fprintf(w, "    %d. %s %s %.3f  %s\n", i+1, short(t.SessionID), id, t.Score, oneLine(t.Snippet, 90))
		}
	}
}
