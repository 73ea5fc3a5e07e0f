package search

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/memidx/memidx/internal/hotbm25"
	"github.com/memidx/memidx/internal/index"
	"github.com/memidx/memidx/internal/normalize"
)

// hotCorpus builds n entries spread over shards in memory: Zipf-like words
// from a 50,000-word vocabulary, 20 to 120 words an entry.
func hotCorpus(b *testing.B, shards, n int) []HotSource {
	rng := rand.New(rand.NewPCG(1, 2))
	zipf := rand.NewZipf(rng, 1.1, 1, 50000)
	role := []string{"user", "assistant", "toolResult"}
	var out []HotSource
	per := n / shards
	for s := 0; s < shards; s++ {
		ents := make([]normalize.Entry, per)
		for i := range ents {
			var sb strings.Builder
			for w := 20 + rng.IntN(100); w > 0; w-- {
				fmt.Fprintf(&sb, "w%d ", zipf.Uint64())
			}
			r := role[rng.IntN(3)]
			ents[i] = normalize.Entry{Index: i, Type: "message", Role: &r, Text: sb.String()}
		}
		out = append(out, builtSource(b, fmt.Sprintf("/s%d.jsonl", s), ents))
	}
	return out
}

// builtSource builds ents into a hot shard in memory: the source of a hot
// record at path.
func builtSource(tb testing.TB, path string, ents []normalize.Entry) HotSource {
	tb.Helper()
	built, err := hotbm25.Build(ents)
	if err != nil {
		tb.Fatal(err)
	}
	sh, err := built.Open()
	if err != nil {
		tb.Fatal(err)
	}
	rec := &index.Record{Path: path, SumLen: built.SumLen, EntryCount: int32(len(ents)), Tier: index.Hot}
	return HotSource{Rec: rec, Shard: sh, Tier: index.Hot, First: -1, Last: -1}
}

// BenchmarkHotBM25 ranks 150,000 hot entries in 50 shards for two-term
// queries (a mid-frequency and a rare term): the scoring, filtering and
// ranking of one recall, without refresh or I/O. It reports p50 and p99.
func BenchmarkHotBM25(b *testing.B) {
	hot := hotCorpus(b, 50, 150000)
	queries := [][]string{{"w50", "w4000"}, {"w7", "w20000"}, {"w300", "w900"}, {"w2", "w3"}}
	b.ResetTimer()
	runHot(b, hot, queries)
}

// runHot runs b.N recalls of a page of 10, cycling queries over hot, and
// reports their p50 and p99.
func runHot(b *testing.B, hot []HotSource, queries [][]string) {
	var times []time.Duration
	for i := 0; i < b.N; i++ {
		q := queries[i%len(queries)]
		s := &Searcher{ctx: context.Background(), plan: Plan{Kind: PlanTerms, Terms: q}, Hot: hot}
		start := time.Now()
		items, _ := s.Run(10)
		times = append(times, time.Since(start))
		if len(items) == 0 {
			b.Fatal("no hits")
		}
	}
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(times[(len(times)*99)/100].Microseconds())/1000, "p99-ms")
}

// BenchmarkHotBM25Query times each of BenchmarkHotBM25's queries on its
// own, to tell which one makes the tail, and broad queries of one and
// three terms, which the column scan takes apart from two.
func BenchmarkHotBM25Query(b *testing.B) {
	hot := hotCorpus(b, 50, 150000)
	for _, q := range [][]string{{"w50", "w4000"}, {"w7", "w20000"}, {"w300", "w900"}, {"w2", "w3"}, {"w2"}, {"w2", "w3", "w4"}} {
		b.Run(strings.Join(q, "+"), func(b *testing.B) { runHot(b, hot, [][]string{q}) })
	}
}
