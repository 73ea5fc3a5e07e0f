package search

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/internal/coverage"
	"github.com/memidx/memidx/internal/index"
	"github.com/memidx/memidx/internal/normalize"
)

// refBM25 is BM25 as the design writes it (k1 1.2, b 0.75 unless a field
// says otherwise, Lucene's idf), spelled out apart from the scorer.
func refBM25(n, df, tf, dl, avgdl, bf float64) float64 {
	idf := math.Log(1 + (n-df+0.5)/(df+0.5))
	return idf * tf * 2.2 / (tf + 1.2*(1-bf+bf*dl/avgdl))
}

func refIDF(n, df float64) float64 { return math.Log(1 + (n-df+0.5)/(df+0.5)) }

func r6(f float64) float64 { return math.Round(f*1e6) / 1e6 }

// rankWorld is one hot shard of four entries and one cold session that
// the lexicon says holds "alpha" (six entries):
//
//	0 "alpha beta"               user        dl 2 weight 2.25
//	1 "alpha alpha alpha gamma"  assistant   dl 4 weight 2.5
//	2 "beta delta"               bash call   dl 2 weight 0.7
//	3 "gamma"                    toolResult  dl 1 weight 0.75
//
// N = 4 + 6 = 10 entries, avgdl = 9/4 (hot entries only).
func rankWorld(t *testing.T) ([]HotSource, []ColdSource) {
	hot := skipShard(t, []skipEntry{
		{text: "alpha beta", role: "user", ts: 10},
		{text: "alpha alpha alpha gamma", role: "assistant", ts: 20},
		{text: "beta delta", role: "assistant", tool: "bash", ts: 30},
		{text: "gamma", role: "toolResult", ts: -1},
	}, 0, 5, nil)
	rec := &index.Record{Path: "/cold.jsonl", EntryCount: 6, Tier: index.Cold}
	rec.Identity.MtimeNs = 1
	return []HotSource{hot}, []ColdSource{{Rec: rec, Has: []bool{true, false}}}
}

type want struct {
	entry bool
	index int
	score float64
}

// TestBM25HandComputed ranks rankWorld and checks every score against
// refBM25 with the corpus statistics counted by hand.
func TestBM25HandComputed(t *testing.T) {
	const n, avgdl = 10.0, 9.0 / 4
	since, until := 15.0, 25.0
	// "alpha": hot entries 0 and 1, and the cold session: df 3.
	a0 := refBM25(n, 3, 1, 2, avgdl, 0.75)
	a1 := refBM25(n, 3, 3, 4, avgdl, 0.75)
	aCold := refIDF(n, 3) // an average entry holding it once, weight 1
	// "beta": entries 0 and 2, not the cold session: df 2.
	b0 := refBM25(n, 2, 1, 2, avgdl, 0.75)
	b2 := refBM25(n, 2, 1, 2, avgdl, 0.75)
	for _, c := range []struct {
		name  string
		terms []string
		all   bool
		filt  Filters
		want  []want
		total int
	}{
		{name: "one term", terms: []string{"alpha"},
			want: []want{{true, 1, a1 * 2.5}, {true, 0, a0 * 2.25}, {false, -1, aCold}}, total: 3},
		{name: "two terms, any", terms: []string{"alpha", "beta"},
			want: []want{{true, 0, (a0 + b0) * 2.25}, {true, 1, a1 * 2.5}, {false, -1, aCold}, {true, 2, b2 * 0.7}}, total: 4},
		// all: the cold session holds alpha only and is not a candidate.
		{name: "two terms, all", terms: []string{"alpha", "beta"}, all: true,
			want: []want{{true, 0, (a0 + b0) * 2.25}}, total: 1},
		// An operational filter weighs every entry 1; the statistics stay.
		{name: "operational", terms: []string{"alpha", "beta"}, filt: Filters{Operational: true},
			want: []want{{true, 0, a0 + b0}, {true, 2, b2}, {true, 1, a1}, {false, -1, aCold}}, total: 4},
		{name: "absent", terms: []string{"omega"}, want: nil, total: 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, need := range []int{1, 2, 10, topKMax + 1} {
				hot, cold := rankWorld(t)
				has := make([]bool, len(c.terms))
				has[0] = c.terms[0] == "alpha"
				cold[0].Has = has
				s := &Searcher{ctx: context.Background(), plan: Plan{Kind: PlanTerms, Terms: c.terms, All: c.all}, filt: c.filt, Hot: hot, Cold: cold}
				items, total := s.Run(need)
				assert.Equal(t, c.total, total, "need %d", need)
				checkItems(t, items, c.want[:min(need, len(c.want))], fmt.Sprintf("need %d", need))
			}
		})
	}
	t.Run("time window keeps entry 1 alone", func(t *testing.T) {
		hot, _ := rankWorld(t)
		s := &Searcher{plan: Plan{Kind: PlanTerms, Terms: []string{"alpha"}}, filt: Filters{Since: &since, Until: &until}, Hot: hot}
		items, total := s.Run(10)
		// The cold session is gone, so N is 4 and df 2 now.
		checkItems(t, items, []want{{true, 1, refBM25(4, 2, 3, 4, avgdl, 0.75) * 2.5}}, "window")
		assert.Equal(t, 1, total)
	})
}

