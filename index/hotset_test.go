package index

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
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
		got, _ := ix.hotSet(newKnownSessions(stored, targets), ids, statErr, nil, archive)
		assert.Equal(t, expect, got, "round %d", round)
	}
}
