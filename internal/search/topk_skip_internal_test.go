package search

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/memidx/memidx/internal/blocksum"
	"github.com/memidx/memidx/internal/hotbm25"
	"github.com/memidx/memidx/internal/index"
	"github.com/memidx/memidx/internal/normalize"
)

// skipEntry is one entry of a hand-made or drawn shard.
type skipEntry struct {
	text, role, tool string
	ts               float64 // < 0: none
}

// skipShard builds shard n of ents, and sets the weights of the entries
// in odd (entry → weight) in its columns: Build only writes Weight's few
// values, and the scan must treat any other as the exhaustive path does.
func skipShard(t *testing.T, ents []skipEntry, n int, mtime int64, odd map[int]float32) HotSource {
	t.Helper()
	norm := make([]normalize.Entry, len(ents))
	for i, se := range ents {
		e := normalize.Entry{Index: i, Type: "message", Text: se.text}
		if se.role != "" {
			e.Role = &se.role
		}
		if se.tool != "" {
			e.Tool = &se.tool
		}
		if se.ts >= 0 {
			ts := se.ts
			e.Timestamp = &ts
		}
		norm[i] = e
	}
	built, err := hotbm25.Build(norm)
	if err != nil {
		t.Fatal(err)
	}
	if len(odd) > 0 {
		v, err := blocksum.Open(built.Cols)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := v.Slice(0, v.Len())
		cols := slices.Clone(raw)
		for e, w := range odd {
			binary.LittleEndian.PutUint32(cols[e*16+4:], math.Float32bits(w))
		}
		if built.Cols, err = blocksum.Seal(cols); err != nil {
			t.Fatal(err)
		}
	}
	sh, err := built.Open()
	if err != nil {
		t.Fatal(err)
	}
	rec := &index.Record{Path: fmt.Sprintf("/k%d.jsonl", n), SumLen: built.SumLen, EntryCount: int32(len(ents)), Tier: index.Hot}
	rec.Identity.MtimeNs = mtime
	return HotSource{Rec: rec, Shard: sh, Tier: index.Hot, First: -1, Last: -1}
}

// skipWorld draws 1 to 4 shards of 150 to 1,500 entries for the skipping
// scan: skewed words (two of them in nearly every entry, so that a broad
// query's bounds pass over most entries), words that only some shards
// hold, long entries whose frequencies pass the bound table's rows and a
// posting's one byte, gaps of more than a byte between the entries of a
// rare word, and odd weights.
func skipWorld(t *testing.T, rng *rand.Rand) []HotSource {
	roles := []string{"user", "assistant", "toolResult", "custom", ""}
	tools := []string{"", "", "bash", "read"}
	var hot []HotSource
	for s := rng.IntN(4); s >= 0; s-- {
		ents := make([]skipEntry, 150+rng.IntN(1350))
		for i := range ents {
			var sb strings.Builder
			for k := 3 + rng.IntN(30); k > 0; k-- {
				f := rng.Float64()
				fmt.Fprintf(&sb, "c%d ", int(f*f*f*30))
			}
			if rng.IntN(4) == 0 {
				fmt.Fprintf(&sb, "s%d ", len(hot)) // only this shard
			}
			if i%200 == 7 {
				sb.WriteString("rare ")
			}
			if rng.IntN(60) == 0 {
				sb.WriteString(strings.Repeat("c0 c1 ", 10+rng.IntN(150)))
			}
			ts := -1.0
			if rng.IntN(4) > 0 {
				ts = float64(rng.IntN(100))
			}
			ents[i] = skipEntry{sb.String(), roles[rng.IntN(len(roles))], tools[rng.IntN(len(tools))], ts}
		}
		odd := map[int]float32{}
		if rng.IntN(3) == 0 {
			for k := rng.IntN(5); k >= 0; k-- {
				odd[rng.IntN(len(ents))] = []float32{0, -1, 3.7, 1e-3}[rng.IntN(4)]
			}
		}
		hot = append(hot, skipShard(t, ents, len(hot), int64(rng.IntN(2)), odd))
	}
	return hot
}

