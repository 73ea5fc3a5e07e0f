package index

import (
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/memidx/memidx/internal/lineage"
)

// A refresh that found nothing to do (every target current, nothing to
// remove, nothing written) is kept: a later refresh of the same targets,
// each with the same listed stat, at the same commit of the index file,
// would find the same, so it answers with a copy instead of the pass over
// every target (a long-lived host whose watcher says nothing changed asks
// exactly that, call after call). A refresh with a live branch is the
// same when its branch and live target are (a host that set its live
// session asks this too: at 100k sessions it paid 52 ms a call for the
// pass); the same slice of targets may come with another branch, so the
// branch is compared whatever the slice. Targets without a listed stat
// are never answered this way, nor is a narrower refresh that ranked its
// tiers with the roster's files (they are stat-ed anew).
//
// A caller never changes a slice of targets once it has given it (a
// watched listing's refs are shared and never written), so
// the kept refresh holds the caller's slice, not a copy (3 MB at 100k
// sessions), and one that gives the very slice again (same array, same
// length) is not compared again, which at 100k sessions was half of a
// rare-term call.
type quietCache struct {
	mu   sync.Mutex
	last map[quietKey]quietRefresh
	hits atomic.Int64 // refreshes answered from it (tests)
	// walked counts the targets looked at one by one to decide (tests).
	walked atomic.Int64
}

// quietKey is what besides the targets makes two refreshes the same.
type quietKey struct {
	mode      string
	archive   bool
	noBudgets bool
	searched  string
	roots     string
}

type quietRefresh struct {
	at    commit
	given []Target // the caller's own slice (see quietCache)
	// live is the live branch it was asked with: the same slice of
	// targets comes with another when the host's session moves on.
	live LiveBranch
	rep  Report
}

func keyOf(r *refreshRun) quietKey {
	return quietKey{string(r.mode), r.opt.Archive, r.opt.NoBudgets,
		strings.Join(r.opt.Searched, "\x00"), strings.Join(r.opt.Roots, "\x00")}
}

// liveIn is b as mode reads it: none in a mode that reads no live
// branch.
func liveIn(mode lineage.Mode, b LiveBranch) LiveBranch {
	if liveFor(mode, b.Live) == nil {
		return LiveBranch{}
	}
	return b
}

// sameFor reports whether b and o give the target at path the same live
// branch (equal, not the same pointer).
func (b LiveBranch) sameFor(o LiveBranch, path string) bool { return b.Of(path).Same(o.Of(path)) }

// same reports whether b and o give every target the same live branch.
func (b LiveBranch) same(o LiveBranch) bool {
	if b.Live == nil || o.Live == nil {
		return b.Live == nil && o.Live == nil
	}
	return b.Path == o.Path && b.Live.Same(o.Live)
}

// sameTargets reports whether a and b list the same files with the same
// listed stats (sameListed); both passed quietable (every target has a
// listed stat).
func sameTargets(a, b []Target) bool {
	return slices.EqualFunc(a, b, func(x, y Target) bool { return sameListed(&x, &y) })
}

// sameSlice reports whether a and b are the same slice: one array, one
// length.
func sameSlice(a, b []Target) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// given reports whether r's targets are the slice of the refresh kept for
// r's key: quietable then, as they were when it was kept.
func (c *quietCache) given(r *refreshRun) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	q, ok := c.last[keyOf(r)]
	return ok && sameSlice(q.given, r.targets) && q.live.same(r.live)
}

// quietable is the package's quietable, counted.
func (c *quietCache) quietable(targets []Target) bool {
	c.walked.Add(int64(len(targets)))
	return quietable(targets)
}

// quietable reports whether targets can be answered from a kept refresh.
func quietable(targets []Target) bool {
	for i := range targets {
		if targets[i].Stat == nil {
			return false
		}
	}
	return true
}

// quietable reports whether this run may be answered from, or kept as, a
// refresh that found nothing to do: the index was read whole at a known
// commit, every target carries its listed stat, and the hot tier comes
// from the targets and records alone (a refresh of the whole archive, or
// one without a roster).
func (r *refreshRun) quietable(bad [][]byte) bool {
	return !r.opt.NoBudgets && r.rep.readAtKnown && len(bad) == 0 && r.reasons.Complete() &&
		(r.opt.Archive || !r.hasRoster) && (r.ix.quiet.given(r) || r.ix.quiet.quietable(r.targets))
}

// get returns a copy of the kept refresh for r, when it still answers.
func (c *quietCache) get(r *refreshRun, at commit) (*Report, bool) {
	c.mu.Lock()
	q, ok := c.last[keyOf(r)]
	c.mu.Unlock()
	if !ok || q.at != at || !q.live.same(r.live) {
		return nil, false
	}
	if !sameSlice(q.given, r.targets) {
		c.walked.Add(int64(len(r.targets)))
		if !sameTargets(q.given, r.targets) {
			return nil, false
		}
		c.regive(r, q)
	}
	c.hits.Add(1)
	// The states are shared (see Report.own), and so is their Split.
	rep := q.rep
	rep.Coverage.Reasons = slices.Clone(q.rep.Coverage.Reasons)
	return &rep, true
}

// regive makes r's slice of targets, found the same as q's, the one q was
// given: a listing whose first slice was not the one it settled on (a
// watch set up after the first call) is then not compared call after call,
// and the first slice is let go (the kept stat gate's too, gateMemo.regive).
func (c *quietCache) regive(r *refreshRun, q quietRefresh) {
	c.mu.Lock()
	defer c.mu.Unlock()
	k := keyOf(r)
	if cur, ok := c.last[k]; ok && cur.at == q.at && sameSlice(cur.given, q.given) {
		r.ix.carry.regive(k, cur.given, r.targets)
		cur.given = r.targets
		c.last[k] = cur
	}
}

// put keeps a refresh that found nothing to do.
func (c *quietCache) put(r *refreshRun, at commit) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.last == nil {
		c.last = map[quietKey]quietRefresh{}
	}
	// The run's report and the kept one share their states: a caller
	// that changes one calls own first (in a one-shot command, a copy
	// was only more fresh pages).
	r.rep.shared = true
	if r.rep.split == nil {
		r.rep.split = &splitOnce{}
	}
	rep := *r.rep
	rep.Coverage.Reasons = slices.Clone(r.rep.Coverage.Reasons)
	c.last[keyOf(r)] = quietRefresh{at: at, given: r.targets, live: r.live, rep: rep}
}

// QuietStats counts the refreshes answered from a kept quiet refresh, and
// the targets compared one by one to decide (tests, diagnostics).
func (ix *Index) QuietStats() (hits, walked int64) {
	return ix.quiet.hits.Load(), ix.quiet.walked.Load()
}
