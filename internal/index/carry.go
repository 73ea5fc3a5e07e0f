package index

import (
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/memidx/memidx/internal/session/listing"
)

// A host's own session grows between its calls: most of its calls come
// after a change, and the stat gate then looked up every target's record
// and compared its identity (at 100k sessions 66 ms of CPU, a map probe
// and a record read a target, each a cache miss), to find one target
// changed. The gate's answer for a target is a pure function of its path,
// its listed stat, its live branch and its stored record (and of the
// run's policies and racy window, which a run compares whole): so a
// target listed as at the last gate (sameListed), under the same live
// branch (LiveBranch.sameFor), whose record is still
// the one that gate found, gets that gate's answer again. The records are the
// kept ones (recordCache) at the same generation, or patched from it by
// the last write (patchDecoded), which names the records it replaced.
//
// The targets are walked beside the last gate's, in order: a watched
// listing keeps its order (newest first, then by path) between calls but
// for the files that changed (patchMemo moves a grown session to the
// front), so one look ahead, and skipping the gate's targets that sort
// before the target (moved or gone since), re-aligns the two. A target
// that does not align, has no record, or whose record was replaced is
// matched as before.

// carryKeep bounds the kept gates: one per kind of refresh (quietKey) a
// host asks, the oldest dropped past it.
const carryKeep = 4

// verifyCarry, when set, matches every target again after a carry and
// panics where the two differ (tests: VerifyCarry).
var verifyCarry bool

// VerifyCarry makes every carried stat gate be matched again and compared
// (panicking where they differ), for the tests of the packages above.
func VerifyCarry(on bool) { verifyCarry = on }

// gateMemo keeps the last stat gate of each kind of refresh.
type gateMemo struct {
	mu   sync.Mutex
	last map[quietKey]*lastGate
	seq  uint64
	// carried counts the targets given a kept gate's answer (tests).
	carried atomic.Int64
}

// lastGate is one stat gate's answer: for targets[i], the record it
// found (recs[i]), the tier that record is current for (fresh[i]) and the
// target's mtime (mtimes[i]), against the records of generation gen.
type lastGate struct {
	gen                   uint64
	window                time.Duration
	hotPolicy, coldPolicy policyNum
	targets               []Target
	recs                  []*Record
	fresh                 []Tier
	mtimes                []int64
	live                  LiveBranch // the run's, whose live target it answered for
	seq                   uint64     // when it was kept (the oldest goes first)
}

// base returns the kept gate r may carry from, and the records replaced
// since it (nil when it was taken against r's very records).
func (m *gateMemo) base(r *refreshRun) (*lastGate, []*Record, bool) {
	if !r.carryable() {
		return nil, nil, false
	}
	m.mu.Lock()
	g := m.last[keyOf(r)]
	m.mu.Unlock()
	if g == nil || g.window != r.ix.racyWindow() || g.hotPolicy != r.hotPolicy || g.coldPolicy != r.coldPolicy {
		return nil, nil, false
	}
	switch {
	case g.gen == r.base.gen:
		return g, nil, true
	case g.gen == r.base.from:
		return g, r.base.replaced, true
	}
	return nil, nil, false
}

// keep keeps r's gate for the next run of its kind.
func (m *gateMemo) keep(r *refreshRun) {
	if !r.carryable() {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.last == nil {
		m.last = map[quietKey]*lastGate{}
	}
	k := keyOf(r)
	// A gate of records neither these nor those these were patched from
	// carries nothing any more, and holds what it found.
	for key, g := range m.last {
		if key.mode == k.mode && g.gen != r.base.gen && g.gen != r.base.from {
			delete(m.last, key)
		}
	}
	if _, ok := m.last[k]; !ok && len(m.last) >= carryKeep {
		oldest := quietKey{}
		var at uint64 = 1<<64 - 1
		for key, g := range m.last {
			if g.seq < at {
				oldest, at = key, g.seq
			}
		}
		delete(m.last, oldest)
	}
	m.seq++
	m.last[k] = &lastGate{gen: r.base.gen, window: r.ix.racyWindow(), hotPolicy: r.hotPolicy, coldPolicy: r.coldPolicy,
		targets: r.targets, recs: r.known.recs, fresh: r.fresh, mtimes: r.ids.mtimes, live: r.live, seq: m.seq}
}

// regive points the gate kept for k at the targets to, when it holds
// from, a slice found the same as to target by target (quietCache.regive):
// a refresh answered from the kept quiet refresh makes no gate of its
// own, and the first slice would otherwise stay held for as long as
// nothing changes. A run may be reading the kept gate: it is replaced,
// not changed.
func (m *gateMemo) regive(k quietKey, from, to []Target) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if g := m.last[k]; g != nil && sameSlice(g.targets, from) {
		next := *g
		next.targets = to
		m.last[k] = &next
	}
}

