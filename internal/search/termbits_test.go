package search_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/internal/index"
	"github.com/memidx/memidx/internal/lineage"
	"github.com/memidx/memidx/internal/normalize"
	"github.com/memidx/memidx/internal/search"
)

// bitsPlans are the plans whose cold pass may take bitmaps: common and
// rare terms together, all of them, a phrase, natural mode's stems.
func bitsPlans() []struct {
	name string
	plan search.Plan
} {
	lit := func(q string, all bool) search.Plan { return search.LiteralPlan(q, all) }
	nat := search.NaturalPlan("deploying the servers with latency", search.NaturalFields{Canonical: search.DefaultField, Stem: search.Field{Weight: 0.5, B: 0.75}})
	return []struct {
		name string
		plan search.Plan
	}{
		{"common", lit("deploy", false)},
		{"rare and common", lit("solo deploy", false)},
		{"two sessions and two common", lit("duo deploy server", false)},
		{"four common", lit("deploy server error timeout", false)},
		{"all terms", lit("deploy error", true)},
		{"all, rare and common", lit("duo deploy", true)},
		{"rare", lit("solo", false)},
		{"absent and common", lit("nowhere deploy", false)},
		{"phrase", search.PhrasePlan("the duo word")},
		{"natural", nat},
	}
}

// compareBits checks that the answer with bitmaps (each split of dense
// terms) is the record path's and the one of opening every digest, and
// that the bitmaps did answer.
func compareBits(t *testing.T, w *lexWorld, what string, plan search.Plan, need int) {
	t.Helper()
	restore := search.SetBitsOff(true, 3)
	records, _ := w.search(t, plan, search.Filters{}, need, false)
	digests, _ := w.search(t, plan, search.Filters{}, need, true)
	restore()
	assert.Equal(t, digests, records, "%s: records and digests", what)
	for dense := range 4 {
		restore := search.SetBitsOff(false, dense)
		before := search.BitsRuns()
		got, _ := w.search(t, plan, search.Filters{}, need, false)
		restore()
		assert.Equal(t, before+1, search.BitsRuns(), "%s: bitmaps answered", what)
		assert.Equal(t, records, got, "%s, %d dense terms", what, dense)
	}
}

// The cold pass by bitmaps answers every query as the record-by-record
// pass and the digests do: items, scores, order and totals.
func TestColdBitsAnswerAsRecords(t *testing.T) {
	w := newLexWorld(t, 60, 3)
	for _, p := range bitsPlans() {
		for _, need := range []int{1, 3, 50} {
			compareBits(t, w, fmt.Sprintf("%s, need %d", p.name, need), p.plan, need)
		}
	}
	// A filter is counted in the digests: no bitmaps.
	before := search.BitsRuns()
	w.search(t, search.LiteralPlan("deploy", false), search.Filters{Keys: []string{normalize.KeyRole + "user"}}, 3, false)
	assert.Equal(t, before, search.BitsRuns(), "a filtered query took bitmaps")
}

// The memo's bitmaps follow the archive: a session rewritten with or
// without a common word, one removed, a new one, and another scope over
// the same lexicon all answer as the digests do.
func TestColdBitsFollowChanges(t *testing.T) {
	w := newLexWorld(t, 60, 3)
	plans := []search.Plan{search.LiteralPlan("deploy", false), search.LiteralPlan("solo deploy", false), search.LiteralPlan("zqnew deploy", false)}
	check := func(step string) {
		t.Helper()
		for i, p := range plans {
			compareBits(t, w, fmt.Sprintf("%s, plan %d", step, i), p, 50)
		}
	}
	check("start")
	rewrite := func(i int, texts ...string) {
		p := filepath.Join(w.dir, fmt.Sprintf("s%02d.jsonl", i))
		require.NoError(t, os.WriteFile(p, []byte(dialogue(fmt.Sprintf("s%02d", i), i, texts)), 0o600))
		mt := time.Now().Add(-time.Duration(i+1) * time.Minute)
		require.NoError(t, os.Chtimes(p, mt, mt))
	}
	rewrite(40, "zqnew deploy words")
	check("a cold session with a new word")
	rewrite(41, "nothing common here")
	check("a cold session without the common word")
	require.NoError(t, os.Remove(filepath.Join(w.dir, "s42.jsonl")))
	check("a cold session removed")
	all := w.targets
	w.targets = all[10:50]
	check("another scope")
	w.targets = all
	check("the whole archive again")
}

// Searches of one Engine share its memo: run at once, over two scopes
// whose cold records take turns in it, each answers as it does alone.
func TestColdBitsConcurrentSearches(t *testing.T) {
	w := newLexWorld(t, 60, 3)
	all, part := w.targets, w.targets[5:55]
	plans := []search.Plan{search.LiteralPlan("deploy", false), search.LiteralPlan("solo deploy server", false)}
	type job struct {
		targets []index.Target
		plan    search.Plan
	}
	var jobs []job
	for _, tg := range [][]index.Target{all, part} {
		for _, p := range plans {
			jobs = append(jobs, job{tg, p})
		}
	}
	alone := make([]answer, len(jobs))
	for i, j := range jobs {
		w.targets = j.targets
		alone[i], _ = w.search(t, j.plan, search.Filters{}, 5, true)
	}
	w.targets = all
	runs := search.BitsRuns()
	got := make([][]answer, len(jobs))
	var wg sync.WaitGroup
	for i, j := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 20 {
				got[i] = append(got[i], w.searchOver(j.targets, j.plan, 5))
			}
		}()
	}
	wg.Wait()
	for i := range jobs {
		for _, g := range got[i] {
			assert.Equal(t, alone[i], g, "job %d", i)
		}
	}
	assert.GreaterOrEqual(t, search.BitsRuns()-runs, int64(len(jobs)*20), "every search took the bitmaps")
}

// searchOver is search without the test's assertions (for goroutines):
// plan over targets, through the lexicon and the world's memo.
func (w *lexWorld) searchOver(targets []index.Target, plan search.Plan, need int) answer {
	var got answer
	ctx := context.Background()
	want := index.Need{Targets: targets, Refresh: index.RefreshOptions{Mode: lineage.Active, Searched: []string{w.dir}}}
	_, _, err := w.ix.Acquire(ctx, want, func(v *index.View) error {
		s := search.New(ctx, plan, search.Filters{}, &w.docs)
		defer s.Release()
		s.Open(v)
		search.SortByState(v, s.Cold)
		got = answerOf(s, need)
		return nil
	})
	if err != nil {
		got.Reasons = append(got.Reasons, err.Error())
	}
	return got
}