// skipQuery draws 1 to 4 terms: mostly the two densest words, common,
// shard-only, rare and absent ones.
func skipQuery(rng *rand.Rand) Plan {
	p := Plan{Kind: PlanTerms, All: rng.IntN(3) == 0}
	pool := []string{"c0", "c1", "c0", "c1", "c2", "c5", "c12", "c29", "s0", "s2", "rare", "absent"}
	for k := 1 + rng.IntN(4); k > 0; k-- {
		if w := pool[rng.IntN(len(pool))]; !slices.Contains(p.Terms, w) {
			p.Terms = append(p.Terms, w)
		}
	}
	return p
}

// TestTopKSkipsMatchExhaustive compares the top-k column scan, whose
// bounds pass over most entries of broad queries here, with the
// exhaustive scorer: items (scores, order, tie-breaks), total and
// reasons must be identical, over filters, entry ranges, odd weights and
// pages from 1 to topKMax deep.
func TestTopKSkipsMatchExhaustive(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 17))
	rounds := 60
	if testing.Short() || raceDetector {
		rounds = 15
	}
	for round := 0; round < rounds; round++ {
		w := &diffWorld{hot: skipWorld(t, rng)}
		if len(w.hot) == 1 && rng.IntN(3) == 0 {
			w.hot[0].First = rng.IntN(300)
			w.hot[0].Last = w.hot[0].First + rng.IntN(600)
		}
		for q := 0; q < 12; q++ {
			f := diffFilters(rng)
			p := skipQuery(rng)
			need := []int{1, 10, 11, 25, 100, 1 + rng.IntN(topKMax)}[rng.IntN(6)]
			what := fmt.Sprintf("round %d query %d %+v filters %+v need %d", round, q, p, f, need)
			compareTopK(t, w, p, f, need, what)
			if len(p.Terms) > 1 && rng.IntN(2) == 0 {
				comparePhrase(t, w, append(p.Terms, p.Terms[0]), f, need, what)
			}
		}
	}
}