func checkItems(t *testing.T, items []Item, want []want, what string) {
	t.Helper()
	require.GreaterOrEqual(t, len(items), len(want), what)
	for i, w := range want {
		got := items[i]
		assert.Equal(t, w.entry, got.Entry, "%s: item %d", what, i)
		if w.entry {
			assert.Equal(t, w.index, got.Index, "%s: item %d", what, i)
		}
		assert.Equal(t, r6(w.score), got.Score, "%s: item %d", what, i)
	}
}

// TestBM25Fields checks a plan's fields: each term's weight multiplies,
// and its b normalises, its part.
func TestBM25Fields(t *testing.T) {
	hot, _ := rankWorld(t)
	const n, avgdl = 4.0, 9.0 / 4
	plan := Plan{Kind: PlanTerms, Terms: []string{"alpha", "gamma"}, Fields: []Field{{Weight: 1, B: 0.75}, {Weight: 0.4, B: 0.2}}}
	s := &Searcher{plan: plan, Hot: hot}
	items, total := s.Run(10)
	assert.Equal(t, 3, total)
	g1 := 0.4 * refBM25(n, 2, 1, 4, avgdl, 0.2)
	g3 := 0.4 * refBM25(n, 2, 1, 1, avgdl, 0.2)
	checkItems(t, items, []want{
		{true, 1, (refBM25(n, 2, 3, 4, avgdl, 0.75) + g1) * 2.5},
		{true, 0, refBM25(n, 2, 1, 2, avgdl, 0.75) * 2.25},
		{true, 3, g3 * 0.75},
	}, "fields")
}

// TestBrowseScores: browsing scores 0, and 1 under a filter, hot and cold
// alike; a hot entry range keeps its entries only.
func TestBrowseScores(t *testing.T) {
	hot, cold := rankWorld(t)
	s := &Searcher{plan: Plan{Kind: PlanBrowse}, Hot: hot, Cold: cold}
	items, total := s.Run(10)
	assert.Equal(t, 5, total)
	for _, it := range items {
		assert.Zero(t, it.Score)
	}
	// Higher mtime first: the hot session's entries in order, then cold.
	var order []int
	for _, it := range items {
		order = append(order, it.Index)
	}
	assert.Equal(t, []int{0, 1, 2, 3, -1}, order)

	hot[0].First, hot[0].Last = 1, 2
	s = &Searcher{plan: Plan{Kind: PlanBrowse}, filt: Filters{Operational: true}, Hot: hot}
	items, total = s.Run(10)
	assert.Equal(t, 2, total)
	assert.Equal(t, []want{{true, 1, 0}, {true, 2, 0}}, wants(items))

	// A key filter: score 1.
	s = &Searcher{plan: Plan{Kind: PlanBrowse}, filt: Filters{Keys: []string{normalize.KeyRole + "user"}}, Hot: hot[:1]}
	s.Hot[0].First, s.Hot[0].Last = -1, -1
	items, _ = s.Run(10)
	for _, it := range items {
		assert.Equal(t, 1.0, it.Score)
	}
}

