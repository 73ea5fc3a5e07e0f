package search_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memidx/memidx/internal/sessiontext"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/internal/coverage"
	"github.com/memidx/memidx/internal/index"
	"github.com/memidx/memidx/internal/indexfile"
	"github.com/memidx/memidx/internal/lineage"
	"github.com/memidx/memidx/internal/search"
)

// acquireFixture is n sessions (s0 newest) and an index over them that
// keeps one session hot.
type acquireFixture struct {
	t     *testing.T
	dir   string
	paths []string
	ix    *index.Index
}

func newAcquireFixture(t *testing.T, n int) *acquireFixture {
	f := &acquireFixture{t: t, dir: t.TempDir()}
	cfg := index.DefaultConfig()
	cfg.IndexDir = filepath.Join(t.TempDir(), "index")
	cfg.HotSessions = 1
	f.ix = index.Open(cfg, time.Second)
	f.ix.RacyWindow = -1 // the tests rewrite files within one clock tick
	t.Cleanup(func() { f.ix.Close() })
	now := time.Now()
	for i := range n {
		p := filepath.Join(f.dir, fmt.Sprintf("s%d.jsonl", i))
		f.write(p, fmt.Sprintf("word%d shared", i))
		mt := now.Add(-time.Duration(i+1) * time.Minute)
		require.NoError(t, os.Chtimes(p, mt, mt))
		f.paths = append(f.paths, p)
	}
	return f
}

func (f *acquireFixture) write(path string, words ...string) {
	id := strings.TrimSuffix(filepath.Base(path), ".jsonl")
	require.NoError(f.t, os.WriteFile(path, []byte(sessiontext.Linear(id, words...)), 0o600))
}

// need is a Need over the given sessions (all of them by default).
func (f *acquireFixture) need(paths ...string) search.Need {
	if paths == nil {
		paths = f.paths
	}
	var targets []index.Target
	for _, p := range paths {
		targets = append(targets, index.Target{Path: p})
	}
	return search.Need{
		Mode:    lineage.Active,
		Targets: targets,
		Refresh: func(ctx context.Context, _ bool) (*index.Report, error) {
			return f.ix.Refresh(ctx, targets, index.RefreshOptions{Mode: lineage.Active, Searched: []string{f.dir}})
		},
		HotSessions:        1,
		MaxSyncSourceBytes: 1 << 30,
	}
}

// find runs a term search over a's sources and returns the paths of the
// sessions it found the term in, with the sources' tiers.
func find(t *testing.T, a *search.Acquired, term string) (paths []string, hot, cold int) {
	t.Helper()
	s := search.New(context.Background(), search.Plan{Kind: search.PlanTerms, Terms: []string{term}}, search.Filters{}, nil)
	defer s.Release()
	a.Open(s)
	items, _ := s.Run(10)
	for _, it := range items {
		if it.Entry {
			paths = append(paths, s.Hot[it.Src].Rec.Path)
		} else {
			paths = append(paths, s.Cold[it.Src].Rec.Path)
		}
	}
	return paths, len(s.Hot), len(s.Cold)
}

func TestAcquireSearchesTheIndex(t *testing.T) {
	f := newAcquireFixture(t, 3)
	var got []string
	var hot, cold int
	_, reasons, err := search.Acquire(context.Background(), f.ix, f.need(), func(a *search.Acquired) ([]*index.Record, error) {
		require.Len(t, a.Report.States, 3)
		got, hot, cold = find(t, a, "word2")
		return nil, nil
	})
	require.NoError(t, err)
	assert.Empty(t, reasons)
	assert.Equal(t, []string{f.paths[2]}, got)
	assert.Equal(t, 1, hot, "one hot session")
	assert.Equal(t, 2, cold)
}

// A single cold session is read from its source and searched entry by
// entry; the index is not read.
func TestAcquireReadsASingleColdSession(t *testing.T) {
	f := newAcquireFixture(t, 3)
	_, _, err := search.Acquire(context.Background(), f.ix, f.need(), func(*search.Acquired) ([]*index.Record, error) { return nil, nil })
	require.NoError(t, err)

	need := f.need(f.paths[2])
	need.Single = true
	need.BeforeRead = func() { t.Error("the index was read for a session in memory") }
	var hot []search.HotSource
	_, _, err = search.Acquire(context.Background(), f.ix, need, func(a *search.Acquired) ([]*index.Record, error) {
		require.NoError(t, a.SingleErr)
		s := search.New(context.Background(), search.Plan{Kind: search.PlanBrowse}, search.Filters{}, nil)
		a.Open(s)
		hot = s.Hot
		return nil, nil
	})
	require.NoError(t, err)
	require.Len(t, hot, 1)
	assert.Equal(t, index.Cold, hot[0].Tier, "reported as the index tiers it")
	assert.Equal(t, f.paths[2], hot[0].Rec.Path)

	require.NoError(t, os.Remove(f.paths[2]))
	_, _, err = search.Acquire(context.Background(), f.ix, need, func(a *search.Acquired) ([]*index.Record, error) {
		assert.ErrorIs(t, a.SingleErr, index.ErrSourceUnavailable)
		return nil, nil
	})
	require.NoError(t, err)
}

