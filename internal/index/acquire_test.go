package index

import (
	"context"
	"errors"
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
	"github.com/memidx/memidx/internal/indexfile"
	"github.com/memidx/memidx/internal/lineage"
)

// acquireFixture is n sessions (s0 newest) and an index over them that
// keeps one session hot.
type acquireFixture struct {
	t     *testing.T
	dir   string
	paths []string
	ix    *Index
}

func newAcquireFixture(t *testing.T, n int) *acquireFixture {
	f := &acquireFixture{t: t, dir: t.TempDir()}
	cfg := DefaultConfig()
	cfg.IndexDir = filepath.Join(t.TempDir(), "index")
	cfg.HotSessions = 1
	f.ix = Open(cfg, time.Second)
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
func (f *acquireFixture) need(paths ...string) Need {
	if paths == nil {
		paths = f.paths
	}
	var targets []Target
	for _, p := range paths {
		targets = append(targets, Target{Path: p})
	}
	return Need{
		Targets:            targets,
		Refresh:            RefreshOptions{Mode: lineage.Active, Searched: []string{f.dir}},
		HotSessions:        1,
		MaxSyncSourceBytes: 1 << 30,
	}
}

// locked is a refresh that finds the index held by another process.
func locked(context.Context) (*Report, error) {
	return nil, fmt.Errorf("open: %w", indexfile.ErrLocked)
}

// find opens every state of v as a search does (from memory, from what
// the refresh built, or from the index, reading again from source what
// another process rewrote) and returns the paths of the sessions that
// hold term, with the number of hot and cold sources.
func find(t *testing.T, v *View, term string) (paths []string, hot, cold int) {
	t.Helper()
	var loaded []Loaded
	var raced []int
	for i := range v.Len() {
		st := v.State(i)
		if st.Record == nil {
			continue
		}
		l, err := open(v, st)
		if errors.Is(err, ErrNoData) {
			raced = append(raced, i)
			continue
		}
		require.NoError(t, err)
		loaded = append(loaded, l)
	}
	for _, l := range append(loaded, v.Reread(raced)...) {
		if l.IsHot {
			hot++
			if l.Shard.Postings(term).Count() > 0 {
				paths = append(paths, l.Record.Path)
			}
		} else {
			cold++
			if has, err := v.Reader().Holds(l.Record, l.Digest, term); err == nil && has {
				paths = append(paths, l.Record.Path)
			}
		}
	}
	return paths, hot, cold
}

// open is st's session where v holds it.
func open(v *View, st State) (Loaded, error) {
	if l, ok := v.Memory(st.Record); ok {
		return l, nil
	}
	if st.Built() != nil {
		return st.Built().Open()
	}
	if st.Record.Tier == Hot {
		sh, err := v.Reader().Shard(st.Record)
		return Loaded{Record: st.Record, Tier: Hot, IsHot: true, Shard: sh}, err
	}
	_, d, err := v.Reader().Digest(st.Record)
	return Loaded{Record: st.Record, Tier: Cold, Digest: d}, err
}

func TestAcquireSearchesTheIndex(t *testing.T) {
	f := newAcquireFixture(t, 3)
	var got []string
	var hot, cold int
	_, reasons, err := f.ix.Acquire(context.Background(), f.need(), func(v *View) error {
		require.Equal(t, 3, v.Len())
		got, hot, cold = find(t, v, "word2")
		return nil
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
	_, _, err := f.ix.Acquire(context.Background(), f.need(), nil)
	require.NoError(t, err)

	need := f.need(f.paths[2])
	need.Single = true
	need.BeforeRead = func() { t.Error("the index was read for a session in memory") }
	var single Loaded
	var inMemory bool
	_, _, err = f.ix.Acquire(context.Background(), need, func(v *View) error {
		require.NoError(t, v.SingleErr())
		single, inMemory = v.Memory(v.Record(0))
		return nil
	})
	require.NoError(t, err)
	require.True(t, inMemory)
	assert.True(t, single.IsHot, "searched entry by entry")
	assert.Equal(t, Cold, single.Tier, "reported as the index tiers it")
	assert.Equal(t, f.paths[2], single.Record.Path)

	require.NoError(t, os.Remove(f.paths[2]))
	_, _, err = f.ix.Acquire(context.Background(), need, func(v *View) error {
		assert.ErrorIs(t, v.SingleErr(), ErrSourceUnavailable)
		return nil
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
		_, err := f.ix.Refresh(context.Background(), need.Targets, RefreshOptions{Mode: lineage.Active, Searched: []string{f.dir}})
		require.NoError(t, err)
	}
	first := true
	var got []string
	_, _, err := f.ix.Acquire(context.Background(), need, func(v *View) error {
		if first {
			first = false
			got, _, _ = find(t, v, "fresh")
		}
		return nil
	})
	require.NoError(t, err)
	assert.Equal(t, []string{f.paths[0]}, got)
}

// Tier data that fn found damaged is dropped and fn asked again, once
// the next refresh has rebuilt it.
func TestAcquireDropsDamagedDataAndAsksAgain(t *testing.T) {
	f := newAcquireFixture(t, 2)
	calls := 0
	_, reasons, err := f.ix.Acquire(context.Background(), f.need(), func(v *View) error {
		calls++
		if calls == 1 {
			v.Damaged(v.Record(0))
			return fmt.Errorf("shard: %w", ErrDamaged)
		}
		assert.True(t, v.State(0).Rebuilt(), "the dropped session is rebuilt")
		return nil
	})
	require.NoError(t, err)
	assert.Equal(t, 2, calls)
	assert.Equal(t, []string{IndexReset}, reasons)
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
	need.refresh = locked
	var states []State
	var got []string
	var hot, cold int
	_, reasons, err := f.ix.Acquire(context.Background(), need, func(v *View) error {
		for i := range v.Len() {
			states = append(states, v.State(i))
		}
		got, hot, cold = find(t, v, "shared")
		return nil
	})
	require.NoError(t, err)
	assert.Equal(t, []string{IndexUnwritable}, reasons)
	require.Len(t, states, 3)
	assert.Equal(t, Hot, states[0].Record.Tier)
	assert.Equal(t, Cold, states[1].Record.Tier)
	assert.Nil(t, states[2].Record)
	assert.Equal(t, coverage.MaxSyncSourceBytes, states[2].Reason())
	assert.Equal(t, 1, hot)
	assert.Equal(t, 1, cold)
	assert.ElementsMatch(t, f.paths[:2], got)

	// Without Fallback the error stands.
	need.Fallback = false
	_, _, err = f.ix.Acquire(context.Background(), need, func(*View) error {
		t.Error("fn ran without a report")
		return nil
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
	_, _, err := f.ix.Acquire(context.Background(), need, func(v *View) error {
		for i := range v.Len() {
			if v.Record(i) != nil {
				recs++
			}
		}
		return nil
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
	need.refresh = locked
	var single Loaded
	_, reasons, err := f.ix.Acquire(context.Background(), need, func(v *View) error {
		require.Equal(t, 1, v.Len())
		single, _ = v.Memory(v.Record(0))
		return nil
	})
	require.NoError(t, err)
	assert.Equal(t, []string{IndexUnwritable}, reasons)
	require.NotNil(t, single.Record)
	assert.True(t, single.IsHot)
	assert.Equal(t, Cold, single.Tier, "the single session's own read, tiered as the index tiers it")
}