func wants(items []Item) []want {
	var out []want
	for _, it := range items {
		out = append(out, want{it.Entry, it.Index, it.Score})
	}
	return out
}

// TestStreamOrder checks less on each tie-break, and that Run's page
// follows it across hot entries and cold sessions.
func TestStreamOrder(t *testing.T) {
	base := Item{Score: 1, mtime: 5, Entry: true, Index: 3, file: "/b"}
	for _, c := range []struct {
		name  string
		other func(it *Item)
		first bool // base comes before other
	}{
		{"higher score first", func(it *Item) { it.Score = 2 }, false},
		{"newer session first", func(it *Item) { it.mtime = 4 }, true},
		{"entries before sessions", func(it *Item) { it.Entry = false }, true},
		{"lower entry index first", func(it *Item) { it.Index = 2 }, false},
		{"file order last", func(it *Item) { it.file = "/c" }, true},
	} {
		o := base
		c.other(&o)
		assert.Equal(t, c.first, less(&base, &o), c.name)
		assert.Equal(t, !c.first, less(&o, &base), c.name)
	}
	assert.False(t, less(&base, &base), "an item is not before itself")

	// Equal scores across tiers: a hot entry and a cold session of the
	// same mtime, the entry first; a newer cold session before both.
	hot, cold := rankWorld(t)
	hot[0].Rec.Identity.MtimeNs = 1
	newer := &index.Record{Path: "/newer.jsonl", EntryCount: 2, Tier: index.Cold}
	newer.Identity.MtimeNs = 9
	cold = append(cold, ColdSource{Rec: newer})
	s := &Searcher{plan: Plan{Kind: PlanBrowse}, filt: Filters{Operational: true, Keys: nil}, Hot: hot, Cold: cold}
	items, _ := s.Run(10)
	var got []string
	for _, it := range items {
		if it.Entry {
			got = append(got, fmt.Sprintf("e%d", it.Index))
		} else {
			got = append(got, s.Cold[it.Src].Rec.Path)
		}
	}
	assert.Equal(t, []string{"/newer.jsonl", "e0", "e1", "e2", "e3", "/cold.jsonl"}, got)
}

// TestCandidateBudgets checks that each budget keeps the best items and
// names itself in the coverage.
func TestCandidateBudgets(t *testing.T) {
	defer func(e, i int) { entryBudget, itemBudget = e, i }(entryBudget, itemBudget)
	for _, c := range []struct {
		name        string
		entry, item int
		need        int
		total       int
		reasons     []string
	}{
		{"within", MaxEntryCandidates, MaxRankedItems, 10, 4, []string{}},
		{"entry budget, exhaustive", 2, MaxRankedItems, topKMax + 1, 3, []string{coverage.CandidateEntryBudget}},
		{"entry budget, top-k", 2, MaxRankedItems, 1, 3, []string{coverage.CandidateEntryBudget}},
		{"item budget", MaxEntryCandidates, 2, topKMax + 1, 2, []string{coverage.CandidateItemBudget}},
	} {
		entryBudget, itemBudget = c.entry, c.item
		hot, cold := rankWorld(t)
		cold[0].Has = []bool{true, false}
		s := &Searcher{plan: Plan{Kind: PlanTerms, Terms: []string{"alpha", "beta"}}, Hot: hot, Cold: cold}
		items, total := s.Run(c.need)
		assert.Equal(t, c.total, total, c.name)
		assert.Equal(t, c.reasons, s.Reasons.Reasons(), c.name)
		// The best survive: entry 0 (alpha and beta) leads.
		assert.Equal(t, 0, items[0].Index, c.name)
	}
}

