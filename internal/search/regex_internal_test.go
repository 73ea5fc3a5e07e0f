package search

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/internal/coldvocab"
	"github.com/memidx/memidx/internal/coverage"
	"github.com/memidx/memidx/internal/hotbm25"
	"github.com/memidx/memidx/internal/index"
	"github.com/memidx/memidx/internal/normalize"
	"github.com/memidx/memidx/internal/regexiso"
)

// digestEntry is one entry of a cold digest built for a test.
type digestEntry struct {
	text, role string
	ts         float64 // < 0: none
}

// coldDigest builds a digest of ents in memory and opens it: the source
// of a cold record at path, of mtime.
func coldDigest(t *testing.T, path string, mtime int64, ents ...digestEntry) ColdSource {
	t.Helper()
	norm := make([]normalize.Entry, len(ents))
	for i, de := range ents {
		e := normalize.Entry{Index: i, Type: "message", Text: de.text}
		if de.role != "" {
			e.Role = &de.role
		}
		if de.ts >= 0 {
			ts := de.ts
			e.Timestamp = &ts
		}
		norm[i] = e
	}
	blob, _, err := coldvocab.Build(coldvocab.Digest{}, norm, coverage.Set{}, coldvocab.Limits{MaxVocabularyBytes: 1 << 20, MaxCacheBytes: 1 << 20})
	require.NoError(t, err)
	v, err := coldvocab.Open(blob)
	require.NoError(t, err)
	rec := &index.Record{Path: path, EntryCount: int32(len(ents)), Tier: index.Cold}
	rec.Identity.MtimeNs = mtime
	return ColdSource{Rec: rec, View: v}
}

// regexWorld is a hot shard (mtime 5) and three cold digests (mtimes 3,
// 2, 1):
//
//	hot 0 "deploy to prod"   user
//	hot 1 "deploy prod"      user, the head of a longer text
//	hot 2 "nothing"          assistant
//	hot 3 "prod deploy"      bash call
//	/c1  deploy prod staging
//	/c2  nothing here
//	/c3  deployment production
func regexWorld(t *testing.T) ([]HotSource, []ColdSource) {
	ents := []normalize.Entry{
		{Index: 0, Type: "message", Text: "deploy to prod"},
		{Index: 1, Type: "message", Text: "deploy prod", Truncated: true},
		{Index: 2, Type: "message", Text: "nothing"},
		{Index: 3, Type: "message", Text: "prod deploy"},
	}
	user, asst, bash := "user", "assistant", "bash"
	ents[0].Role, ents[1].Role, ents[2].Role, ents[3].Role, ents[3].Tool = &user, &user, &asst, &asst, &bash
	hot := builtSource(t, "/hot.jsonl", ents)
	hot.Rec.Identity.MtimeNs = 5
	return []HotSource{hot}, []ColdSource{
		coldDigest(t, "/c1", 3, digestEntry{"deploy prod staging", "user", 1}),
		coldDigest(t, "/c2", 2, digestEntry{"nothing here", "user", 1}),
		coldDigest(t, "/c3", 1, digestEntry{"deployment production", "user", 1}),
	}
}

// found lists a run's items as "h<entry>" or the cold path, with scores.
func found(s *Searcher, items []Item) []string {
	var out []string
	for _, it := range items {
		if it.Entry {
			out = append(out, fmt.Sprintf("h%d:%g", it.Index, it.Score))
		} else {
			out = append(out, fmt.Sprintf("%s:%g/%d", s.Cold[it.Src].Rec.Path, it.Score, it.Matched))
		}
	}
	return out
}

