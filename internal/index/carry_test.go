package index

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/internal/lineage"
	"github.com/memidx/memidx/internal/session/listing"
)

// Every refresh of this package's tests that carries a kept gate matches
// its targets again and panics where the two differ.
func init() { verifyCarry = true }

// watchedOpts are the options of a refresh of f's targets from a watched
// listing: the refresh may keep its gate.
func watchedOpts(f *fixture) RefreshOptions {
	return RefreshOptions{Mode: lineage.Active, Searched: []string{f.dir}, Roots: []string{f.dir}, Watched: true}
}

// watchedRefresher refreshes f's paths in ix as a watched listing lists
// them call after call (listedTargets).
func watchedRefresher(t *testing.T, f *fixture, ix *Index) func() *Report {
	var targets []Target
	return func() *Report {
		targets = listedTargets(t, targets, f.paths, false)
		rep, err := ix.Refresh(ctx, targets, watchedOpts(f))
		require.NoError(t, err)
		return rep
	}
}

// listedTargets lists paths as a watched listing does: newest first, ties
// by path, each with its stat, the very stat of prev's target when the
// file did not change (a kept listing shares them); a path that is gone
// keeps prev's stat when stale (a listing made before the delete).
func listedTargets(t *testing.T, prev []Target, paths []string, stale bool) []Target {
	t.Helper()
	had := map[string]*listing.FileStat{}
	for _, p := range prev {
		had[p.Path] = p.Stat
	}
	var out []Target
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			if s := had[p]; stale && s != nil {
				out = append(out, Target{Path: p, Stat: s})
			}
			continue
		}
		s := listing.StatOf(st)
		if old := had[p]; old != nil && *old == s {
			out = append(out, Target{Path: p, Stat: old})
			continue
		}
		out = append(out, Target{Path: p, Stat: &s})
	}
	slices.SortStableFunc(out, func(a, b Target) int {
		return cmp.Or(cmp.Compare(b.Stat.MtimeNs, a.Stat.MtimeNs), cmp.Compare(a.Path, b.Path))
	})
	return out
}

// A long-lived index carries the last stat gate's answers to the targets
// whose file and record did not change, and every carried answer is what
// matching the target again gives (verifyCarry): after appends that move
// a session to the front, tier moves, new, deleted and garbled sessions,
// files touched without a change, listings re-made or in another order,
// and writes by another index in between.
func TestCarriedGateEqualsMatched(t *testing.T) {
	f, ix, other := twoIndexes(t, 16)
	rng := rand.New(rand.NewPCG(3, 5))
	at := time.Now().Add(-30 * time.Minute)
	next := 100
	var targets []Target
	refresh := func(stale bool) *Report {
		targets = listedTargets(t, targets, f.paths, stale)
		rep, err := ix.Refresh(ctx, targets, watchedOpts(f))
		require.NoError(t, err)
		return rep
	}
	refresh(false)
	refresh(false)
	for round := range 80 {
		before := ix.carry.carried.Load()
		what := ""
		stale := false
		switch k := rng.IntN(12); {
		case k < 4: // an agent's session grows and turns newest (hot)
			p := pick(rng, f.paths)
			grow(t, p, round)
			at = at.Add(time.Minute)
			require.NoError(t, os.Chtimes(p, at, at))
			what = "append " + filepath.Base(p)
		case k < 5:
			p := filepath.Join(f.dir, fmt.Sprintf("s%d.jsonl", next))
			writeSession(t, p, fmt.Sprintf("s%d", next), fmt.Sprintf("new%d", next))
			next++
			f.paths = append(f.paths, p)
			what = "new " + filepath.Base(p)
		case k < 6 && len(f.paths) > 6:
			p := pick(rng, f.paths)
			require.NoError(t, os.Remove(p))
			stale = rng.IntN(2) == 0
			what = "delete " + filepath.Base(p)
		case k < 7:
			p := pick(rng, f.paths)
			require.NoError(t, os.WriteFile(p, []byte("not a session\n"), 0o600))
			what = "garbled " + filepath.Base(p)
		case k < 8: // touched: a new mtime, the same bytes
			p := pick(rng, f.paths)
			at = at.Add(time.Minute)
			require.NoError(t, os.Chtimes(p, at, at))
			what = "touched " + filepath.Base(p)
		case k < 9: // a listing made anew: the same stats, new pointers
			targets = nil
			what = "relisted"
		case k < 10: // another order than the last gate's
			targets = listedTargets(t, targets, f.paths, false)
			shuffled := make([]Target, len(targets))
			for i, j := range rng.Perm(len(targets)) {
				shuffled[i] = targets[j]
			}
			rep, err := ix.Refresh(ctx, shuffled, watchedOpts(f))
			require.NoError(t, err)
			require.Zero(t, rep.Rebuilt, "round %d: shuffled targets rebuilt", round)
			continue
		case k < 11:
			f.refresh(other, lineage.Active)
			what = "other index"
		default:
			what = "nothing"
		}
		rep := refresh(stale)
		if what == "nothing" || what == "relisted" {
			require.Zero(t, rep.Rebuilt, "round %d (%s)", round, what)
		}
		t.Logf("round %d (%s): %d carried, %d rebuilt", round, what, ix.carry.carried.Load()-before, rep.Rebuilt)
	}
	// The answers equal a fresh index's, which carries nothing.
	fresh := f.index()
	defer fresh.Close()
	want, err := fresh.Refresh(ctx, targets, watchedOpts(f))
	require.NoError(t, err)
	require.Zero(t, want.Rebuilt)
	got := refresh(false)
	require.Equal(t, tiersOf(want), tiersOf(got))
	require.Zero(t, fresh.carry.carried.Load())
	require.Greater(t, ix.carry.carried.Load(), int64(300), "the gate was hardly ever carried")
}

