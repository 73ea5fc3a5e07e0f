package search

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/memidx/memidx/internal/index"
	"github.com/memidx/memidx/internal/normalize"
)

// diffWorld is a random corpus for the differential test: few words and
// short entries, so that equal scores (before and after rounding) are
// common and the tie-breaks by mtime, index and file decide.
type diffWorld struct {
	hot  []HotSource
	cold []ColdSource
	// vocab holds the words the entries use, most common first.
	vocab []string
}

func newDiffWorld(t *testing.T, rng *rand.Rand, withCold bool) *diffWorld {
	w := &diffWorld{}
	for i := 0; i < 12; i++ {
		w.vocab = append(w.vocab, fmt.Sprintf("v%d", i))
	}
	for s := rng.IntN(7); s >= 0; s-- {
		w.hot = append(w.hot, diffShard(t, rng, w.vocab, len(w.hot)))
	}
	if withCold {
		for c := rng.IntN(5); c > 0; c-- {
			has := make([]bool, 8)
			for i := range has {
				has[i] = rng.IntN(2) == 0
			}
			rec := &index.Record{Path: fmt.Sprintf("/c%d.jsonl", c), EntryCount: int32(rng.IntN(40)), Tier: index.Cold}
			rec.Identity.MtimeNs = int64(rng.IntN(3))
			w.cold = append(w.cold, ColdSource{Rec: rec, Has: has})
		}
	}
	return w
}

// diffShard builds one hot shard of up to 80 entries.
func diffShard(t *testing.T, rng *rand.Rand, vocab []string, n int) HotSource {
	roles := []string{"user", "assistant", "toolResult", "custom", ""}
	tools := []string{"", "", "bash", "read"}
	ents := make([]normalize.Entry, rng.IntN(80))
	for i := range ents {
		var sb strings.Builder
		for k := 1 + rng.IntN(8); k > 0; k-- {
			// Squaring skews the draw towards the first (common) words.
			f := rng.Float64()
			sb.WriteString(vocab[int(f*f*float64(len(vocab)))] + " ")
		}
		e := normalize.Entry{Index: i, Type: "message", Text: sb.String()}
		if r := roles[rng.IntN(len(roles))]; r != "" {
			e.Role = &r
		}
		if tl := tools[rng.IntN(len(tools))]; tl != "" {
			e.Tool = &tl
		}
		if rng.IntN(4) > 0 {
			ts := float64(rng.IntN(100))
			e.Timestamp = &ts
		}
		ents[i] = e
	}
	src := builtSource(t, fmt.Sprintf("/s%d.jsonl", n), ents)
	// Few distinct mtimes: sessions tie on them.
	src.Rec.Identity.MtimeNs = int64(rng.IntN(3))
	return src
}

// diffQuery draws a literal query: 1 to 4 terms, common, rare or absent.
func diffQuery(rng *rand.Rand, w *diffWorld) Plan {
	p := Plan{Kind: PlanTerms, All: rng.IntN(3) == 0}
	for k := 1 + rng.IntN(4); k > 0; k-- {
		t := "absent"
		if rng.IntN(8) > 0 {
			t = w.vocab[rng.IntN(len(w.vocab))]
		}
		if !slices.Contains(p.Terms, t) {
			p.Terms = append(p.Terms, t)
		}
	}
	return p
}

// diffFilters draws structural, operational and time filters.
func diffFilters(rng *rand.Rand) Filters {
	var f Filters
	switch rng.IntN(5) {
	case 0:
		f.Keys = []string{normalize.KeyRole + "assistant"}
	case 1:
		f.Keys = []string{normalize.KeyTool + "bash"}
		f.Operational = true
	case 2:
		f.Operational = true
	}
	if rng.IntN(4) == 0 {
		v := float64(rng.IntN(60))
		f.Since = &v
	}
	if rng.IntN(4) == 0 {
		v := float64(40 + rng.IntN(60))
		f.Until = &v
	}
	return f
}

// TestTopKMatchesExhaustive compares the top-k hot path with the
// exhaustive scorer over random corpora, queries, filters, entry ranges,
// pages and budgets: the page's items (scores, order, tie-breaks), the
// total and the coverage reasons must be identical.
func TestTopKMatchesExhaustive(t *testing.T) {
	defer func(e, i int) { entryBudget, itemBudget, cursorOnly = e, i, false }(entryBudget, itemBudget)
	rng := rand.New(rand.NewPCG(7, 11))
	rounds := 400
	if testing.Short() || raceDetector {
		rounds = 100
	}
	for round := 0; round < rounds; round++ {
		f := diffFilters(rng)
		// Cold structural filters read a digest view, which this world
		// does not build: cold sources only without filters.
		w := newDiffWorld(t, rng, !f.any())
		entryBudget, itemBudget = MaxEntryCandidates, MaxRankedItems
		// The cursor path is the column scan's fallback for damaged lists.
		cursorOnly = rng.IntN(4) == 0
		if rng.IntN(3) == 0 {
			entryBudget = 1 + rng.IntN(60)
		}
		if rng.IntN(3) == 0 {
			itemBudget = 1 + rng.IntN(60)
		}
		if len(w.hot) == 1 && rng.IntN(3) == 0 {
			w.hot[0].First = rng.IntN(40)
			w.hot[0].Last = w.hot[0].First + rng.IntN(40)
		}
		for q := 0; q < 10; q++ {
			p := diffQuery(rng, w)
			need := 1 + rng.IntN(40)
			if rng.IntN(10) == 0 {
				need = 1 + rng.IntN(topKMax)
			}
			need = min(need, entryBudget, itemBudget) // deeper pages take the exhaustive path
			compareTopK(t, w, p, f, need, fmt.Sprintf("round %d query %d %+v need %d budgets %d/%d", round, q, p, need, entryBudget, itemBudget))
		}
	}
}

func compareTopK(t *testing.T, w *diffWorld, p Plan, f Filters, need int, what string) {
	t.Helper()
	mk := func() *Searcher {
		return &Searcher{ctx: context.Background(), plan: p, filt: f, Hot: w.hot, Cold: w.cold}
	}
	ref, exh := mk(), mk()
	want, wantTotal := ref.Run(topKMax + 1) // exhaustive: deeper than top-k takes
	got, gotTotal := exh.Run(need)
	if !exh.useTopK(need) {
		t.Fatalf("%s: the top-k path is not taken", what)
	}
	if gotTotal != wantTotal {
		t.Fatalf("%s: total %d, want %d", what, gotTotal, wantTotal)
	}
	k := min(need, wantTotal)
	if len(got) < k {
		t.Fatalf("%s: %d items for a page of %d", what, len(got), k)
	}
	for i := 0; i < k; i++ {
		if got[i] != want[i] {
			t.Fatalf("%s: item %d is %+v, want %+v", what, i, got[i], want[i])
		}
	}
	if g, w := exh.Reasons.Reasons(), ref.Reasons.Reasons(); !slices.Equal(g, w) {
		t.Fatalf("%s: reasons %v, want %v", what, g, w)
	}
}