// TestRegexHotAndCold: hot entries match their text and score their
// weight; cold sessions match term by term when the pattern is
// token-local, and are left possible (0.5) by a spanning pattern whose
// needs their vocabulary holds.
func TestRegexHotAndCold(t *testing.T) {
	hydrate := []string{coverage.ColdRegexRequiresHydration}
	for _, c := range []struct {
		pattern string
		want    []string
		reasons []string
	}{
		// Token-local; the cut entry's "prod" is not at the text's end.
		{`prod$`, []string{"h0:2.25", "/c1:1/1"}, []string{}},
		{`prod`, []string{"h0:2.25", "h1:2.25", "/c1:1/1", "/c3:1/1", "h3:0.7"}, []string{}},
		{`(?i)DEPLOY\w+`, []string{"/c3:1/1"}, []string{}},
		// Spanning: no term matches, the vocabulary leaves /c1 and /c3.
		{`deploy\s+prod`, []string{"h1:2.25", "/c1:0.5/0", "/c3:0.5/0"}, hydrate},
		// An alternation needs no literal: every session is possible,
		// after those with a matching term.
		{`prod|to deploy`, []string{"h0:2.25", "h1:2.25", "/c1:1/1", "/c3:1/1", "h3:0.7", "/c2:0.5/0"}, hydrate},
		{`staging \w+`, []string{"/c1:0.5/0"}, hydrate},
		{`zzz`, nil, []string{}},
	} {
		hot, cold := regexWorld(t)
		re := regexiso.MustCompile(c.pattern, regexiso.Limits{})
		s := New(context.Background(), Plan{Kind: PlanRegex, Regex: re}, Filters{}, nil)
		s.Hot, s.Cold = hot, cold
		items, total := s.Run(10)
		assert.Equal(t, c.want, found(s, items), c.pattern)
		assert.Equal(t, len(c.want), total, c.pattern)
		assert.Equal(t, c.reasons, s.Reasons.Reasons(), c.pattern)
		assert.Nil(t, s.QueryErr, c.pattern)
		s.Release()
	}
}

// TestRegexLimits: a haystack limit stops the run with its reason, and a
// cancelled call stops it with an error.
func TestRegexLimits(t *testing.T) {
	hot, cold := regexWorld(t)
	re := regexiso.MustCompile(`prod`, regexiso.Limits{MaxHaystackItems: 2})
	s := New(context.Background(), Plan{Kind: PlanRegex, Regex: re}, Filters{}, nil)
	s.Hot, s.Cold = hot, cold
	items, _ := s.Run(10)
	// The two first hot entries are all the run searches.
	assert.Equal(t, []string{"h0:2.25", "h1:2.25"}, found(s, items))
	assert.Equal(t, []string{coverage.RegexMaxHaystackTerms}, s.Reasons.Reasons())

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	s = New(ctx, Plan{Kind: PlanRegex, Regex: regexiso.MustCompile(`prod`, regexiso.Limits{})}, Filters{}, nil)
	s.Hot, s.Cold = hot, cold
	items, total := s.Run(10)
	assert.Empty(t, items)
	assert.Zero(t, total)
	require.NotNil(t, s.QueryErr)
	assert.Contains(t, s.Reasons.Reasons(), s.QueryErr.Code)

	// A run stopped amid a cold vocabulary keeps the session it matched in.
	re = regexiso.MustCompile(`prod|staging`, regexiso.Limits{MaxHaystackItems: 3})
	s = New(context.Background(), Plan{Kind: PlanRegex, Regex: re}, Filters{}, nil)
	s.Cold = cold[:1]
	items, _ = s.Run(10)
	assert.Equal(t, []string{"/c1:1/2"}, found(s, items), "deploy, prod, staging: all three searched")
	s = New(context.Background(), Plan{Kind: PlanRegex, Regex: regexiso.MustCompile(`prod|staging`, regexiso.Limits{MaxHaystackItems: 2})}, Filters{}, nil)
	s.Cold = cold[:1]
	items, _ = s.Run(10)
	assert.Equal(t, []string{"/c1:1/1"}, found(s, items), "stopped before staging")
	assert.Equal(t, []string{coverage.RegexMaxHaystackTerms}, s.Reasons.Reasons())
}

