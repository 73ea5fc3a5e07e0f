package index

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/memidx/memidx/internal/memtest"
	"github.com/memidx/memidx/internal/session/listing"
)

// TestHotSetIsTheNewestKnownSessions checks the one-pass hot set against
// sorting every known session, on random archives: targets with fresh
// stats, targets that failed to stat (their stored mtime counts), stored
// sessions outside the targets, ties in mtime broken by path. When the
// targets are the whole archive, a stored session outside them is gone
// (deleted, or renamed to a target) and is not ranked.
func TestHotSetIsTheNewestKnownSessions(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for round := range 600 {
		n := r.IntN(60)
		k := r.IntN(12)
		archive := r.IntN(2) == 0
		stored := map[string]*Record{}
		var targets []Target
		var ids []Identity
		var statErr []error
		want := map[string]int64{}
		for i := range n {
			p := fmt.Sprintf("/s/%02d.jsonl", i)
			mtime := int64(r.IntN(20)) // many ties
			if r.IntN(3) > 0 {
				stored[p] = &Record{Path: p, Identity: Identity{MtimeNs: mtime}}
				want[p] = mtime
			}
			if r.IntN(4) > 0 {
				targets = append(targets, Target{Path: p})
				fresh := int64(r.IntN(20))
				if r.IntN(5) == 0 {
					ids = append(ids, Identity{})
					statErr = append(statErr, errors.New("gone"))
				} else {
					ids = append(ids, Identity{MtimeNs: fresh})
					statErr = append(statErr, nil)
					want[p] = fresh
				}
			} else if archive {
				delete(want, p)
			}
		}
		var all []recentSession
		for p, m := range want {
			all = append(all, recentSession{p, m})
		}
		slices.SortFunc(all, newer)
		expect := map[string]bool{}
		for _, s := range all[:min(k, len(all))] {
			expect[s.path] = true
		}
		ix := &Index{cfg: Config{HotSessions: k}}
		known, _ := matchTargets(stored, targets, nil)
		hot, best := ix.hotSet(known, givenIDs(targets, ids, statErr), nil, archive)
		got := map[string]bool{}
		for _, s := range best {
			got[s.path] = true
		}
		assert.Equal(t, expect, got, "round %d", round)
		for i, tg := range targets {
			assert.Equal(t, expect[tg.Path], hot[i], "round %d: target %s", round, tg.Path)
		}
	}
}

// TestMatchTargetsInParts checks the freshness gate's matching at sizes
// that run on one goroutine and on several: every target gets its own
// stored record and the identity of its listed stat, and the stored
// records that are targets are counted once.
func TestMatchTargetsInParts(t *testing.T) {
	for _, n := range []int{0, 1, minPart - 1, 2 * minPart, 5*minPart + 3} {
		stored := map[string]*Record{}
		targets := make([]Target, n)
		listed := 0
		for i := range targets {
			p := fmt.Sprintf("/s/%05d.jsonl", i)
			targets[i] = Target{Path: p, Stat: &listing.FileStat{Size: int64(i), MtimeNs: int64(2 * i), Inode: uint64(i + 1)}}
			if i%3 != 0 {
				stored[p] = &Record{Path: p}
				listed++
			}
		}
		stored["/s/not-a-target.jsonl"] = &Record{Path: "/s/not-a-target.jsonl"}
		checked := make([]*Record, n)
		calls := make([]int, n)
		known, ids := matchTargets(stored, targets, func(i int, rec *Record, id Identity, err error) {
			assert.Equal(t, targets[i].Stat.Inode, id.Inode)
			assert.NoError(t, err)
			checked[i] = rec // each index belongs to one part
			calls[i]++
		})
		assert.Equal(t, listed, known.listed, "n %d", n)
		assert.Equal(t, known.recs, checked, "n %d: check sees every target's record", n)
		for i, c := range calls {
			assert.Equal(t, 1, c, "n %d: check called once for target %d", n, i)
		}
		assert.False(t, known.allTargets(), "n %d", n)
		for i, tg := range targets {
			assert.Same(t, stored[tg.Path], known.recs[i], "n %d target %d", n, i)
			assert.Equal(t, Identity{Size: int64(i), MtimeNs: int64(2 * i), Inode: uint64(i + 1)}, ids.at(i), "n %d target %d", n, i)
			assert.NoError(t, ids.err(i))
		}
	}
}

// TestHotSetCopiesOfAPathShareItsPlace: a path listed twice is one
// session, hot or cold as a whole, even when its copies fall on either
// side of the last hot place.
func TestHotSetCopiesOfAPathShareItsPlace(t *testing.T) {
	for _, c := range []struct {
		name   string
		k      int
		paths  []string
		mtimes []int64
		want   []bool
	}{
		{"copies of the last hot one", 2, []string{"/a", "/b", "/b", "/c"}, []int64{9, 8, 8, 7}, []bool{true, true, true, false}},
		{"copies apart in the listing", 2, []string{"/b", "/a", "/c", "/b"}, []int64{8, 9, 7, 8}, []bool{true, true, false, true}},
		{"copies of a cold one", 1, []string{"/a", "/b", "/b"}, []int64{9, 8, 8}, []bool{true, false, false}},
		{"fewer sessions than places", 5, []string{"/a", "/a"}, []int64{3, 3}, []bool{true, true}},
	} {
		targets := make([]Target, len(c.paths))
		ids := make([]Identity, len(c.paths))
		for i, p := range c.paths {
			targets[i] = Target{Path: p}
			ids[i] = Identity{MtimeNs: c.mtimes[i]}
		}
		known, _ := matchTargets(nil, targets, nil)
		ix := &Index{cfg: Config{HotSessions: c.k}}
		hot, _ := ix.hotSet(known, givenIDs(targets, ids, nil), nil, true)
		assert.Equal(t, c.want, hot, c.name)
	}
}

// givenIDs are targetIDs with the given identities and stat errors (nil:
// none) in place of stats.
func givenIDs(targets []Target, ids []Identity, errs []error) *targetIDs {
	t := &targetIDs{targets: targets}
	for i, id := range ids {
		var err error
		if errs != nil {
			err = errs[i]
		}
		t.put(i, id, err)
	}
	return t
}

// bytesAllocated is the fewest bytes f allocated over a few runs.
func bytesAllocated(f func()) uint64 { return memtest.FewestBytes(5, f) }

// The stat gate keeps no copy of what the listing stat-ed: per listed
// target it allocates the slot of its record (8 bytes), and a split of
// the states the slot of its entry, not the stats again (40 bytes), an
// error (16) or a list grown by appends.
func TestStatGateAllocatesASlotPerTarget(t *testing.T) {
	for _, n := range []int{1024, 8192} {
		stored := map[string]*Record{}
		targets := make([]Target, n)
		states := make([]State, n)
		for i := range targets {
			p := fmt.Sprintf("/s/%05d.jsonl", i)
			targets[i] = Target{Path: p, Stat: &listing.FileStat{Size: int64(i), MtimeNs: int64(i)}}
			rec := &Record{Path: p, Tier: Cold}
			stored[p] = rec
			states[i] = State{Path: p, Record: rec}
		}
		gate := bytesAllocated(func() { matchTargets(stored, targets, nil) })
		assert.LessOrEqual(t, gate, uint64(8*n+4096), "n %d: matchTargets", n)
		split := bytesAllocated(func() { splitStates(states) })
		assert.LessOrEqual(t, split, uint64(8*n+4096), "n %d: splitStates", n)
	}
}
