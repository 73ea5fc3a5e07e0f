package search_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/internal/index"
	"github.com/memidx/memidx/internal/lineage"
	"github.com/memidx/memidx/internal/regexiso"
	"github.com/memidx/memidx/internal/search"
	"github.com/memidx/memidx/internal/sessiontext"
)

// recallWorld is three sessions (s0 newest, hot; the rest cold) and an
// index over them.
type recallWorld struct {
	ix    *index.Index
	dir   string
	paths []string
}

func newRecallWorld(t *testing.T) *recallWorld {
	w := &recallWorld{dir: t.TempDir()}
	cfg := index.DefaultConfig()
	cfg.IndexDir = filepath.Join(t.TempDir(), "index")
	cfg.HotSessions = 1
	w.ix = index.Open(cfg, time.Second)
	t.Cleanup(func() { w.ix.Close() })
	now := time.Now()
	texts := [][]string{
		{"intro words here", "the walrus swims far", "after one", "after two"},
		{"a walrus in the cold", "nothing else"},
		{"quiet session"},
	}
	for i, words := range texts {
		p := filepath.Join(w.dir, fmt.Sprintf("s%d.jsonl", i))
		require.NoError(t, os.WriteFile(p, []byte(sessiontext.Linear(fmt.Sprintf("s%d", i), words...)), 0o600))
		mt := now.Add(-time.Duration(i+1) * time.Minute)
		require.NoError(t, os.Chtimes(p, mt, mt))
		w.paths = append(w.paths, p)
	}
	return w
}

// need is a Need over the given sessions (all of them by default).
func (w *recallWorld) need(paths ...string) index.Need {
	if paths == nil {
		paths = w.paths
	}
	var targets []index.Target
	for _, p := range paths {
		targets = append(targets, index.Target{Path: p})
	}
	return index.Need{Targets: targets, Refresh: index.RefreshOptions{Mode: lineage.Active, Searched: []string{w.dir}},
		HotSessions: 1, MaxSyncSourceBytes: 1 << 30}
}

func (w *recallWorld) recall(t *testing.T, need index.Need, q search.Query) *search.Page {
	t.Helper()
	p, reasons, err := search.Recall(context.Background(), w.ix, need, q)
	require.NoError(t, err)
	assert.Empty(t, reasons)
	require.NotNil(t, p)
	return p
}

// Recall ranks over the view and reads the page's hits: the hot entry
// with its stored text, the anchor of the matched term and the entries
// after it; the cold session with its matched terms.
func TestRecallReadsThePage(t *testing.T) {
	w := newRecallWorld(t)
	p := w.recall(t, w.need(), search.Query{Plan: search.LiteralPlan("walrus", false), PageSize: 10, Context: 1})
	require.Equal(t, 2, p.Total)
	require.Len(t, p.Hits, 2)
	assert.True(t, p.Measured)
	assert.Nil(t, p.One, "three sessions")
	assert.Equal(t, 3, p.Coverage.EligibleSessions)

	entry, cold := p.Hits[0], p.Hits[1]
	if !entry.Entry {
		entry, cold = cold, entry
	}
	require.True(t, entry.Entry)
	assert.Equal(t, w.paths[0], entry.Rec.Path)
	assert.Equal(t, index.Hot, entry.Tier)
	assert.Equal(t, 1, entry.Index)
	assert.Contains(t, entry.Stored.Text, "the walrus swims far")
	assert.Equal(t, strings.Index(entry.Stored.Text, "walrus"), entry.Anchor)
	require.Len(t, entry.Context, 1)
	assert.Equal(t, 2, entry.Context[0].Index)
	assert.Contains(t, entry.Context[0].Stored.Text, "after one")
	require.NotNil(t, entry.QueryCoverage)
	assert.Equal(t, 1.0, *entry.QueryCoverage)

	assert.False(t, cold.Entry)
	assert.Equal(t, w.paths[1], cold.Rec.Path)
	assert.Equal(t, index.Cold, cold.Tier)
	assert.Equal(t, 1, cold.Matched)
	require.NotNil(t, cold.QueryCoverage)
}

// The page window: an offset past the ranked total reads no hit; a
// window reads only its own items.
func TestRecallPageWindow(t *testing.T) {
	w := newRecallWorld(t)
	for _, tc := range []struct {
		name             string
		offset, pageSize int
		hits             int
	}{
		{"first of two", 0, 1, 1},
		{"second of two", 1, 5, 1},
		{"at the end", 2, 5, 0},
		{"past the end", 3, 5, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := w.recall(t, w.need(), search.Query{Plan: search.LiteralPlan("walrus", false), Offset: tc.offset, PageSize: tc.pageSize})
			assert.Equal(t, 2, p.Total)
			assert.Len(t, p.Hits, tc.hits)
		})
	}
}

