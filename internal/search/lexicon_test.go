package search_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/internal/index"
	"github.com/memidx/memidx/internal/lineage"
	"github.com/memidx/memidx/internal/normalize"
	"github.com/memidx/memidx/internal/search"
)

// lexWorld is an archive of sessions (s0 newest) whose entries alternate
// user and assistant messages, and an index over it that keeps the
// newest hot sessions hot and has built its archive lexicon.
type lexWorld struct {
	ix      *index.Index
	dir     string
	targets []index.Target
	docs    search.DocMemo
}

// refresh brings the world's records up to date.
func (w *lexWorld) refresh(t *testing.T) *index.Report {
	t.Helper()
	rep, err := w.ix.Refresh(context.Background(), w.targets, index.RefreshOptions{Mode: lineage.Active, Searched: []string{w.dir}})
	require.NoError(t, err)
	return rep
}

// lexWords are the words sessions draw from: common first. "solo" is in
// one session only, "duo" in two.
var lexWords = []string{"deploy", "server", "error", "timeout", "cache", "retry", "deploying", "servers", "latency", "queue"}

func newLexWorld(t *testing.T, sessions, hot int) *lexWorld {
	w := &lexWorld{dir: t.TempDir()}
	cfg := index.DefaultConfig()
	cfg.IndexDir = filepath.Join(t.TempDir(), "index")
	cfg.HotSessions = hot
	w.ix = index.Open(cfg, time.Second)
	w.ix.RacyWindow = -1 // the sessions are written within one clock tick
	t.Cleanup(func() { w.ix.Close() })
	rng := rand.New(rand.NewPCG(3, uint64(sessions)))
	now := time.Now()
	for i := range sessions {
		var texts []string
		for e := 1 + rng.IntN(5); e > 0; e-- {
			var words []string
			for k := 1 + rng.IntN(4); k > 0; k-- {
				x := rng.Float64()
				words = append(words, lexWords[int(x*x*float64(len(lexWords)))])
			}
			texts = append(texts, strings.Join(words, " "))
		}
		switch i {
		case sessions / 2:
			texts = append(texts, "a solo word")
		case 1, sessions - 1:
			texts = append(texts, "the duo word")
		}
		p := filepath.Join(w.dir, fmt.Sprintf("s%02d.jsonl", i))
		require.NoError(t, os.WriteFile(p, []byte(dialogue(fmt.Sprintf("s%02d", i), i, texts)), 0o600))
		mt := now.Add(-time.Duration(i+1) * time.Minute)
		require.NoError(t, os.Chtimes(p, mt, mt))
		w.targets = append(w.targets, index.Target{Path: p})
	}
	// The first refresh writes the lexicon; the records of the next name
	// its epoch.
	w.refresh(t)
	w.refresh(t)
	return w
}

// dialogue is a session's JSONL: user and assistant messages in turn,
// entry e of session i at minute i+e.
func dialogue(id string, i int, texts []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, `{"type":"session","version":3,"id":%q,"timestamp":"2026-09-01T10:00:00.000Z","cwd":"/p"}`+"\n", id)
	parent := "null"
	for e, text := range texts {
		eid := fmt.Sprintf("%s-%d", id, e)
		ts := fmt.Sprintf("2026-09-01T1%d:%02d:00.000Z", (i+e)/60, (i+e)%60)
		var msg any = map[string]any{"role": "user", "content": text}
		if e%2 == 1 {
			msg = map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "text", "text": text}}}
		}
		line, _ := json.Marshal(map[string]any{"type": "message", "id": eid, "parentId": json.RawMessage(parent), "timestamp": ts, "message": msg})
		b.Write(line)
		b.WriteByte('\n')
		parent = fmt.Sprintf("%q", eid)
	}
	return b.String()
}

// answer is what a page shows of a search: its first need items, each
// resolved to its session, and the retained total and reasons.
type answer struct {
	Items   []string
	Total   int
	Reasons []string
}