// TestTopKSkipCases compares the top-k scan with the exhaustive scorer on
// hand-made shards: all-tied entries (the page is decided by mtime, index
// and file), a term absent from a shard, a term in every entry.
func TestTopKSkipCases(t *testing.T) {
	same := func(n int, text string) []skipEntry {
		ents := make([]skipEntry, n)
		for i := range ents {
			ents[i] = skipEntry{text: text, role: "assistant", ts: float64(i % 50)}
		}
		return ents
	}
	mixed := func(n int) []skipEntry {
		ents := make([]skipEntry, n)
		for i := range ents {
			text := "alpha " + strings.Repeat("beta ", 1+i%7)
			if i%9 == 0 {
				text += "gamma"
			}
			ents[i] = skipEntry{text: text, role: []string{"user", "assistant", "toolResult"}[i%3], ts: float64(i % 100)}
		}
		return ents
	}
	since, until := 20.0, 60.0
	cases := []struct {
		name   string
		shards [][]skipEntry
		mtimes []int64
		terms  []string
		all    bool
		filt   Filters
		rng    [2]int // an entry range of a single shard, when set
		// weights, when set, are cycled over every shard's entries.
		weights []float32
	}{
		{name: "ties across shards", shards: [][]skipEntry{same(300, "alpha beta"), same(300, "alpha beta")}, mtimes: []int64{1, 1}, terms: []string{"alpha", "beta"}},
		{name: "ties, mtime first", shards: [][]skipEntry{same(300, "alpha beta"), same(300, "alpha beta")}, mtimes: []int64{1, 2}, terms: []string{"beta", "alpha"}},
		{name: "absent from one shard", shards: [][]skipEntry{mixed(400), same(200, "delta beta")}, mtimes: []int64{0, 0}, terms: []string{"gamma", "beta"}},
		{name: "absent everywhere", shards: [][]skipEntry{mixed(400)}, mtimes: []int64{0}, terms: []string{"alpha", "nothere"}},
		{name: "all, one term absent", shards: [][]skipEntry{mixed(400), same(200, "delta beta")}, mtimes: []int64{0, 0}, terms: []string{"gamma", "beta"}, all: true},
		{name: "every entry", shards: [][]skipEntry{mixed(500), mixed(500)}, mtimes: []int64{3, 3}, terms: []string{"alpha", "beta"}},
		{name: "role filter", shards: [][]skipEntry{mixed(500), mixed(500)}, mtimes: []int64{0, 1}, terms: []string{"alpha", "beta"}, filt: Filters{Keys: []string{normalize.KeyRole + "user"}}},
		{name: "time range", shards: [][]skipEntry{mixed(500)}, mtimes: []int64{0}, terms: []string{"beta", "gamma"}, filt: Filters{Since: &since, Until: &until}},
		{name: "operational", shards: [][]skipEntry{mixed(500)}, mtimes: []int64{0}, terms: []string{"alpha", "beta"}, filt: Filters{Operational: true}},
		{name: "entry range", shards: [][]skipEntry{mixed(500)}, mtimes: []int64{0}, terms: []string{"alpha", "gamma"}, rng: [2]int{100, 260}},
		// A weight that is not positive has no bound: a bound times it
		// is not above the score.
		{name: "weights not positive", shards: [][]skipEntry{mixed(500)}, mtimes: []int64{0}, terms: []string{"alpha", "beta"}, weights: []float32{-1, 0, -0.25, -2}},
		{name: "weights not positive, one term", shards: [][]skipEntry{mixed(500)}, mtimes: []int64{0}, terms: []string{"beta"}, weights: []float32{-1, 0, -0.25}},
		{name: "odd weights, three terms", shards: [][]skipEntry{mixed(500)}, mtimes: []int64{0}, terms: []string{"alpha", "beta", "gamma"}, weights: []float32{-1, 3.5, 0, 1e-3}},
	}
	for _, c := range cases {
		for _, need := range []int{1, 10, 11, 37, 300, topKMax} {
			w := &diffWorld{}
			for i, ents := range c.shards {
				odd := map[int]float32{}
				for e := range ents {
					if len(c.weights) > 0 {
						odd[e] = c.weights[e%len(c.weights)]
					}
				}
				w.hot = append(w.hot, skipShard(t, ents, i, c.mtimes[i], odd))
			}
			if c.rng != [2]int{} {
				w.hot[0].First, w.hot[0].Last = c.rng[0], c.rng[1]
			}
			p := Plan{Kind: PlanTerms, Terms: c.terms, All: c.all}
			compareTopK(t, w, p, c.filt, need, fmt.Sprintf("%s need %d", c.name, need))
		}
	}
}

// comparePhrase checks a phrase query (which the exhaustive path ranks)
// against the all-terms query of its words, ranked by the top-k path and
// then narrowed to the entries holding the phrase: the same scores, order
// and total, since a phrase scores the BM25 of its terms.
func comparePhrase(t *testing.T, w *diffWorld, words []string, f Filters, need int, what string) {
	t.Helper()
	var terms []string
	for _, x := range words {
		if !slices.Contains(terms, x) {
			terms = append(terms, x)
		}
	}
	ph := &Searcher{ctx: context.Background(), plan: Plan{Kind: PlanPhrase, Terms: terms, Phrase: words}, filt: f, Hot: w.hot}
	got, gotTotal := ph.Run(need)
	all := &Searcher{ctx: context.Background(), plan: Plan{Kind: PlanTerms, Terms: terms, All: true}, filt: f, Hot: w.hot}
	items, total := all.Run(topKMax)
	if total > topKMax {
		return // the terms page does not show every match
	}
	var want []Item
	for _, it := range items {
		if ph.phraseIn(&w.hot[it.Src], it.Index) {
			want = append(want, it)
		}
	}
	if gotTotal != len(want) {
		t.Fatalf("%s: phrase total %d, want %d", what, gotTotal, len(want))
	}
	for i := 0; i < min(need, len(want)); i++ {
		if got[i] != want[i] {
			t.Fatalf("%s: phrase item %d is %+v, want %+v", what, i, got[i], want[i])
		}
	}
}