// A single session: ranked only when its record is the one the query
// expects, with the entries of its range; a session whose source is gone
// says why.
func TestRecallSingleSession(t *testing.T) {
	w := newRecallWorld(t)
	one := w.need(w.paths[0])
	p := w.recall(t, one, search.Query{Plan: search.LiteralPlan("walrus", false), PageSize: 10, Single: true})
	require.NotNil(t, p.One)
	require.False(t, p.Stopped)
	require.Len(t, p.Hits, 1)
	rec := p.One

	for _, tc := range []struct {
		name    string
		expect  search.Expect
		rng     *search.Range
		stopped bool
	}{
		{"bindings hold", search.Expect{SourceHash: rec.SourceHash.String(), LineageFingerprint: rec.LineageFingerprint().String()}, nil, false},
		{"source changed", search.Expect{SourceHash: "other"}, nil, true},
		{"source one digit off", search.Expect{SourceHash: offByOne(rec.SourceHash.String())}, nil, true},
		{"source in capitals", search.Expect{SourceHash: strings.ToUpper(rec.SourceHash.String())}, nil, true},
		{"lineage one digit off", search.Expect{LineageFingerprint: offByOne(rec.LineageFingerprint().String())}, nil, true},
		{"lineage changed", search.Expect{LineageFingerprint: "other"}, nil, true},
		{"range within", search.Expect{}, &search.Range{First: 0, Last: int(rec.EntryCount) - 1}, false},
		{"range past the end", search.Expect{}, &search.Range{First: 0, Last: int(rec.EntryCount)}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := w.recall(t, one, search.Query{Plan: search.LiteralPlan("walrus", false), PageSize: 10, Single: true, Expect: tc.expect, Range: tc.rng})
			assert.Equal(t, tc.stopped, p.Stopped)
			require.NotNil(t, p.One)
			assert.Equal(t, rec.SourceHash, p.One.SourceHash)
			if tc.stopped {
				assert.Empty(t, p.Hits, "nothing ranked")
			} else {
				assert.Len(t, p.Hits, 1)
			}
		})
	}

	// A range narrows the entries searched.
	p = w.recall(t, one, search.Query{Plan: search.LiteralPlan("walrus", false), PageSize: 10, Single: true, Range: &search.Range{First: 2, Last: 3}})
	assert.Empty(t, p.Hits)

	require.NoError(t, os.Remove(w.paths[2]))
	p, _, err := search.Recall(context.Background(), w.ix, w.need(w.paths[2]), search.Query{Plan: search.LiteralPlan("quiet", false), PageSize: 10, Single: true})
	require.NoError(t, err)
	assert.ErrorIs(t, p.SingleErr, index.ErrSourceUnavailable)
	assert.Empty(t, p.Hits)
}

// An unsearched query (a pattern that did not compile) reads the records
// only: the coverage, and no hits.
func TestRecallUnsearched(t *testing.T) {
	w := newRecallWorld(t)
	need := w.need()
	need.BeforeRead = func() { t.Error("the index was read for an unsearched query") }
	p := w.recall(t, need, search.Query{Plan: search.Plan{Kind: search.PlanRegex}, PageSize: 10, Unsearched: true})
	assert.Empty(t, p.Hits)
	assert.Equal(t, 3, p.Coverage.IndexedSessions)
}

// A regex hit's snippet is anchored on its match.
func TestRecallRegexAnchor(t *testing.T) {
	w := newRecallWorld(t)
	m, cerr := regexiso.Compile("swi[m]s", regexiso.DefaultLimits())
	require.Nil(t, cerr)
	p := w.recall(t, w.need(w.paths[0]), search.Query{Plan: search.Plan{Kind: search.PlanRegex, Regex: m}, PageSize: 10})
	require.Len(t, p.Hits, 1)
	h := p.Hits[0]
	assert.Equal(t, strings.Index(h.Stored.Text, "swims"), h.Anchor)
	assert.False(t, p.Measured)
	assert.Nil(t, h.QueryCoverage)
}

// offByOne is the hex string h with its last digit changed.
func offByOne(h string) string {
	last := byte('0')
	if h[len(h)-1] == '0' {
		last = '1'
	}
	return h[:len(h)-1] + string(last)
}