// TestRegexFilters: a filter restricts the hot entries searched and the
// cold sessions counted; an operational one weighs every entry 1.
func TestRegexFilters(t *testing.T) {
	hot, cold := regexWorld(t)
	s := New(context.Background(), Plan{Kind: PlanRegex, Regex: regexiso.MustCompile(`prod`, regexiso.Limits{})},
		Filters{Keys: []string{normalize.KeyTool + "bash"}, Operational: true}, nil)
	s.Hot, s.Cold = hot, cold
	items, _ := s.Run(10)
	// No cold entry carries the tool: none is a candidate.
	assert.Equal(t, []string{"h3:1"}, found(s, items))
}

func TestRegexAnchor(t *testing.T) {
	s := New(context.Background(), Plan{Kind: PlanRegex, Regex: regexiso.MustCompile(`pro+d`, regexiso.Limits{})}, Filters{}, nil)
	defer s.Release()
	assert.Equal(t, 10, s.RegexAnchor("deploy to prod"))
	assert.Equal(t, 0, s.RegexAnchor("nothing"), "no match: the head")
	assert.Equal(t, 0, New(context.Background(), Plan{Kind: PlanTerms}, Filters{}, nil).RegexAnchor("prod"), "not a regex")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	late := New(ctx, Plan{Kind: PlanRegex, Regex: regexiso.MustCompile(`prod`, regexiso.Limits{})}, Filters{}, nil)
	defer late.Release()
	assert.Equal(t, 0, late.RegexAnchor("deploy to prod"), "past the budget: the head")
}

// TestColdStructuralFilters counts the digest entries that pass key and
// time filters (inclusive bounds; an entry without a timestamp never
// passes one), and drops the sessions where none does.
func TestColdStructuralFilters(t *testing.T) {
	mk := func() []ColdSource {
		return []ColdSource{
			coldDigest(t, "/a", 3,
				digestEntry{"deploy prod", "user", 10},
				digestEntry{"deploy staging", "assistant", 20},
				digestEntry{"deploy again", "user", 30},
				digestEntry{"deploy undated", "user", -1}),
			coldDigest(t, "/b", 2, digestEntry{"deploy", "assistant", 40}),
			coldDigest(t, "/c", 1, digestEntry{"other words", "user", 20}),
		}
	}
	f := func(v float64) *float64 { return &v }
	user := []string{normalize.KeyRole + "user"}
	hydrate := coverage.ColdStructuralFilterRequiresHydration
	for _, c := range []struct {
		name    string
		plan    Plan
		filt    Filters
		want    []string // path:score/matched entries
		reasons []string
	}{
		{"role", Plan{Kind: PlanTerms, Terms: []string{"deploy"}}, Filters{Keys: user}, []string{"/a:3"}, []string{hydrate}},
		{"since", Plan{Kind: PlanTerms, Terms: []string{"deploy"}}, Filters{Since: f(20)}, []string{"/a:2", "/b:1"}, []string{hydrate}},
		{"until", Plan{Kind: PlanTerms, Terms: []string{"deploy"}}, Filters{Until: f(20)}, []string{"/a:2"}, []string{hydrate}},
		{"window and role", Plan{Kind: PlanTerms, Terms: []string{"deploy"}}, Filters{Keys: user, Since: f(10), Until: f(29)}, []string{"/a:1"}, []string{hydrate}},
		{"browse a role", Plan{Kind: PlanBrowse}, Filters{Keys: user}, []string{"/a:3", "/c:1"}, []string{}},
		{"nothing passes", Plan{Kind: PlanTerms, Terms: []string{"deploy"}}, Filters{Since: f(50)}, nil, []string{}},
	} {
		s := &Searcher{ctx: context.Background(), plan: c.plan, filt: c.filt, Cold: mk()}
		items, total := s.Run(10)
		var got []string
		for _, it := range items {
			got = append(got, fmt.Sprintf("%s:%d", s.Cold[it.Src].Rec.Path, it.MatchedS))
			if c.plan.Kind == PlanBrowse {
				assert.Equal(t, 1.0, it.Score, c.name)
			}
		}
		assert.Equal(t, c.want, got, c.name)
		assert.Equal(t, len(c.want), total, c.name)
		assert.Equal(t, c.reasons, s.Reasons.Reasons(), c.name)
	}
}