// TestDigestBudget: past MaxDigestCandidates cold candidates, the best
// are kept, the total is capped, and the budget is named.
func TestDigestBudget(t *testing.T) {
	cold := make([]ColdSource, MaxDigestCandidates+5)
	for i := range cold {
		rec := &index.Record{Path: fmt.Sprintf("/c%05d.jsonl", i), EntryCount: 1, Tier: index.Cold}
		rec.Identity.MtimeNs = int64(i)
		// Every session holds "a"; the first three "b" too.
		cold[i] = ColdSource{Rec: rec, Has: []bool{true, i < 3}}
	}
	s := &Searcher{plan: Plan{Kind: PlanTerms, Terms: []string{"a", "b"}}, Cold: cold}
	items, total := s.Run(5)
	assert.Equal(t, MaxDigestCandidates, total)
	assert.Len(t, items, MaxDigestCandidates)
	assert.Equal(t, []string{coverage.CandidateDigestBudget}, s.Reasons.Reasons())
	var top []string
	for _, it := range items[:5] {
		top = append(top, s.Cold[it.Src].Rec.Path)
	}
	// The sessions holding both terms first (newest first), then the
	// newest of the rest.
	assert.Equal(t, []string{"/c00002.jsonl", "/c00001.jsonl", "/c00000.jsonl", "/c10004.jsonl", "/c10003.jsonl"}, top)
}

// TestColdReasons: a cold candidate that only its entries could confirm
// names what it needs.
func TestColdReasons(t *testing.T) {
	rec := &index.Record{Path: "/c.jsonl", EntryCount: 3, Tier: index.Cold}
	for _, c := range []struct {
		name string
		plan Plan
		want []string
	}{
		{"any term", Plan{Kind: PlanTerms, Terms: []string{"a", "b"}}, []string{}},
		{"all terms", Plan{Kind: PlanTerms, Terms: []string{"a", "b"}, All: true}, []string{coverage.ColdAllTermsRequiresHydration}},
		{"all of one term", Plan{Kind: PlanTerms, Terms: []string{"a"}, All: true}, []string{}},
		{"phrase", Plan{Kind: PlanPhrase, Terms: []string{"a", "b"}, Phrase: []string{"a", "b"}}, []string{coverage.ColdPhraseRequiresHydration}},
		{"phrase of one token", Plan{Kind: PlanPhrase, Terms: []string{"a"}, Phrase: []string{"a"}}, []string{}},
	} {
		has := make([]bool, len(c.plan.Terms))
		for i := range has {
			has[i] = true
		}
		s := &Searcher{plan: c.plan, Cold: []ColdSource{{Rec: rec, Has: has}}}
		items, total := s.Run(10)
		assert.Equal(t, 1, total, c.name)
		require.Len(t, items, 1, c.name)
		assert.Equal(t, len(c.plan.Terms), items[0].Matched, c.name)
		assert.Equal(t, c.want, s.Reasons.Reasons(), c.name)
	}
}

