package index

import (
	"os"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/internal/lineage"
	"github.com/memidx/memidx/internal/session/listing"
)

// listedStats is a target for each of paths with its stat, as listed.
func listedStats(t *testing.T, paths []string) []Target {
	t.Helper()
	var out []Target
	for _, p := range paths {
		st, regular, err := statForTest(p)
		require.NoError(t, err)
		require.True(t, regular)
		out = append(out, Target{Path: p, Stat: &st})
	}
	return out
}

// TestQuietRefreshIsAnsweredAgain: a refresh of the same listed targets at
// the same commit, after one that found nothing to do, is answered with a
// copy of it; a changed file, another writer's commit, a target without a
// listed stat or another scope are refreshed in full, and see the change.
func TestQuietRefreshIsAnsweredAgain(t *testing.T) {
	f := newFixture(t, 3)
	ix := f.index()
	listed := func() []Target { return listedStats(t, f.paths) }
	refresh := func(ix *Index, targets []Target, archive bool) *Report {
		rep, err := ix.Refresh(ctx, targets, RefreshOptions{Mode: lineage.Active, Searched: []string{f.dir}, Archive: archive})
		require.NoError(t, err)
		return rep
	}
	refresh(ix, listed(), true)          // builds
	quiet := refresh(ix, listed(), true) // nothing to do: kept
	require.Zero(t, quiet.Rebuilt)
	hits := ix.quiet.hits.Load()
	again := refresh(ix, listed(), true)
	assert.Equal(t, hits+1, ix.quiet.hits.Load(), "answered from the kept refresh")
	assert.Equal(t, quiet.States, again.States)
	assert.Equal(t, quiet.Coverage, again.Coverage)
	// Shared with the kept refresh until Own, then a copy.
	require.Same(t, &again.States[0], &refresh(ix, listed(), true).States[0])
	require.Same(t, again.Split(), refresh(ix, listed(), true).Split())
	again.own()
	again.States[0].Record = nil // the kept one is untouched
	third := refresh(ix, listed(), true)
	assert.NotNil(t, third.States[0].Record)
	// The report of the refresh that was kept shares its states too.
	require.Same(t, &quiet.States[0], &third.States[0])
	require.Same(t, quiet.Split(), third.Split())
	quiet.own()
	quiet.States[0].Record = nil
	assert.NotNil(t, refresh(ix, listed(), true).States[0].Record)

	// Not answered from it: a target without a listed stat, another scope.
	hits = ix.quiet.hits.Load()
	refresh(ix, []Target{{Path: f.paths[0]}, {Path: f.paths[1]}, {Path: f.paths[2]}}, true)
	refresh(ix, listed(), false)
	assert.Equal(t, hits, ix.quiet.hits.Load())

	// A changed file.
	later := time.Now().Add(-10 * time.Minute) // newest, and not in the future (racy)
	require.NoError(t, os.WriteFile(f.paths[1], []byte(sessionText("s1", "alpha1 epsilon")), 0o600))
	require.NoError(t, os.Chtimes(f.paths[1], later, later))
	changed := refresh(ix, listed(), true)
	assert.True(t, changed.States[1].Rebuilt())

	// Another writer drops a record, the files unchanged.
	kept := refresh(ix, listed(), true)
	require.Zero(t, kept.Rebuilt)
	require.True(t, f.index().Forget(ctx, lineage.Active, []*Record{kept.States[2].Record}))
	redo := refresh(ix, listed(), true)
	assert.True(t, redo.States[2].Rebuilt(), "a commit since the kept refresh: refreshed in full")

	// Another writer's commit.
	refresh(ix, listed(), true)
	require.NoError(t, os.WriteFile(f.paths[0], []byte(sessionText("s0", "alpha0 zeta")), 0o600))
	other := f.index()
	refresh(other, listed(), true)
	seen := refresh(ix, listed(), true)
	assert.Zero(t, seen.Rebuilt, "the other writer's records are current")
	assert.Equal(t, other.decodedSourceHash(t, f.paths[0]), seen.States[0].Record.SourceHash)
}

func statForTest(p string) (listing.FileStat, bool, error) {
	st, err := os.Stat(p)
	if err != nil {
		return listing.FileStat{}, false, err
	}
	return listing.StatOf(st), st.Mode().IsRegular(), nil
}

// decodedSourceHash is the stored record's source hash of path.
func (ix *Index) decodedSourceHash(t *testing.T, path string) Sum {
	got, err := ix.loadRecordsAt(ctx, lineage.Active)
	require.NoError(t, err)
	require.NotNil(t, got.stored[path])
	return got.stored[path].SourceHash
}