// damagedShard builds a shard whose last entry's stored bytes fail their
// checksum; the rest reads.
func damagedShard(t *testing.T) HotSource {
	t.Helper()
	ents := []normalize.Entry{
		{Index: 0, Type: "message", Text: "alpha beta"},
		{Index: 1, Type: "message", Text: "alpha beta " + strings.Repeat("filler ", 200)},
	}
	built, err := hotbm25.Build(ents)
	require.NoError(t, err)
	built.Ents[len(built.Ents)-1] ^= 0xff
	probe, err := built.Open()
	require.NoError(t, err)
	_, err = probe.Entry(0)
	require.NoError(t, err)
	_, err = probe.Entry(1)
	require.Error(t, err)
	sh, err := built.Open() // a fresh guard: nothing read yet
	require.NoError(t, err)
	rec := &index.Record{Path: "/damaged.jsonl", SumLen: built.SumLen, EntryCount: int32(len(ents)), Tier: index.Hot}
	return HotSource{Rec: rec, Shard: sh, Tier: index.Hot, First: -1, Last: -1}
}

// TestDamagedShard: an entry that does not read marks its source broken
// (index_error) in phrase verification, in a regex run and after the
// page (CheckSources); the entries that read still answer.
func TestDamagedShard(t *testing.T) {
	for _, plan := range []Plan{
		{Kind: PlanPhrase, Terms: []string{"alpha", "beta"}, Phrase: []string{"alpha", "beta"}},
		{Kind: PlanRegex, Regex: regexiso.MustCompile(`alpha beta`, regexiso.Limits{})},
	} {
		src := damagedShard(t)
		s := New(context.Background(), plan, Filters{}, nil)
		s.Hot = []HotSource{src}
		items, total := s.Run(10)
		assert.Equal(t, 1, total, "kind %d", plan.Kind)
		require.Len(t, items, 1)
		assert.Equal(t, 0, items[0].Index)
		assert.Equal(t, []*index.Record{src.Rec}, s.Broken, "kind %d", plan.Kind)
		assert.Equal(t, []string{coverage.IndexError}, s.Reasons.Reasons())
		s.CheckSources()
		assert.Len(t, s.Broken, 2, "the read met the damage")
	}
	// A search that reads no damaged block breaks nothing.
	src := damagedShard(t)
	s := &Searcher{plan: Plan{Kind: PlanTerms, Terms: []string{"alpha"}}, Hot: []HotSource{src}}
	_, total := s.Run(10)
	assert.Equal(t, 2, total)
	s.CheckSources()
	assert.Empty(t, s.Broken)
}

// TestAdd takes a session read into memory as a hot or a cold source,
// with the tier its answer reports.
func TestAdd(t *testing.T) {
	hot, cold := regexWorld(t)
	s := &Searcher{}
	s.add(index.Loaded{Record: hot[0].Rec, Tier: index.Cold, IsHot: true, Shard: hot[0].Shard})
	s.add(index.Loaded{Record: cold[0].Rec, Tier: index.Cold, Digest: cold[0].View})
	require.Len(t, s.Hot, 1)
	require.Len(t, s.Cold, 1)
	assert.Equal(t, HotSource{Rec: hot[0].Rec, Shard: hot[0].Shard, Tier: index.Cold, First: -1, Last: -1}, s.Hot[0])
	assert.Same(t, cold[0].Rec, s.Cold[0].Rec)
}