// carryable reports whether r's gate can be kept and carried: its targets
// are a watched listing's, which the caller keeps anyway, and its records
// the full ones the cache kept (partial records are completed in place,
// and a gate table has no record per path). A rebuild's gate is never
// asked for again.
func (r *refreshRun) carryable() bool {
	return r.opt.Watched && !r.opt.NoBudgets && r.loadOK && r.base.gen != 0 && !r.partial && r.gate == nil
}

// listedBefore reports whether a listing puts a before b (listing.Before);
// false for a target without a listed stat.
func listedBefore(a, b *Target) bool {
	return a.Stat != nil && b.Stat != nil && listing.Before(a.Stat.MtimeNs, a.Path, b.Stat.MtimeNs, b.Path)
}

// align is the index of t among g's targets from j on (one look ahead), -1
// when it is not there.
func (g *lastGate) align(t *Target, j int) int {
	for d := 0; d < 2 && j+d < len(g.targets); d++ {
		if sameListed(t, &g.targets[j+d]) {
			return j + d
		}
	}
	return -1
}

// sameListed reports whether a and b are the same file with the same
// listed stat: under the same live branch (which the callers compare,
// LiveBranch.same and sameFor), a record is current for them alike (the
// stat gate's answer, a kept quiet refresh). A stat-less target is the
// same as none.
func sameListed(a, b *Target) bool {
	// A watched listing that did not change shares its strings and stats
	// with the kept targets: compare pointers before what they point to.
	return a.Stat != nil && b.Stat != nil && a.Path == b.Path && (a.Stat == b.Stat || *a.Stat == *b.Stat)
}

// replacedSet answers whether a record is among those replaced: a scan
// of a few, a set of many.
type replacedSet struct {
	few  []*Record
	many map[*Record]bool
}

func newReplacedSet(recs []*Record) replacedSet {
	if len(recs) <= 16 {
		return replacedSet{few: recs}
	}
	s := replacedSet{many: make(map[*Record]bool, len(recs))}
	for _, r := range recs {
		s.many[r] = true
	}
	return s
}

func (s replacedSet) has(rec *Record) bool {
	if s.many != nil {
		return s.many[rec]
	}
	return slices.Contains(s.few, rec)
}

// matchCarried is matchTargetsBy for r's targets with the answers of the
// kept gate g carried where they hold (see above); match matches one
// target as matchTargetsBy does.
func (r *refreshRun) matchCarried(g *lastGate, replaced []*Record, mtimes []int64, match func(i int, k *knownSessions, taken *targetIDs) bool, total int) (*knownSessions, *targetIDs) {
	targets := r.targets
	k := &knownSessions{total: total, targets: targets, recs: make([]*Record, len(targets))}
	ids := &targetIDs{targets: targets}
	gone := newReplacedSet(replaced)
	carried := 0
	j := 0 // the next of g's targets to align with
	for i := range targets {
		t := &targets[i]
		at := g.align(t, j)
		if at < 0 {
			for j < len(g.targets) && listedBefore(&g.targets[j], t) {
				j++ // moved or gone since
			}
			at = g.align(t, j)
		}
		if at >= 0 && !g.live.sameFor(r.live, t.Path) {
			at = -1 // the live target, under another branch now
		}
		if at < 0 {
			if j < len(g.targets) && g.targets[j].Path == t.Path {
				j++ // the same file, changed
			}
		} else {
			j = at + 1
			if rec := g.recs[at]; rec != nil && !gone.has(rec) {
				k.recs[i] = rec
				k.listed++
				r.rep.States[i].Path = t.Path
				r.fresh[i] = g.fresh[at]
				mtimes[i] = g.mtimes[at]
				carried++
				continue
			}
		}
		if match(i, k, ids) {
			k.listed++
		}
	}
	r.ix.carry.carried.Add(int64(carried))
	return k, ids
}

// verifyCarried matches every target again, as a run that carried nothing
// would, and panics where r's carried gate differs (verifyCarry).
func (r *refreshRun) verifyCarried(find func(path string) *Record, total int) {
	states := make([]State, len(r.targets))
	fresh := make([]Tier, len(r.targets))
	mtimes := make([]int64, len(r.targets))
	k, ids := matchTargetsBy(find, total, r.targets, r.gateCheck(states, fresh, mtimes))
	for i := range r.targets {
		switch {
		case k.recs[i] != r.known.recs[i]:
			panic("carried gate: target " + r.targets[i].Path + ": another record")
		case fresh[i] != r.fresh[i]:
			panic("carried gate: target " + r.targets[i].Path + ": another fresh tier")
		case mtimes[i] != r.ids.mtimes[i]:
			panic("carried gate: target " + r.targets[i].Path + ": another mtime")
		case states[i].Path != r.rep.States[i].Path:
			panic("carried gate: target " + r.targets[i].Path + ": another state path")
		case ids.at(i) != r.ids.at(i) || (ids.err(i) == nil) != (r.ids.err(i) == nil):
			panic("carried gate: target " + r.targets[i].Path + ": another identity")
		}
	}
	if k.listed != r.known.listed || k.total != r.known.total {
		panic("carried gate: another count of listed records")
	}
}