// A refresh given the very slice of targets of the kept refresh (a
// watched listing that did not change) is answered without looking at its
// targets one by one; a slice of the same targets that is another one is
// compared, and a changed slice refreshed in full.
func TestQuietRefreshOfTheSameSliceWalksNoTarget(t *testing.T) {
	for _, n := range []int{3, 30, 300} {
		f := newFixture(t, n)
		ix := f.index()
		var listed []Target
		for _, p := range f.paths {
			st, regular, err := statForTest(p)
			require.NoError(t, err)
			require.True(t, regular)
			listed = append(listed, Target{Path: p, Stat: &st})
		}
		refresh := func(targets []Target) *Report {
			rep, err := ix.Refresh(ctx, targets, RefreshOptions{Mode: lineage.Active, Searched: []string{f.dir}, Archive: true})
			require.NoError(t, err)
			return rep
		}
		refresh(listed) // builds
		refresh(listed) // nothing to do: kept
		hits, walked := ix.quiet.hits.Load(), ix.quiet.walked.Load()
		for range 5 {
			refresh(listed)
		}
		assert.Equal(t, hits+5, ix.quiet.hits.Load(), "%d sessions: answered from the kept refresh", n)
		assert.Equal(t, walked, ix.quiet.walked.Load(), "%d sessions: targets looked at", n)

		// Another slice of the same targets is compared once, then is
		// the one the kept refresh was given.
		copied := slices.Clone(listed)
		for range 3 {
			refresh(copied)
		}
		assert.Equal(t, hits+8, ix.quiet.hits.Load())
		assert.Equal(t, walked+2*int64(n), ix.quiet.walked.Load(), "another slice is compared once")
	}
}

// A host that set its live session asks with its live branch on one
// target: the same branch (equal, not the same pointer) is answered from
// the kept refresh; another leaf or branch is refreshed in full, and the
// live target rebuilt for it.
func TestQuietRefreshWithLiveBranch(t *testing.T) {
	f := newFixture(t, 3)
	ix := f.index()
	defer ix.Close()
	targets := listedStats(t, f.paths) // one slice, as a watched listing gives
	refresh := func(live *lineage.Live) *Report {
		rep, err := ix.Refresh(ctx, targets, RefreshOptions{Mode: lineage.Active, Searched: []string{f.dir}, Archive: true,
			Live: LiveBranch{Path: targets[0].Path, Live: live}})
		require.NoError(t, err)
		return rep
	}
	refresh(&lineage.Live{LeafID: "a"}) // builds
	kept := refresh(&lineage.Live{LeafID: "a"})
	require.Zero(t, kept.Rebuilt)
	hits := ix.quiet.hits.Load()
	again := refresh(&lineage.Live{LeafID: "a"})
	require.Equal(t, hits+1, ix.quiet.hits.Load(), "the same live branch: answered from the kept refresh")
	require.Equal(t, kept.States, again.States)
	for _, c := range []struct {
		name string
		live *lineage.Live
	}{
		{"another leaf", &lineage.Live{LeafID: "b"}},
		{"another branch", &lineage.Live{LeafID: "b", BranchIDs: []string{"x", "b"}}},
		{"no live branch", nil},
	} {
		hits := ix.quiet.hits.Load()
		rep := refresh(c.live)
		require.Equal(t, hits, ix.quiet.hits.Load(), c.name)
		require.True(t, rep.States[0].Rebuilt(), "%s: the live target is built for its branch", c.name)
		require.Equal(t, 1, rep.Rebuilt, c.name)
		require.Equal(t, liveSignature(c.live), rep.States[0].Record.LiveSignature(), c.name)
		require.Zero(t, refresh(c.live).Rebuilt, c.name) // nothing to do: kept
		refresh(c.live)
		require.Equal(t, hits+1, ix.quiet.hits.Load(), "%s: then answered from the kept refresh", c.name)
	}
}

// A refresh answered from the kept quiet refresh with another slice of
// the same targets makes that slice the kept one, for the quiet refresh
// and for the kept stat gate alike: neither holds the first slice on.
func TestQuietRefreshLetsGoOfTheFirstSlice(t *testing.T) {
	f := newFixture(t, 3)
	ix := f.index()
	defer ix.Close()
	opt := RefreshOptions{Mode: lineage.Active, Searched: []string{f.dir}, Archive: true, Watched: true}
	first := listedStats(t, f.paths)
	for range 2 { // builds, then finds nothing to do: kept
		_, err := ix.Refresh(ctx, first, opt)
		require.NoError(t, err)
	}
	second := listedStats(t, f.paths)
	hits := ix.quiet.hits.Load()
	_, err := ix.Refresh(ctx, second, opt)
	require.NoError(t, err)
	require.Equal(t, hits+1, ix.quiet.hits.Load(), "answered from the kept refresh")

	require.Len(t, ix.quiet.last, 1)
	for _, q := range ix.quiet.last {
		require.True(t, sameSlice(q.given, second), "the quiet refresh holds the first slice")
	}
	require.Len(t, ix.carry.last, 1)
	for _, g := range ix.carry.last {
		require.True(t, sameSlice(g.targets, second), "the kept gate holds the first slice")
	}
}
