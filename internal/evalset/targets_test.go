package evalset

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/memidx/memidx/engine"
	"github.com/memidx/memidx/internal/index"
)

// natural is literal's options in natural mode, with the configured
// weak-match threshold.
func natural(branches engine.Branches) Options {
	o := literal(branches)
	o.Mode = engine.ModeNatural
	weak := index.DefaultWeakMatchBelow
	o.WeakBelow = &weak
	return o
}

// The OMP set's targets in natural mode, over every branch: R@1 at least
// 0.96, MRR at least 0.98, and every must-abstain question's page under
// the weak-match threshold.
func TestOMPMemBenchNatural(t *testing.T) {
	needDir(t, membench)
	e := openEngine(t, "", filepath.Join(membench, "sessions"))
	qs := readSet(t, filepath.Join(membench, "questions.jsonl"))
	rep, err := Run(context.Background(), e, qs, natural(engine.BranchesAll))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("natural: R@1 %.3f R@5 %.3f MRR %.3f", rep.Entry.R1, rep.Entry.R5, rep.Entry.MRR)
	if rep.Entry.R1 < 0.96 || rep.Entry.MRR < 0.98 {
		t.Errorf("episode R@1 %.3f, MRR %.3f; want at least 0.96 and 0.98; misses:", rep.Entry.R1, rep.Entry.MRR)
		for _, m := range rep.Misses() {
			t.Errorf("  line %d rank %d: %s", m.Line, m.Ranks.Entry, m.Query)
		}
	}
	qc := rep.Answerability.QueryCoverage
	if qc == nil || qc.AbstainBelow == nil {
		t.Fatal("no queryCoverage figures")
	}
	if *qc.AbstainBelow != rep.Abstain {
		t.Errorf("%d of %d must-abstain questions under the threshold; want all", *qc.AbstainBelow, rep.Abstain)
	}
}

// On the frozen set, natural mode beats literal on R@5 and MRR.
func TestOwnSetNaturalBeatsLiteral(t *testing.T) {
	e := openEngine(t, ownSet, "")
	qs := readSet(t, filepath.Join(ownSet, "questions.jsonl"))
	lit, err := Run(context.Background(), e, qs, literal(engine.BranchesActive))
	if err != nil {
		t.Fatal(err)
	}
	nat, err := Run(context.Background(), e, qs, natural(engine.BranchesActive))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("literal R@1 %.3f R@5 %.3f MRR %.3f; natural R@1 %.3f R@5 %.3f MRR %.3f",
		lit.Entry.R1, lit.Entry.R5, lit.Entry.MRR, nat.Entry.R1, nat.Entry.R5, nat.Entry.MRR)
	if nat.Entry.R5 <= lit.Entry.R5 || nat.Entry.MRR <= lit.Entry.MRR {
		t.Errorf("natural R@5 %.3f MRR %.3f do not beat literal's %.3f and %.3f",
			nat.Entry.R5, nat.Entry.MRR, lit.Entry.R5, lit.Entry.MRR)
	}
}