// A session rewritten between the refresh and the read is read again
// from its source, and answers with what it holds now.
func TestAcquireReadsARewrittenSessionAgain(t *testing.T) {
	f := newAcquireFixture(t, 2)
	need := f.need()
	need.BeforeRead = func() {
		need.BeforeRead = nil
		// Another process rebuilds s0 (hot) with new words.
		f.write(f.paths[0], "fresh words")
		_, err := f.ix.Refresh(context.Background(), need.Targets, index.RefreshOptions{Mode: lineage.Active, Searched: []string{f.dir}})
		require.NoError(t, err)
	}
	first := true
	var got []string
	_, _, err := search.Acquire(context.Background(), f.ix, need, func(a *search.Acquired) ([]*index.Record, error) {
		if first {
			first = false
			got, _, _ = find(t, a, "fresh")
		}
		return nil, nil
	})
	require.NoError(t, err)
	assert.Equal(t, []string{f.paths[0]}, got)
}

// Tier data that use found damaged is dropped and use asked again, once
// the next refresh has rebuilt it.
func TestAcquireDropsDamagedDataAndAsksAgain(t *testing.T) {
	f := newAcquireFixture(t, 2)
	calls := 0
	_, reasons, err := search.Acquire(context.Background(), f.ix, f.need(), func(a *search.Acquired) ([]*index.Record, error) {
		calls++
		if calls == 1 {
			return []*index.Record{a.Report.States[0].Record}, fmt.Errorf("shard: %w", index.ErrDamaged)
		}
		assert.True(t, a.Report.States[0].Rebuilt, "the dropped session is rebuilt")
		return nil, nil
	})
	require.NoError(t, err)
	assert.Equal(t, 2, calls)
	assert.Equal(t, []string{index.IndexReset}, reasons)
}

// An index that cannot be read at all: the sessions are read into memory,
// tiered as the index tiers them, within the sync budget.
func TestAcquireFallsBackToTheSources(t *testing.T) {
	f := newAcquireFixture(t, 3)
	st, err := os.Stat(f.paths[0])
	require.NoError(t, err)
	need := f.need()
	need.Fallback = true
	need.MaxSyncSourceBytes = 2*st.Size() - 1 // two of the three sessions
	need.Refresh = func(context.Context, bool) (*index.Report, error) {
		return nil, fmt.Errorf("open: %w", indexfile.ErrLocked)
	}
	var states []index.State
	var got []string
	var hot, cold int
	_, reasons, err := search.Acquire(context.Background(), f.ix, need, func(a *search.Acquired) ([]*index.Record, error) {
		states = a.Report.States
		got, hot, cold = find(t, a, "shared")
		return nil, nil
	})
	require.NoError(t, err)
	assert.Equal(t, []string{index.IndexUnwritable}, reasons)
	require.Len(t, states, 3)
	assert.Equal(t, index.Hot, states[0].Record.Tier)
	assert.Equal(t, index.Cold, states[1].Record.Tier)
	assert.Nil(t, states[2].Record)
	assert.Equal(t, coverage.MaxSyncSourceBytes, states[2].Reason)
	assert.Equal(t, 1, hot)
	assert.Equal(t, 1, cold)
	assert.ElementsMatch(t, f.paths[:2], got)

	// Without Fallback the error stands.
	need.Fallback = false
	_, _, err = search.Acquire(context.Background(), f.ix, need, func(*search.Acquired) ([]*index.Record, error) {
		t.Error("use ran without a report")
		return nil, nil
	})
	assert.ErrorIs(t, err, indexfile.ErrLocked)
}

// RecordsOnly never reads the index.
func TestAcquireRecordsOnly(t *testing.T) {
	f := newAcquireFixture(t, 2)
	need := f.need()
	need.RecordsOnly = true
	need.BeforeRead = func() { t.Error("the index was read for records only") }
	var recs int
	_, _, err := search.Acquire(context.Background(), f.ix, need, func(a *search.Acquired) ([]*index.Record, error) {
		for _, st := range a.Report.States {
			if st.Record != nil {
				recs++
			}
		}
		return nil, nil
	})
	require.NoError(t, err)
	assert.Equal(t, 2, recs)
}

// A single session read from source stays the one answered from when the
// index then turns out unreadable: it is not read a second time.
func TestAcquireSingleSessionSurvivesTheFallback(t *testing.T) {
	f := newAcquireFixture(t, 3)
	need := f.need(f.paths[2])
	need.Single, need.Fallback = true, true
	need.Refresh = func(context.Context, bool) (*index.Report, error) {
		return nil, fmt.Errorf("open: %w", indexfile.ErrLocked)
	}
	var hot []search.HotSource
	_, reasons, err := search.Acquire(context.Background(), f.ix, need, func(a *search.Acquired) ([]*index.Record, error) {
		s := search.New(context.Background(), search.Plan{Kind: search.PlanBrowse}, search.Filters{}, nil)
		a.Open(s)
		hot = s.Hot
		return nil, nil
	})
	require.NoError(t, err)
	assert.Equal(t, []string{index.IndexUnwritable}, reasons)
	require.Len(t, hot, 1)
	assert.Equal(t, index.Cold, hot[0].Tier, "the single session's own read, tiered as the index tiers it")
}
