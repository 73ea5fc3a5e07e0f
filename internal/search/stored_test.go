package search_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"github.com/memidx/memidx/internal/index"
	"github.com/memidx/memidx/internal/lineage"
	"github.com/memidx/memidx/internal/regexiso"
	"github.com/memidx/memidx/internal/search"
)

// inMemory answers plan over the world's sessions without the index: an
// index that cannot be read has every session read into memory, whole
// digests with their vocabularies.
func (w *lexWorld) inMemory(t *testing.T, plan search.Plan, need int) answer {
	t.Helper()
	// An index file another process holds open for writing cannot take
	// what the refresh builds: the sessions are answered from memory.
	cfg := index.DefaultConfig()
	cfg.IndexDir = t.TempDir()
	cfg.HotSessions = 3
	held, err := bolt.Open(filepath.Join(cfg.IndexDir, "index.db"), 0o600, nil)
	require.NoError(t, err)
	defer held.Close()
	ix := index.Open(cfg, 10*time.Millisecond)
	ix.RacyWindow = -1
	defer ix.Close()
	var got answer
	ctx := context.Background()
	want := index.Need{Targets: w.targets, Refresh: index.RefreshOptions{Mode: lineage.Active, Searched: []string{w.dir}},
		Fallback: true, HotSessions: 3, MaxSyncSourceBytes: 1 << 30}
	_, _, err = ix.Acquire(ctx, want, func(v *index.View) error {
		for i := range v.Len() {
			require.NotNil(t, v.State(i).Built(), "session %d from memory", i)
		}
		s := search.New(ctx, plan, search.Filters{}, nil)
		defer s.Release()
		s.Open(v)
		search.SortByState(v, s.Cold)
		got = answerOf(s, need)
		got.Reasons = nil // compared by hits and total only
		return nil
	})
	require.NoError(t, err)
	return got
}

// A stored digest keeps no vocabulary: the lexicon answers for its terms,
// with or without settling candidates (NoLexicon), and a regex reads its
// terms from the lexicon. Every answer equals the one of the whole
// digests read into memory.
func TestStoredDigestsAnswerAsWholeOnes(t *testing.T) {
	w := newLexWorld(t, 40, 3)
	regex := func(p string, lim regexiso.Limits) search.Plan {
		plan, cerr := search.PlanOf(p, search.Planning{Mode: "regex", Regex: lim})
		require.Nil(t, cerr)
		return plan
	}
	small := regexiso.DefaultLimits()
	small.MaxHaystackItems = 30 // stops within the first sessions' terms
	plans := []struct {
		name string
		plan search.Plan
	}{
		{"rare term", search.LiteralPlan("solo", false)},
		{"two terms", search.LiteralPlan("duo deploy", false)},
		{"all terms", search.LiteralPlan("duo word", true)},
		{"absent", search.LiteralPlan("nowhere", false)},
		{"regex", regex(`^(solo|duo)$`, regexiso.DefaultLimits())},
		{"regex prefix", regex(`deploy\w*`, regexiso.DefaultLimits())},
		{"regex across tokens", regex(`duo word`, regexiso.DefaultLimits())},
		{"regex, budget cut", regex(`e`, small)},
	}
	for _, p := range plans {
		t.Run(p.name, func(t *testing.T) {
			want := w.inMemory(t, p.plan, 50)
			for _, noLex := range []bool{false, true} {
				got, _ := w.search(t, p.plan, search.Filters{}, 50, noLex)
				assert.Equal(t, want.Items, got.Items, "noLexicon %v", noLex)
				assert.Equal(t, want.Total, got.Total, "noLexicon %v", noLex)
			}
		})
	}
}

// A regex reads the terms of stored digests in passes that hold at most
// maxBatchTerms terms (past a pass's first session), whatever the number
// of sessions the pass may take, and answers as with one pass.
func TestRegexTermPassesAreBounded(t *testing.T) {
	w := newLexWorld(t, 40, 3)
	plan, cerr := search.PlanOf(`(deploy|timeout|solo)\w*`, search.Planning{Mode: "regex", Regex: regexiso.DefaultLimits()})
	require.Nil(t, cerr)
	want, _ := w.search(t, plan, search.Filters{}, 50, false)
	for _, bound := range []int{1, 8, 30} {
		restore := search.SetMaxBatchTerms(bound)
		var most, largest int
		ctx := context.Background()
		need := index.Need{Targets: w.targets, Refresh: index.RefreshOptions{Mode: lineage.Active, Searched: []string{w.dir}}}
		_, _, err := w.ix.Acquire(ctx, need, func(v *index.View) error {
			s := search.New(ctx, plan, search.Filters{}, &w.docs)
			defer s.Release()
			s.Open(v)
			search.SortByState(v, s.Cold)
			s.Run(50)
			most = s.MostTermsHeld()
			rd := v.Reader()
			lex, err := rd.Lexicon()
			require.NoError(t, err)
			for _, c := range s.Cold {
				largest = max(largest, lex.KeyCounts([]uint32{c.Rec.Doc})[c.Rec.Doc])
			}
			return nil
		})
		restore()
		require.NoError(t, err)
		assert.LessOrEqual(t, most, max(bound, largest), "bound %d", bound)
		assert.Positive(t, most)
		got, _ := w.search(t, plan, search.Filters{}, 50, false)
		assert.Equal(t, want, got, "bound %d", bound)
	}
}
