package cli

import (
	"encoding/json"
	"path/filepath"
	"testing"
)

// evalSet is a tiny labelled set over the example session: one question
// by entry, one by episode (ordinal 3 is "Now write a changelog line." and
// the reply after it), one must-abstain, one unlabelled and one whose
// evidence (the changelog request) has no word of the query, so it is
// never a hit.
const evalSet = `{"query":"changelog line","expected":[{"sessionId":"` + fixtureID + `","entryId":"e000001d"}]}
{"query":"done channel","expectedEpisodes":[{"sessionId":"` + fixtureID + `","ordinal":3}]}
{"query":"kubernetes helm zzqq","expected":[]}
{"query":"sleep","expectedMemoryTitles":["y"]}
{"query":"worker","expected":[{"sessionId":"` + fixtureID + `","entryId":"e000001d"}]}
`

func writeEvalSet(t *testing.T, w *world) { writeFile(t, filepath.Join(w.root, "set.jsonl"), evalSet) }

func TestEval(t *testing.T) {
	runCases(t, []cliCase{
		{name: "eval-json", args: []string{"eval", "$ROOT/set.jsonl", "--verbose"}, exit: 0, setup: writeEvalSet},
		{name: "eval-all-branches", args: []string{"eval", "$ROOT/set.jsonl", "--branches", "all"}, exit: 0, setup: writeEvalSet},
		{name: "eval-tty", args: []string{"eval", "$ROOT/set.jsonl", "--verbose", "--page-size", "1"}, tty: true, exit: 0, setup: writeEvalSet},
		{name: "eval-stdin", args: []string{"eval", "-"}, stdin: evalSet, exit: 0},
		{name: "eval-threshold-missed", args: []string{"eval", "$ROOT/set.jsonl", "--min-r1", "0.9", "--min-mrr", "1.01"}, exit: 1, setup: writeEvalSet},
		{name: "eval-threshold-met", args: []string{"eval", "$ROOT/set.jsonl", "--min-r1", "0.66", "--min-r5", "0.66", "--min-mrr", "0.66"}, exit: 0, setup: writeEvalSet},
		{name: "eval-unknown-mode", args: []string{"eval", "$ROOT/set.jsonl", "--mode", "fuzzy"}, exit: 2, setup: writeEvalSet},
		{name: "eval-no-set", args: []string{"eval"}, exit: 2},
		{name: "eval-missing-set", args: []string{"eval", "$ROOT/nosuch.jsonl"}, exit: 2},
		{name: "eval-bad-line", args: []string{"eval", "-"}, stdin: `{"query":"a","expected":[{"entryId":"e"}]}`, exit: 2},
		{name: "eval-bad-page-size", args: []string{"eval", "$ROOT/set.jsonl", "--page-size", "51"}, exit: 2, setup: writeEvalSet},
		{name: "eval-help", args: []string{"eval", "--help"}, exit: 0},
	})
}

// TestEvalRanks checks the figures of the tiny set by hand: the changelog
// question's evidence is the only hit; the done-channel question's best
// hit is e000001e, the reply in episode 3. On the active branch its index
// (14) is not its index over every branch (17), so the episode must be
// found by the hit's entry id.
func TestEvalRanks(t *testing.T) {
	for _, branches := range []string{"active", "all"} {
		t.Run(branches, func(t *testing.T) {
			w := newWorld(t)
			writeEvalSet(t, w)
			r := runCLI(t, []string{"--agent-dir", w.agent, "--index-dir", w.index, "eval",
				filepath.Join(w.root, "set.jsonl"), "--verbose", "--branches", branches}, "", false)
			if r.code != 0 {
				t.Fatalf("exit %d: %s %s", r.code, r.stdout, r.stderr)
			}
			var rep struct {
				Answerable, Abstain, Unlabelled int
				Entry, Session                  struct{ R1, MRR float64 }
				Answerability                   struct{ AbstainWithHits int }
				Results                         []struct {
					Ranks struct{ Entry, Session int }
					Hits  int
				}
			}
			if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
				t.Fatal(err)
			}
			if rep.Answerable != 3 || rep.Abstain != 1 || rep.Unlabelled != 1 || len(rep.Results) != 5 {
				t.Fatalf("counts: %+v", rep)
			}
			for i, want := range []int{1, 1, 0, 0, 0} {
				if got := rep.Results[i].Ranks.Entry; got != want {
					t.Errorf("question %d: entry rank %d, want %d", i+1, got, want)
				}
			}
			// Entry: ranks 1, 1, 0. Session: the last question's session
			// is hit first too.
			if rep.Entry.R1 != 2.0/3 || rep.Entry.MRR != 2.0/3 || rep.Session.R1 != 1 || rep.Session.MRR != 1 {
				t.Errorf("entry %+v session %+v, want 2/3, 2/3, 1, 1", rep.Entry, rep.Session)
			}
			if rep.Results[2].Hits != 0 || rep.Answerability.AbstainWithHits != 0 {
				t.Errorf("the must-abstain question got %d hits", rep.Results[2].Hits)
			}
		})
	}
}