// search runs plan with filt over the world's sources, with or without
// the archive lexicon, and reports whether the lexicon answered.
func (w *lexWorld) search(t *testing.T, plan search.Plan, filt search.Filters, need int, noLexicon bool) (answer, bool) {
	t.Helper()
	var got answer
	var answered bool
	ctx := context.Background()
	want := index.Need{Targets: w.targets, Refresh: index.RefreshOptions{Mode: lineage.Active, Searched: []string{w.dir}}}
	_, _, err := w.ix.Acquire(ctx, want, func(v *index.View) error {
		s := search.New(ctx, plan, filt, &w.docs)
		defer s.Release()
		s.NoLexicon = noLexicon
		require.Empty(t, s.Open(v), "nothing rewritten meanwhile")
		search.SortByState(v, s.Cold)
		got = answerOf(s, need)
		answered = s.LexiconAnswered
		assert.Empty(t, s.Broken)
		return nil
	})
	require.NoError(t, err)
	return got, answered
}

// answerOf runs s for need hits and names them: a hot hit by its file
// and entry, a cold one by its file and matched counts, each with its
// score; with the total and the reasons.
func answerOf(s *search.Searcher, need int) answer {
	var got answer
	items, total := s.Run(need)
	for _, it := range items[:min(need, len(items))] {
		if it.Entry {
			got.Items = append(got.Items, fmt.Sprintf("%s#%d %.6f", filepath.Base(s.Hot[it.Src].Rec.Path), it.Index, it.Score))
		} else {
			got.Items = append(got.Items, fmt.Sprintf("%s %.6f m%d s%d", filepath.Base(s.Cold[it.Src].Rec.Path), it.Score, it.Matched, it.MatchedS))
		}
	}
	got.Total, got.Reasons = total, s.Reasons.Reasons()
	return got
}

// TestLexiconMatchesDigests compares every answer through the archive
// lexicon (settled candidates, hot shards it proves cannot match, filter
// keys) with the answer of opening every digest and shard.
func TestLexiconMatchesDigests(t *testing.T) {
	w := newLexWorld(t, 40, 3)
	lit := func(q string, all bool) search.Plan { return search.LiteralPlan(q, all) }
	nat := search.NaturalPlan("deploying the servers with latency", search.NaturalFields{Canonical: search.DefaultField, Stem: search.Field{Weight: 0.5, B: 0.75}})
	var many []string
	for i := range 65 {
		many = append(many, fmt.Sprintf("w%d", i))
	}
	many[64] = "solo"
	assistant := []string{normalize.KeyRole + "assistant"}
	since := float64(time.Date(2026, 9, 1, 10, 20, 0, 0, time.UTC).UnixMilli())
	plans := []struct {
		name string
		plan search.Plan
	}{
		{"common", lit("deploy", false)},
		{"two terms", lit("deploy error", false)},
		{"all terms", lit("deploy error", true)},
		{"rare", lit("solo", false)},
		{"two sessions", lit("duo", false)},
		{"absent", lit("nowhere", false)},
		{"phrase", search.PhrasePlan("the duo word")},
		{"natural", nat},
		{"65 terms", search.Plan{Kind: search.PlanTerms, Terms: many}},
		{"browse", search.Plan{Kind: search.PlanBrowse}},
	}
	filters := []struct {
		name string
		filt search.Filters
	}{
		{"none", search.Filters{}},
		{"role", search.Filters{Keys: assistant}},
		{"since", search.Filters{Since: &since}},
	}
	answered := 0
	for _, p := range plans {
		for _, f := range filters {
			for _, need := range []int{1, 3, 50} {
				what := fmt.Sprintf("%s, filter %s, need %d", p.name, f.name, need)
				with, ok := w.search(t, p.plan, f.filt, need, false)
				without, _ := w.search(t, p.plan, f.filt, need, true)
				assert.Equal(t, without, with, what)
				if ok {
					answered++
				}
			}
		}
	}
	assert.Equal(t, len(plans)*len(filters)*3, answered, "the lexicon answered every search")
}