// A grown session's next call carries every other target, and the one
// after that too, through the patched records (a kept gate of the last
// generation); a full decode (another process wrote) carries nothing.
func TestCarriedGateAfterGrowth(t *testing.T) {
	f := newFixture(t, 10)
	ix := f.index()
	defer ix.Close()
	refresh := watchedRefresher(t, f, ix)
	// s0 and s9 are the hot two (HotSessions); s0 keeps its place.
	at := time.Now().Add(-time.Minute)
	require.NoError(t, os.Chtimes(f.paths[0], at, at))
	refresh()
	refresh() // decodes and keeps the records; its gate is kept
	for round := range 3 {
		before := ix.carry.carried.Load()
		grow(t, f.paths[0], round)
		at = at.Add(time.Second)
		require.NoError(t, os.Chtimes(f.paths[0], at, at))
		rep := refresh()
		require.Equal(t, 1, rep.Rebuilt, "round %d", round)
		require.Equal(t, int64(len(f.paths)-1), ix.carry.carried.Load()-before, "round %d", round)
	}
	other := f.index()
	defer other.Close()
	grow(t, f.paths[1], 9)
	old := time.Now().Add(-2 * time.Hour) // still cold
	require.NoError(t, os.Chtimes(f.paths[1], old, old))
	require.Equal(t, 1, f.refresh(other, lineage.Active).Rebuilt)
	before := ix.carry.carried.Load()
	rep := refresh()
	require.Zero(t, rep.Rebuilt)
	require.Zero(t, ix.carry.carried.Load()-before, "records another process wrote were carried")
	// A target whose record a write of this index replaced is matched
	// again, never carried: s2 grows into the hot set and pushes s9 out,
	// rebuilt cold with the same stat; the next call matches both.
	grow(t, f.paths[2], 10)
	at = at.Add(time.Second)
	require.NoError(t, os.Chtimes(f.paths[2], at, at))
	rep = refresh()
	require.Equal(t, 2, rep.Rebuilt, "the grown session and the one it pushed out of the hot set")
	require.Equal(t, []Tier{Hot, Hot}, []Tier{rep.States[0].Record.Tier, rep.States[1].Record.Tier})
	before = ix.carry.carried.Load()
	rep = refresh()
	require.Zero(t, rep.Rebuilt)
	require.Equal(t, int64(len(f.paths)-2), ix.carry.carried.Load()-before)
}