// TestCoverageModes checks Coverage's idf shares against idfs computed by
// hand, for each mode.
func TestCoverageModes(t *testing.T) {
	hot, cold := rankWorld(t)
	run := func(p Plan) *Searcher {
		h, c := slices.Clone(hot), slices.Clone(cold)
		c[0].Has = make([]bool, len(p.Terms))
		if len(p.Terms) > 0 {
			c[0].Has[0] = true
		}
		s := &Searcher{plan: p, Hot: h, Cold: c}
		s.Run(10)
		return s
	}
	const n = 10.0
	ia, ib := refIDF(n, 3), refIDF(n, 2) // alpha, beta (see rankWorld)
	t.Run("terms", func(t *testing.T) {
		s := run(Plan{Kind: PlanTerms, Terms: []string{"alpha", "beta"}})
		c, ok := s.Coverage()
		require.True(t, ok)
		assert.Equal(t, 1.0, c.Entry("Beta ALPHA"))
		assert.Equal(t, round4ref(ia/(ia+ib)), c.Entry("alpha only"))
		assert.Equal(t, round4ref(ib/(ia+ib)), c.Entry("beta only"))
		assert.Zero(t, c.Entry("nothing here"))
		items, _ := s.Run(10)
		for _, it := range items {
			if !it.Entry {
				assert.Equal(t, round4ref(ia/(ia+ib)), c.Session(&it))
			}
		}
	})
	t.Run("phrase", func(t *testing.T) {
		s := run(Plan{Kind: PlanPhrase, Terms: []string{"alpha", "beta"}, Phrase: []string{"alpha", "beta"}})
		c, ok := s.Coverage()
		require.True(t, ok)
		assert.Equal(t, 1.0, c.Entry("anything"), "a verified phrase counts whole")
		assert.Zero(t, c.Session(&Item{Matched: 2}), "never verified in a cold session")
	})
	t.Run("natural", func(t *testing.T) {
		p := NaturalPlan("deploying the servers", NaturalFields{Canonical: DefaultField, Stem: Field{Weight: 0.5, B: 0.75}})
		require.Equal(t, 2, p.StemsFrom)
		s := &Searcher{plan: p, Hot: hot}
		s.Run(10)
		c, ok := s.Coverage()
		require.True(t, ok)
		// The stems are the measure: no entry holds a form of them, so
		// every idf is that of df 0 over N 4, and each counts half.
		assert.Equal(t, 1.0, c.Entry("he deployed one server"))
		assert.Equal(t, 0.5, c.Entry("servers"))
		assert.Equal(t, 0.5, c.Entry("deploy"))
		assert.Zero(t, c.Entry("deployingx"))
	})
	t.Run("no terms", func(t *testing.T) {
		s := run(Plan{Kind: PlanTerms})
		c, ok := s.Coverage()
		require.True(t, ok)
		assert.Equal(t, 1.0, c.Entry("anything"), "nothing to hold: all of it")
		assert.Equal(t, 1.0, c.Session(&Item{}))
	})
	for _, k := range []PlanKind{PlanBrowse, PlanRegex} {
		s := &Searcher{plan: Plan{Kind: k}}
		_, ok := s.Coverage()
		assert.False(t, ok, "kind %d has no measure", k)
	}
	assert.Equal(t, 1.0, round4(1.7), "a share is at most 1")
	assert.Equal(t, 0.3334, round4(1.0/3+0.00005))
}

func round4ref(f float64) float64 { return math.Floor(f*1e4+0.5) / 1e4 }

// TestTopKFieldsMatchExhaustive is TestTopKMatchesExhaustive for plans
// whose terms carry fields (natural mode's weights and b): the top-k
// bounds take each term's b, and must never pass over an entry the
// exhaustive scorer ranks on the page.
func TestTopKFieldsMatchExhaustive(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 23))
	for round := 0; round < 60; round++ {
		f := diffFilters(rng)
		w := newDiffWorld(t, rng, !f.any())
		for q := 0; q < 6; q++ {
			p := diffQuery(rng, w)
			for range p.Terms {
				p.Fields = append(p.Fields, Field{Weight: []float64{1, 0.5, 2}[rng.IntN(3)], B: []float64{0.75, 0.3, 0, 1}[rng.IntN(4)]})
			}
			need := 1 + rng.IntN(40)
			compareTopK(t, w, p, f, need, fmt.Sprintf("round %d query %d %+v need %d", round, q, p, need))
		}
	}
}
