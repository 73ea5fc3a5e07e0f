package evalset

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/memidx/memidx/engine"
)

// The public OMP set and the real pi/OMP files sit beside the repository
// (../shared); tests that need them skip when they are absent.
var (
	membench = filepath.Join("..", "..", "..", "shared", "bench", "omp-membench")
	realDir  = filepath.Join("..", "..", "..", "shared", "testdata", "real")
	ownSet   = filepath.Join("..", "..", "testdata", "eval")
)

func needDir(t *testing.T, dir string) {
	t.Helper()
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		t.Skipf("%s is absent (it sits beside the repository, in ../shared): skipping", dir)
	}
}

func openEngine(t *testing.T, agentDir, sessionDir string) *engine.Engine {
	t.Helper()
	if agentDir == "" {
		agentDir = t.TempDir()
	}
	e, err := engine.Open(engine.Options{AgentDir: agentDir, SessionDir: sessionDir, IndexDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

func readSet(t *testing.T, path string) []Question {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	qs, err := Read(f)
	if err != nil {
		t.Fatal(err)
	}
	return qs
}

func literal(branches engine.Branches) Options {
	return Options{Mode: engine.ModeLiteral, Match: engine.MatchAny, Branches: branches,
		Scope: engine.ScopeGlobal, PageSize: engine.DefaultPageSize}
}

// TestOMPMemBench runs the public OMP set: literal recall over every
// branch finds the labelled episode first for 26 of its 27 labelled
// questions (0.963), and the bar is 0.9.
func TestOMPMemBench(t *testing.T) {
	needDir(t, membench)
	e := openEngine(t, "", filepath.Join(membench, "sessions"))
	qs := readSet(t, filepath.Join(membench, "questions.jsonl"))
	rep, err := Run(context.Background(), e, qs, literal(engine.BranchesAll))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Answerable != 27 || rep.Abstain != 5 || rep.Unlabelled != 3 {
		t.Errorf("%d answerable, %d abstain, %d unlabelled; want 27, 5, 3", rep.Answerable, rep.Abstain, rep.Unlabelled)
	}
	if rep.Entry.R1 < 0.9 {
		t.Errorf("episode R@1 %.3f, want at least 0.9; misses:", rep.Entry.R1)
		for _, m := range rep.Misses() {
			t.Errorf("  line %d rank %d: %s %+v", m.Line, m.Ranks.Entry, m.Query, m.Top)
		}
	}
	if rep.Session.R1 < rep.Entry.R1 {
		t.Errorf("session R@1 %.3f below episode R@1 %.3f", rep.Session.R1, rep.Entry.R1)
	}
}

// checkEvidence walks every session of a set's evidence (active branch)
// and fails for evidence that names no entry there.
func checkEvidence(t *testing.T, e *engine.Engine, qs []Question, session func(Evidence) string) {
	t.Helper()
	type key struct {
		file, id string
		index    int
	}
	seen := map[string]map[key]bool{}
	for _, q := range qs {
		for _, ev := range q.Expected {
			file := session(ev)
			if seen[file] == nil {
				seen[file] = map[key]bool{}
				_, err := e.Walk(context.Background(), engine.ExpandRequest{Session: file}, func(en engine.ExpandedEntry) (bool, error) {
					if en.EntryID != nil {
						seen[file][key{file, *en.EntryID, -1}] = true
					} else {
						seen[file][key{file, "", en.Index}] = true
					}
					return true, nil
				})
				if err != nil {
					t.Fatal(err)
				}
			}
			k := key{file, ev.EntryID, -1}
			if ev.EntryID == "" {
				k = key{file, "", *ev.Index}
			}
			if !seen[file][k] {
				t.Errorf("line %d (%q): %+v is not on the active branch of %s", q.Line, q.Query, ev, file)
			}
		}
	}
}

// TestOwnSet checks the frozen set: every evidence entry is on the active
// branch of its session, and a run asks every question.
func TestOwnSet(t *testing.T) {
	e := openEngine(t, ownSet, "")
	qs := readSet(t, filepath.Join(ownSet, "questions.jsonl"))
	checkEvidence(t, e, qs, func(ev Evidence) string { return ev.SessionID })
	rep, err := Run(context.Background(), e, qs, literal(engine.BranchesActive))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Questions != 117 || rep.Answerable != 105 || rep.Abstain != 12 {
		t.Errorf("%d questions, %d answerable, %d abstain; want 117, 105, 12", rep.Questions, rep.Answerable, rep.Abstain)
	}
}

// TestRealSet checks the questions over the real pi/OMP files. Two of
// them share a session id, so each is walked by its path.
func TestRealSet(t *testing.T) {
	needDir(t, realDir)
	abs, err := filepath.Abs(realDir)
	if err != nil {
		t.Fatal(err)
	}
	e := openEngine(t, "", abs)
	qs := readSet(t, filepath.Join(ownSet, "questions-real.jsonl"))
	files := map[string]string{
		"d703a1a9-1b7b-4fb1-b512-c9738b1fe617": "omp-v3-titleslot-migrated-from-v1.jsonl",
		"ffae836b-9420-4060-ac13-7745215f90ff": "pi-v1-before-compaction-2compactions.jsonl",
		"2638daee-0588-4baa-bd33-68b4c002818e": "pi-v1-compact-with-concatenated-compaction.jsonl",
		"5fd1e58c-9635-410e-a644-133a96057c90": "pi-v1-session-with-concatenated-line.jsonl",
	}
	checkEvidence(t, e, qs, func(ev Evidence) string {
		name := files[ev.SessionID]
		if ev.EntryID == "" && name == files["d703a1a9-1b7b-4fb1-b512-c9738b1fe617"] {
			name = "pi-v1-large-session.jsonl" // the id-less copy
		}
		return filepath.Join(abs, name)
	})
	if _, err := Run(context.Background(), e, qs, literal(engine.BranchesActive)); err != nil {
		t.Fatal(err)
	}
}