// Two sessions next to each other in the last gate that grow together
// (both newest now) leave every other target carried: the walk skips the
// gate's targets that sort before the one it aligns.
func TestCarriedGateAfterTwoAdjacentMoves(t *testing.T) {
	f := newFixture(t, 10)
	ix := f.index()
	defer ix.Close()
	refresh := watchedRefresher(t, f, ix)
	refresh()
	refresh()
	at := time.Now().Add(-time.Minute)
	for _, p := range f.paths[4:6] {
		grow(t, p, 1)
		at = at.Add(time.Second)
		require.NoError(t, os.Chtimes(p, at, at))
	}
	before := ix.carry.carried.Load()
	refresh()
	require.Equal(t, int64(len(f.paths)-2), ix.carry.carried.Load()-before, "all but the two grown")
}

// Only the gates that can still carry are kept: one of records a later
// full decode replaced holds them for nothing, and neither a rebuild's
// (never asked for again) nor an unwatched listing's is kept.
func TestDeadGatesAreDropped(t *testing.T) {
	f := newFixture(t, 6)
	ix := f.index()
	defer ix.Close()
	targets := listedTargets(t, nil, f.paths, false)
	opt := watchedOpts(f)
	_, err := ix.Refresh(ctx, targets, opt)
	require.NoError(t, err)
	_, err = ix.Refresh(ctx, targets, opt)
	require.NoError(t, err)
	require.Len(t, ix.carry.last, 1)
	rebuild := opt
	rebuild.NoBudgets, rebuild.Force = true, true
	_, err = ix.Refresh(ctx, targets, rebuild)
	require.NoError(t, err)
	unwatched := opt
	unwatched.Watched, unwatched.Searched = false, nil
	_, err = ix.Refresh(ctx, targets, unwatched)
	require.NoError(t, err)
	require.Len(t, ix.carry.last, 1, "a rebuild's or an unwatched listing's gate was kept")
	archive := opt // another kind of refresh, asked once
	archive.Archive = true
	_, err = ix.Refresh(ctx, targets, archive)
	require.NoError(t, err)
	require.Len(t, ix.carry.last, 2)
	// Another process writes: the next call decodes anew, and the gates of
	// the records before are dropped, the other kind's too.
	other := f.index()
	defer other.Close()
	grow(t, f.paths[1], 1)
	old := time.Now().Add(-2 * time.Hour)
	require.NoError(t, os.Chtimes(f.paths[1], old, old))
	f.refresh(other, lineage.Active)
	other.Close()
	for range 3 {
		targets = listedTargets(t, targets, f.paths, false)
		_, err = ix.Refresh(ctx, targets, opt)
		require.NoError(t, err)
		cur := ix.decoded.byMode[lineage.Active]
		for k, g := range ix.carry.last {
			require.True(t, g.gen == cur.gen || g.gen == cur.from,
				"%+v: a gate of records %d beside records %d (from %d)", k, g.gen, cur.gen, cur.from)
		}
	}
	require.Len(t, ix.carry.last, 1)
}

// A live target is carried while its branch is the same (equal, not the
// same pointer), and matched again when the host moves to another leaf,
// the same slice of targets given with it (the engine's: the listing's
// refs); every carried answer is checked (verifyCarry).
func TestCarriedGateWithLiveBranch(t *testing.T) {
	f := newFixture(t, 6)
	ix := f.index()
	defer ix.Close()
	var targets []Target
	refresh := func(leaf string) *Report {
		targets = listedTargets(t, targets, f.paths, false)
		opt := watchedOpts(f)
		opt.Live = LiveBranch{Path: f.paths[0], Live: &lineage.Live{LeafID: leaf}}
		rep, err := ix.Refresh(ctx, targets, opt)
		require.NoError(t, err)
		return rep
	}
	refresh("a")
	refresh("a")
	grown := f.paths[5] // newest, hot already
	for _, c := range []struct {
		leaf    string
		carried int
	}{{"a", len(f.paths) - 1}, {"b", len(f.paths) - 2}} {
		grow(t, grown, len(c.leaf))
		before := ix.carry.carried.Load()
		refresh(c.leaf)
		require.Equal(t, int64(c.carried), ix.carry.carried.Load()-before, "leaf %s", c.leaf)
	}
}
