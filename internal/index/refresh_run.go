package index

import (
	"bytes"
	"context"
	"errors"
	"hash/maphash"
	"io/fs"
	"math/bits"
	"runtime"
	"slices"
	"sort"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/memidx/memidx/internal/coverage"
	"github.com/memidx/memidx/internal/indexfile"
	"github.com/memidx/memidx/internal/jsjson"
	"github.com/memidx/memidx/internal/lexicon"
	"github.com/memidx/memidx/internal/lineage"
	"github.com/memidx/memidx/internal/normalize"
	"github.com/memidx/memidx/internal/session/confine"
)

// The phases of one Refresh, in order: load the stored records (load),
// take the targets' identities and the hot tier (stat), decide what is
// stale (decide), spend the budgets (budget), read and build in parallel
// (build), and write in batches (writer).

// refreshRun is one Refresh call: what it was asked, what it found, and
// the report it fills.
type refreshRun struct {
	// ahead bounds the results the workers finished ahead of their taker
	// (build).
	ahead *aheadBudget
	// roots holds the session roots open while the workers read (one
	// resolution of each root a run, not one a file).
	roots   *confine.Held
	ix      *Index
	ctx     context.Context
	opt     RefreshOptions
	mode    lineage.Mode
	targets []Target
	// live is the live branch the run builds its live target under, as
	// its mode reads it (liveIn).
	live    LiveBranch
	rep     *Report
	reasons coverage.Set

	known *knownSessions
	ids   *targetIDs // fresh identities of the targets
	hot   []bool     // by target
	// fresh[i] is the tier the stored record of target i is current for
	// (its source unchanged and not racy, its policy and live view the
	// run's; 0: none).
	fresh []Tier
	// roster is the stored hot roster; newRoster, when set, replaces it
	// with the next write (an Archive refresh that ranked another one).
	roster    []recentSession
	hasRoster bool
	newRoster []recentSession
	// The two policy strings, built once, not once a target.
	hotPolicy, coldPolicy policyNum
	// partial: the stored records are the manifest's (see Preload);
	// held is what they took as they were read (loaded.held).
	partial bool
	held    int64
	// gate, when set, holds the stored records by key (gateTable): stored
	// is empty then.
	gate *gateTable
	// base is what the stored records were loaded as (patchDecoded).
	base loaded
	// loadOK: the stored records are base's, read without error (a run
	// may carry a kept gate's answers: carry.go).
	loadOK bool
}

// job is a target to read, for a tier.
type job struct {
	i    int
	tier Tier
}

// result is what building a job gave.
type result struct {
	i     int
	b     *built
	fresh *Record // a racy record whose hash still matched
	err   error
	// ahead is what the result took of the run's aheadBudget: given back
	// once it is taken (refreshRun.taken).
	ahead int64
}

// taken gives back what res took of the results-ahead budget.
func (r *refreshRun) taken(res result) {
	if res.ahead > 0 {
		r.ahead.release(res.ahead)
	}
}

func (ix *Index) newRun(ctx context.Context, targets []Target, opt RefreshOptions) *refreshRun {
	mode := opt.Mode
	if mode == "" {
		mode = lineage.Active
	}
	return &refreshRun{
		ix: ix, ctx: ctx, opt: opt, mode: mode, targets: targets, live: liveIn(mode, opt.Live),
		rep:       &Report{Seen: len(targets)}, // States: see stat
		hotPolicy: ix.policyOf(Hot, mode), coldPolicy: ix.policyOf(Cold, mode),
	}
}

// load returns the stored records of the mode and the keys of those that
// did not decode. An index that cannot be read is no error: the run builds
// from the sources, and coverage says why.
func (r *refreshRun) load() (map[string]*Record, [][]byte, error) {
	ix := r.ix
	got, err := ix.records(r.ctx, r.mode, r.opt.Preloaded)
	stored, bad := got.stored, got.bad
	r.partial, r.held, r.gate = got.partial, got.held, got.gate
	r.base = got
	r.roster, r.hasRoster = got.roster, got.hasRoster
	r.rep.LexEpoch = got.epoch
	if err == nil && got.atKnown {
		r.rep.readAt, r.rep.readAtKnown = got.at, true
	}
	switch {
	case errors.Is(err, indexfile.ErrCorrupt):
		// Derived data: drop it and rebuild from the sources. A file that
		// cannot even be removed leaves the index unusable, which coverage
		// says; the call still answers.
		switch rerr := ix.store.Reset(); {
		case rerr == nil:
			r.reasons.Add(IndexReset)
		case errors.Is(rerr, indexfile.ErrForeign):
			ix.foreign(r.rep, &r.reasons) // replaced meanwhile
		case errors.Is(rerr, indexfile.ErrLocked):
			r.reasons.Add(IndexBusy) // held by another process (Reset waits for its lock)
		default:
			r.reasons.Add(IndexUnwritable)
		}
		return map[string]*Record{}, nil, nil
	case errors.Is(err, indexfile.ErrForeign):
		// Not memidx's file: never written nor deleted. Build from the
		// sources as for an unreadable index; the writes fail the same
		// way and the caller answers from what was built.
		ix.foreign(r.rep, &r.reasons)
		return map[string]*Record{}, bad, nil
	case errors.Is(err, indexfile.ErrLocked):
		r.reasons.Add(IndexBusy)
		return map[string]*Record{}, bad, nil
	case errors.Is(err, indexfile.ErrUnreadable):
		// Not ours to delete: build from the sources; the write will fail
		// too (index_unwritable) and the caller answers from memory.
		r.reasons.Add(IndexUnreadable)
		return map[string]*Record{}, bad, nil
	case err != nil:
		return nil, nil, err
	}
	r.loadOK = true
	return stored, bad, nil
}

// stat takes the targets' fresh identities (the listing's, or a stat) and
// ranks the hot tier.
func (r *refreshRun) stat(stored map[string]*Record) {
	// Made here, after a kept quiet refresh did not answer: that answer
	// shares its own.
	r.rep.States = make([]State, len(r.targets))
	r.fresh = make([]Tier, len(r.targets))
	find, total := func(p string) *Record { return stored[p] }, len(stored)
	if r.gate != nil {
		find, total = r.gate.find, r.gate.len()
	}
	mtimes := make([]int64, len(r.targets))
	check := r.gateCheck(r.rep.States, r.fresh, mtimes)
	g, replaced, carried := r.ix.carry.base(r)
	if carried {
		r.known, r.ids = r.matchCarried(g, replaced, mtimes, func(i int, k *knownSessions, taken *targetIDs) bool {
			return matchOne(i, r.targets, find, k, taken, check)
		}, total)
	} else {
		r.known, r.ids = matchTargetsBy(find, total, r.targets, check)
	}
	r.ids.mtimes = mtimes
	if r.gate != nil && !r.partial {
		stored = r.unkeyGate(r.known)
	}
	r.keepMatched()
	if carried && verifyCarry {
		r.verifyCarried(find, total)
	}
	r.ix.carry.keep(r)
	r.known.stored = stored
	switch {
	case r.gate != nil:
		// A one-shot call's map of 100k paths would be 3.4 MB allocated
		// for nothing when every record is a target's.
		r.ix.gatePaths(r.ctx, r.mode, r.known, r.gate, r.base.at, !r.partial || !r.known.allTargets())
		if r.partial {
			if n := len(r.known.stored); n > 0 { // the map by path, when made
				r.held += int64(n) * mapEntryBytes
				r.ix.holdRecords(r.held)
			}
			r.releaseGate()
		}
	case r.partial:
		// The manifest's copies of the paths are garbage now: the heap
		// limit no longer counts them, so the collector takes them back
		// before the search's allocations grow the heap past them
		// (13 MB of a 100k archive's ~40 MB of partial records).
		r.ix.holdRecords(r.held - sharePaths(r.known))
	}
	roster := r.roster
	if r.opt.Archive {
		roster = nil // the targets are the archive
	}
	var best []recentSession
	r.hot, best = r.ix.hotSet(r.known, r.ids, roster, r.opt.Archive)
	if r.opt.Archive && (!r.hasRoster || !sameRoster(best, r.roster)) {
		r.newRoster = rosterOf(best)
	}
}

// releaseGate lets go of a one-shot call's gate table once every record
// is matched and has its path: nothing looks a partial record up by key
// again, and the table is 2.4 MB of a 100k call's live heap while it
// searches. The preloaded records that held it are spent.
func (r *refreshRun) releaseGate() {
	r.gate, r.base.gate = nil, nil
	if pre := r.opt.Preloaded; pre != nil && pre.mode == r.mode {
		pre.spend()
	}
}

// matchTargets finds the stored record of every target and takes its fresh
// identity: the listing's stat, or a stat now; and calls check, when set,
// with each target's index, record (nil for none), identity and stat
// error, on the goroutine that matched it. It is the whole freshness gate's
// cost on an unchanged archive, one lookup a target and every one a cache
// miss, so a large archive is split between the cores.
func matchTargets(stored map[string]*Record, targets []Target, check func(i int, rec *Record, id Identity, statErr error)) (*knownSessions, *targetIDs) {
	k, ids := matchTargetsBy(func(p string) *Record { return stored[p] }, len(stored), targets, check)
	k.stored = stored
	return k, ids
}

// matchTargetsBy is matchTargets with the stored records found by find,
// total of them (known.stored is left to the caller).
func matchTargetsBy(find func(path string) *Record, total int, targets []Target, check func(i int, rec *Record, id Identity, statErr error)) (*knownSessions, *targetIDs) {
	k := &knownSessions{total: total, targets: targets, recs: make([]*Record, len(targets))}
	ids := &targetIDs{targets: targets}
	var mu sync.Mutex
	inParts(len(targets), func(lo, hi int) {
		listed := 0
		var taken targetIDs // the stats of this part's unlisted targets
		for i := lo; i < hi; i++ {
			if matchOne(i, targets, find, k, &taken, check) {
				listed++
			}
		}
		mu.Lock()
		k.listed += listed
		ids.merge(&taken)
		mu.Unlock()
	})
	return k, ids
}

// matchOne matches target i for matchTargetsBy: its record into k.recs,
// the stat it takes when it has no listed one into taken, then check. It
// reports whether the target has a stored record.
func matchOne(i int, targets []Target, find func(path string) *Record, k *knownSessions, taken *targetIDs, check func(i int, rec *Record, id Identity, statErr error)) bool {
	t := &targets[i]
	var id Identity
	var statErr error
	if t.Stat != nil {
		id = identityFrom(*t.Stat)
	} else {
		id, statErr = StatIdentity(t.Path)
		taken.put(i, id, statErr)
	}
	rec := find(t.Path)
	k.recs[i] = rec
	if check != nil {
		check(i, rec, id, statErr)
	}
	return rec != nil
}

// gateCheck is the stat gate's check of one target (matchTargetsBy): it
// names the target's state, notes the tier its record is current for,
// and copies its mtime beside the others' (hotSet ranks them all: read
// from each target's stat, a cache miss apiece).
func (r *refreshRun) gateCheck(states []State, fresh []Tier, mtimes []int64) func(i int, rec *Record, id Identity, statErr error) {
	window := r.ix.racyWindow()
	return func(i int, rec *Record, id Identity, statErr error) {
		states[i].Path = r.targets[i].Path
		mtimes[i] = id.MtimeNs
		if rec != nil && statErr == nil && r.current(rec, id, rec.Tier, r.targets[i]) && !rec.racy(window) {
			fresh[i] = rec.Tier
		}
	}
}

// targetIDs are the targets' fresh identities: the listing's stat of a
// target it stat-ed, else the stat matchTargets took, which alone are
// kept here: a listed archive keeps no second copy of its stats.
type targetIDs struct {
	targets []Target
	taken   map[int]Identity
	errs    map[int]error
	// mtimes, when set, are the identities' mtimes, by target (stat).
	mtimes []int64
}

// mtime is target i's fresh mtime.
func (t *targetIDs) mtime(i int) int64 {
	if t.mtimes != nil {
		return t.mtimes[i]
	}
	return t.at(i).MtimeNs
}

// at is target i's identity (zero when its stat failed: see err).
func (t *targetIDs) at(i int) Identity {
	if s := t.targets[i].Stat; s != nil {
		return identityFrom(*s)
	}
	return t.taken[i]
}

// err is the error of target i's stat, nil when it has an identity.
func (t *targetIDs) err(i int) error { return t.errs[i] }

func (t *targetIDs) put(i int, id Identity, err error) {
	if err != nil {
		if t.errs == nil {
			t.errs = map[int]error{}
		}
		t.errs[i] = err
		return
	}
	if t.taken == nil {
		t.taken = map[int]Identity{}
	}
	t.taken[i] = id
}

func (t *targetIDs) merge(o *targetIDs) {
	for i, id := range o.taken {
		t.put(i, id, nil)
	}
	for i, err := range o.errs {
		t.put(i, Identity{}, err)
	}
}

// minPart is the fewest items inParts gives a goroutine of its own: below
// it, starting one costs more than it saves.
const minPart = 512

// inParts calls f over consecutive parts of [0, n) that together cover it,
// on up to GOMAXPROCS goroutines, and returns when all are done.
func inParts(n int, f func(lo, hi int)) {
	parts := min(runtime.GOMAXPROCS(0), n/minPart)
	if parts <= 1 {
		f(0, n)
		return
	}
	var wg sync.WaitGroup
	for p := range parts {
		lo, hi := p*n/parts, (p+1)*n/parts
		if p == parts-1 {
			f(lo, hi) // this goroutine takes the last part
			break
		}
		wg.Go(func() { f(lo, hi) })
	}
	wg.Wait()
}

// current reports whether rec was built from a source of identity id, for
// this tier, policy and live view.
func (r *refreshRun) current(rec *Record, id Identity, tier Tier, t Target) bool {
	policy := r.coldPolicy
	if tier == Hot {
		policy = r.hotPolicy
	}
	return rec != nil && rec.Identity == id && rec.Tier == tier && rec.policy == policy &&
		rec.LiveSignature() == liveSignature(r.live.Of(t.Path))
}

// decide keeps the records that are fresh and returns the work, newest
// first, so that budgets spend themselves on what matters most.
func (r *refreshRun) decide() []job {
	var jobs []job
	for i := range r.targets {
		st := &r.rep.States[i]
		if r.ids.err(i) != nil {
			st.setReason(coverage.SourceUnavailable)
			continue
		}
		tier := Cold
		if r.hot[i] {
			tier = Hot
		}
		if r.fresh[i] == tier && !r.opt.Force {
			st.Record = r.known.recs[i]
			r.rep.Unchanged++
			continue
		}
		jobs = append(jobs, job{i, tier})
	}
	if r.opt.NoBudgets {
		return r.inKeyOrder(jobs)
	}
	sort.SliceStable(jobs, func(a, b int) bool { return r.ids.at(jobs[a].i).MtimeNs > r.ids.at(jobs[b].i).MtimeNs })
	return jobs
}

// inKeyOrder orders the jobs of a run without budgets (nothing is left
// out, so no order spends them better) by their record keys. Record keys
// are hashes: a batch written in any other order puts its records all
// over the records and manifest buckets, and bbolt rewrites a whole page
// for each (at 100k sessions 1.5 GB of page copies for a 170 MB file).
// In key order each batch's keys follow the last batch's, and a write
// appends to the buckets' last pages.
func (r *refreshRun) inKeyOrder(jobs []job) []job {
	sums := make([][gateSumLen]byte, len(jobs))
	for k, j := range jobs {
		sums[k] = gateSumOf(bytesOf(r.targets[j.i].Path))
	}
	order := make([]int, len(jobs))
	for k := range order {
		order[k] = k
	}
	// Stable: a target listed twice keeps its order (the later build wins).
	slices.SortStableFunc(order, func(a, b int) int { return bytes.Compare(sums[a][:], sums[b][:]) })
	sorted := make([]job, len(jobs))
	for k, o := range order {
		sorted[k] = jobs[o]
	}
	return sorted
}

// budget charges the jobs against the sync budgets (only real reads are
// charged; a rebuild has none). The session budget stops the work; a
// session whose bytes do not fit what is left of the byte budget is
// skipped with its reason and the older ones still get their turn, so that
// one oversized session (the newest, say) never keeps every other one
// from being indexed.
func (r *refreshRun) budget(jobs []job) []job {
	if r.opt.NoBudgets {
		return jobs
	}
	cfg := r.ix.cfg
	var n int
	var bytes int64
	kept := jobs[:0]
	for _, j := range jobs {
		skip := ""
		switch {
		case n >= cfg.MaxSyncSessions:
			skip = coverage.MaxSyncSessions
		case bytes+r.ids.at(j.i).Size > int64(cfg.MaxSyncSourceBytes):
			skip = coverage.MaxSyncSourceBytes
		}
		if skip != "" {
			r.rep.States[j.i].setReason(skip)
			r.reasons.Add(skip)
			// A stale record still answers for what it had; it is
			// counted stale by Recount.
			continue
		}
		n++
		bytes += r.ids.at(j.i).Size
		kept = append(kept, j)
	}
	return kept
}

// resultsAhead is how many results the workers may finish ahead of the
// goroutine that takes them: it gathers a batch's lexicon segment when
// the batch is full (tens of ms at 100k sessions), and with nowhere to
// put their results the workers stood idle meanwhile. A result's memory
// no longer counts against maxBuildBytes once built, so what waits is
// bounded by its sources' size too (a result holds about its source's
// size or less): resultsAheadBytes, one result whatever its size.
const (
	resultsAhead      = 64
	resultsAheadBytes = 16 << 20
)

// aheadBudget bounds the source bytes of the results waiting to be taken.
type aheadBudget struct {
	mu          sync.Mutex
	cond        sync.Cond
	free, total int64
}

func newAheadBudget(n int64) *aheadBudget {
	a := &aheadBudget{free: n, total: n}
	a.cond.L = &a.mu
	return a
}

// acquire waits until n bytes (at most the whole budget) are free and
// takes them; it returns what it took, for release. A worker waiting here
// is woken as the taker drains the results before it.
func (a *aheadBudget) acquire(n int64) int64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	n = min(max(n, 1), a.total)
	for a.free < n {
		a.cond.Wait()
	}
	a.free -= n
	return n
}

func (a *aheadBudget) release(n int64) {
	a.mu.Lock()
	a.free += n
	a.mu.Unlock()
	a.cond.Broadcast()
}

// build reads and builds the jobs in parallel and sends each result; the
// channel closes when all are done or the context ends.
func (r *refreshRun) build(jobs []job) <-chan result {
	ix, ctx := r.ix, r.ctx
	workers := ix.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	jobCh := make(chan job)
	resCh := make(chan result, resultsAhead)
	r.ahead = newAheadBudget(resultsAheadBytes)
	r.roots = &confine.Held{}
	var wg sync.WaitGroup
	// What the workers read and build at once is bounded by maxBuildBytes,
	// whatever the sources: each waits for its source's charge.
	gate := ix.newBuildGate()
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// One small read buffer, one parser and one normalizer's
			// scratch per worker: a build copies what it keeps, so the
			// next source can reuse the memory.
			var buf []byte
			var ps jsjson.Parser
			var scratch normalize.Scratch
			for j := range jobCh {
				ps.Recycle() // the last build is done: nothing holds its values
				res := r.buildOne(j, &buf, &ps, &scratch, gate)
				if res.b != nil {
					res.ahead = r.ahead.acquire(res.b.bytes)
				}
				select {
				case resCh <- res:
				case <-ctx.Done():
					r.taken(res) // dropped: another worker may wait for it
					return
				}
			}
		}()
	}
	go func() {
		defer close(jobCh)
		for _, j := range jobs {
			select {
			case jobCh <- j:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() {
		wg.Wait()
		r.roots.Close() // no worker opens a file any more
		close(resCh)
	}()
	return resCh
}

// buildOne reads one job's source and builds it, or vouches for its
// record when a racy source turns out unchanged.
func (r *refreshRun) buildOne(j job, buf *[]byte, ps *jsjson.Parser, scratch *normalize.Scratch, gate *buildGate) result {
	t := r.targets[j.i]
	res := result{i: j.i}
	b, src, release, readErr, err := r.ix.readAndBuild(r.ctx, r.roots, t.Path, *buf, gate, func(src *Source) (*built, error) {
		src.parser, src.scratch = ps, scratch
		if src.Changed {
			return nil, errChanged
		}
		rec := r.known.recs[j.i]
		if !r.opt.Force && r.current(rec, src.Identity, j.tier, t) && rec.SourceHash.Is(src.Hash) {
			// Racy but unchanged: vouch for it from now on (or, for a
			// source dated ahead of the clock, once this is the window
			// after its read: see racy).
			c := *rec
			c.VerifiedAtNs = time.Now().UnixNano()
			res.fresh = &c
			return nil, nil
		}
		return r.ix.build(src, r.mode, j.tier, r.live.Of(t.Path), false)
	})
	defer release()
	if readErr == nil && src.Data != nil && cap(src.Data) <= reuseMax {
		*buf = src.Data
	}
	res.b = b
	if readErr != nil {
		res.err = readErr
	} else {
		res.err = err
	}
	return res
}

// writer takes the results into the report and writes them in batches,
// with the deletes in the first write.
type writer struct {
	r          *refreshRun
	batch      []*built
	batchBytes int64
	// batchSource is the source bytes the batch was built from.
	batchSource int64
	// queued counts the batches handed to the write goroutine.
	queued  int
	deletes [][]byte
	// scrub: the next write removes what must leave the file.
	scrub    bool
	writeErr error
	// keepUnwritten: builds the index cannot take still answer this call;
	// a rebuild (no budgets, no answer) must not hold a whole scope in
	// memory for nothing.
	keepUnwritten bool
	// gatherer gathers each batch's lexicon segment ahead of its write,
	// with the memory of the batches written before.
	gatherer lexicon.Gatherer
	// A rebuild hands each full batch to a goroutine that writes it while
	// the workers build the next (the single writer was a third of a
	// rebuild's time, with the workers idle); at most one batch is being
	// written while the next fills. The outcome is taken by stop.
	queue   chan pendingWrite
	stopped chan asyncOutcome
	// commits counts this run's own write transactions; inOrder is set
	// while each came right after the one before, the first right after
	// the commit the records were read at; epochAfter is the lexicon
	// epoch after the last (see adoptEpoch).
	commits    int
	lastTx     int
	inOrder    bool
	epochAfter LexiconEpoch
	// lastFile is the file (device and inode) the last write went to.
	lastFile Identity
	// wasSole: the last write was sole (see sole).
	wasSole bool
	// docsLive: every doc of the mode's lexicon was named by a record
	// after the last write, as docsStayLive proved it.
	docsLive bool
	// standIn is the record of the states of a Summary refresh's written
	// complete sessions: one for all, holding nothing.
	standIn *Record
	// touched are the record keys this run's committed writes put or
	// deleted, with their paths (patchDecoded); deletedPaths maps the
	// key of each orphan among the deletes to its path.
	touched      []touch
	deletedPaths map[string]string
	// fileAfter is the index file's identity right after the last write
	// (zero when it could not be stat-ed).
	fileAfter Identity
	// unwritten are the states of the records a rebuild built whose write
	// failed (or was dropped after one did): the index does not hold them.
	unwritten []int
}

// pendingWrite is one transaction's worth: a batch, the deletes and
// roster that go with it, and whether it must scrub.
type pendingWrite struct {
	batch   []*built
	deletes [][]byte
	scrub   bool
	roster  []recentSession
	// lex is the batch's lexicon segment gathered ahead, or nil.
	lex *lexiconBatch
}

// asyncOutcome is what the write goroutine did.
type asyncOutcome struct {
	err       error
	wrote     bool
	removed   int
	unwritten []int
}

func (r *refreshRun) newWriter(deletes [][]byte) *writer {
	w := &writer{r: r, deletes: deletes, scrub: len(deletes) > 0, keepUnwritten: !r.opt.NoBudgets, standIn: &Record{}}
	if r.opt.NoBudgets {
		w.queue, w.stopped = make(chan pendingWrite), make(chan asyncOutcome, 1)
		go w.writeLoop()
	}
	return w
}

// writeLoop writes the queued transactions in order; after a failure it
// drops the rest, as a rebuild does.
func (w *writer) writeLoop() {
	var out asyncOutcome
	for p := range w.queue {
		if out.err == nil {
			out.wrote = true
			out.err = w.commit(p)
			if p.lex != nil {
				// Written or not, the gathered keys are done with.
				w.gatherer.Recycle(p.lex.gathered)
			}
			if out.err == nil {
				out.removed += len(p.deletes)
				continue
			}
		}
		out.unwritten = appendUnwritten(out.unwritten, p.batch)
	}
	w.stopped <- out
}

// stop ends the write goroutine, once, and takes its outcome.
func (w *writer) stop() {
	if w.queue == nil {
		return
	}
	close(w.queue)
	out := <-w.stopped
	w.queue = nil
	if out.wrote {
		w.r.rep.wrote = true
	}
	w.r.rep.Removed += out.removed
	w.unwritten = append(w.unwritten, out.unwritten...)
	if out.err != nil && w.writeErr == nil {
		w.writeErr = out.err
	}
}

// take records one result in its target's state and queues what it built.
func (w *writer) take(res result) {
	rep := w.r.rep
	st := &rep.States[res.i]
	switch {
	case res.err != nil:
		st.setReason(buildReason(res.err))
	case res.fresh != nil:
		st.Record = res.fresh
		rep.Unchanged++
		w.batch = append(w.batch, &built{rec: res.fresh, state: res.i})
	default:
		if old := w.r.known.recs[res.i]; old != nil && dropsText(old, res.b.rec) {
			w.scrub = true // what the old record held leaves the file as if deleted
		}
		res.b.unstored = w.r.known.recs[res.i] == nil
		res.b.state = res.i
		st.Record = res.b.rec
		st.markRebuilt()
		rep.Rebuilt++
		rep.BytesRead += res.b.bytes
		w.batch = append(w.batch, res.b)
		w.batchBytes += res.b.rec.CacheBytes()
		w.batchSource += res.b.bytes
	}
	if w.batchFull() {
		w.flush()
	}
}

// A refresh writes batches of batchSessions, so that what it built soon
// answers another process. A rebuild writes larger ones when its sessions
// are small, since each write costs a transaction, a sync and a lexicon
// segment that merges rewrite later (at a few KB a session those, not the
// sessions, were a rebuild's time): batchSessions or more, until they were
// built from rebuildBatchSource bytes, and at most rebuildBatchSessions.
// The source bound keeps a batch's segment, and so the merges it takes
// part in, the size of a batch of some 160 sessions of 100 KB: a merge
// holds several times its output, and batches of 1,024 such sessions
// raised the 10k archive's rebuild from 190 to 270 MiB. 16 MiB rather
// than 4: at 100k sessions (17 KB each) a batch of ~1,000 sessions
// instead of ~250, a quarter of the segments and commits (the 10k
// rebuild 7.4 -> 6.8 s, its peak RSS 155 -> 173 MiB; the 100k one's
// 234 -> 220). Every batch is bounded by maxBatchBytes too.
const (
	batchSessions        = 64
	rebuildBatchSessions = 1024
	rebuildBatchSource   = 16 << 20
)

// batchFull reports whether the batch is to be written now.
func (w *writer) batchFull() bool {
	n := len(w.batch)
	switch {
	case w.batchBytes >= w.maxBatchBytes():
		return true
	case w.queue == nil: // a refresh
		return n >= batchSessions
	}
	return n >= w.rebuildBatchCap() || (n >= batchSessions && w.batchSource >= rebuildBatchSource)
}

// rebuildBatchCap is the most sessions the next rebuild batch holds: the
// first holds batchSessions, each next one twice the one before, up to
// rebuildBatchSessions, so that a rebuild writes what it built as soon as
// a refresh does (an index that fills its disk keeps its first batches:
// in record-key order, so a rebuild cut short keeps sessions of every
// age, not the newest; see inKeyOrder).
func (w *writer) rebuildBatchCap() int {
	return batchSessions << min(w.queued, bits.Len(rebuildBatchSessions/batchSessions)-1)
}

// maxBatchBytes bounds the tier data one write holds: 64 MiB, or 32 MiB
// when one batch is being written while the next fills.
func (w *writer) maxBatchBytes() int64 {
	if w.queue != nil {
		return 32 << 20
	}
	return 64 << 20
}

// buildReason is the coverage reason of a source that could not be built.
func buildReason(err error) string {
	switch {
	case errors.Is(err, errChanged):
		return coverage.SourceChangedDuringIndex
	case errors.Is(err, ErrNotSession):
		return coverage.InvalidHeader
	case errors.Is(err, ErrOverBuildBudget):
		return MaxBuildBytes
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, fs.ErrPermission):
		return coverage.SourceUnavailable
	}
	return coverage.IndexError
}

// flush writes the queued batch and deletes in one transaction (a
// rebuild hands it to the write goroutine).
func (w *writer) flush() {
	if w.writeErr != nil && !w.keepUnwritten {
		w.unwritten = appendUnwritten(w.unwritten, w.batch)
		w.batch, w.batchBytes, w.batchSource, w.deletes = w.batch[:0], 0, 0, nil
	}
	if (len(w.batch) == 0 && len(w.deletes) == 0 && w.r.newRoster == nil) || w.writeErr != nil {
		return
	}
	p := pendingWrite{batch: w.batch, deletes: w.deletes, scrub: w.scrub, roster: w.r.newRoster}
	if w.queue != nil {
		p.lex = gatherLexicon(&w.gatherer, p.batch)
		done := w.summarized(p.batch)
		w.queue <- p
		w.queued++
		for _, i := range done {
			w.r.rep.States[i].Record = w.standIn
		}
		// The goroutine owns the batch now: fill a new one.
		w.batch, w.batchBytes, w.batchSource, w.deletes, w.scrub, w.r.newRoster = nil, 0, 0, nil, false, nil
		return
	}
	err := w.commit(p)
	w.r.rep.wrote = true // even a failed write may have moved the file on
	switch {
	case err == nil:
		w.r.rep.Removed += len(w.deletes)
		w.scrub = false
		w.r.newRoster = nil
	case w.keepUnwritten:
		w.writeErr = err
		return // the batch stays: its builds still answer this call
	default:
		w.writeErr = err
		w.unwritten = appendUnwritten(w.unwritten, w.batch)
	}
	w.batch, w.batchBytes, w.batchSource, w.deletes = w.batch[:0], 0, 0, nil
}

// summarized lists the states of batch whose records a Summary refresh
// lets go of once the batch is handed to the write goroutine: the
// complete ones (an incomplete one keeps its reasons for the report). It
// reads the records before the write goroutine owns them.
func (w *writer) summarized(batch []*built) []int {
	if !w.r.opt.Summary {
		return nil
	}
	out := make([]int, 0, len(batch))
	for _, b := range batch {
		if b.rec.Complete() {
			out = append(out, b.state)
		}
	}
	return out
}

// appendUnwritten appends the states of the sessions the batch built (not
// those it only vouched for: their stored records stand).
func appendUnwritten(states []int, batch []*built) []int {
	for _, b := range batch {
		if b.hot != nil || b.cold != nil {
			states = append(states, b.state)
		}
	}
	return states
}

// commit writes p in one transaction.
func (w *writer) commit(p pendingWrite) error {
	ix, mode := w.r.ix, w.r.mode
	update := ix.store.Update
	if p.scrub {
		update = ix.store.UpdateScrub
	}
	touched := w.touchesOf(p)
	if beforeCommit != nil {
		beforeCommit()
	}
	allLive := false
	err := update(w.r.ctx, func(tx *bolt.Tx) error {
		before := lexiconEpoch(tx, mode)
		sole := w.sole(tx)
		allLive = w.docsStayLive(tx, p, sole)
		for _, k := range p.deletes {
			if err := deleteSession(tx, k); err != nil {
				return err
			}
		}
		if err := writeBuilt(tx, mode, p.batch, p.lex, sole); err != nil {
			return err
		}
		if p.roster != nil {
			if err := writeRoster(tx, p.roster); err != nil {
				return err
			}
		}
		// A removed session's words, and what a changed policy no longer
		// indexes, leave the lexicon too (and then the file, with the
		// scrub).
		live := w.liveFromKept(tx, touched)
		if allLive {
			live = func() docSet { return everyDoc{} }
		}
		if err := mergeAfterWrite(tx, mode, p.deletes, p.scrub, live); err != nil {
			return err
		}
		w.sawCommit(tx, before)
		w.wasSole = sole
		// The commit copies every changed page, faulting each in again:
		// let go of the rest first.
		dropMapped(tx)
		return nil
	})
	w.docsLive = err == nil && allLive
	if err == nil {
		w.touched = append(w.touched, touched...)
		// The file as this write left it: a write to it that is not a
		// commit (damage) moves its ctime, and the records are then not
		// patched (patchDecoded; a zero identity, when the stat fails,
		// matches no file).
		w.fileAfter, _ = StatIdentity(ix.store.Path())
	}
	return err
}

// beforeCommit, set by tests, runs before each write transaction.
var beforeCommit func()

// touchesOf is the record keys p puts or deletes, with their paths.
func (w *writer) touchesOf(p pendingWrite) []touch {
	out := make([]touch, 0, len(p.deletes)+len(p.batch))
	for _, k := range p.deletes {
		out = append(out, touch{key: k, path: w.deletedPaths[string(k)]})
	}
	for _, b := range p.batch {
		out = append(out, touch{key: recordKey(w.r.mode, b.rec.Path), path: b.rec.Path})
	}
	return out
}

// sawCommit follows this run's own write transactions (see adoptEpoch):
// each must come right after the one before (the first after the commit
// the records were read at), start from the lexicon the one before left
// (the first from the records' own: the same file), and not reset it (a
// reset gives the lexicon a new id and drops the records it numbered).
//
// Each must also go to the same file: a compaction puts a new file in the
// old one's place whose transaction ids start again from the beginning,
// so an id that follows on proves nothing there.
func (w *writer) sawCommit(tx *bolt.Tx, before LexiconEpoch) {
	prev, from, file := w.lastTx, w.epochAfter, w.lastFile
	if w.commits == 0 {
		prev, from, file = w.r.rep.readAt.txid, w.r.rep.LexEpoch, w.r.rep.readAt.file
		w.inOrder = w.r.rep.readAtKnown
	}
	after := lexiconEpoch(tx, w.r.mode)
	now, ok := w.r.ix.commitOf(tx)
	w.inOrder = w.inOrder && ok && sameFile(now.file, file) && tx.ID() == prev+1 && before == from && after.ID == before.ID
	w.commits++
	w.lastTx = tx.ID()
	w.epochAfter = after
	w.lastFile = now.file
}

// sole reports whether, as tx starts, the file holds the sessions of the
// run's mode as the run found them, changed only by the run's own writes:
// it had none of them (a new file), or the run read every stored record
// (clean: each under its own path's key) at the commit right before its
// first write, and each write came right after the one before, to the
// same file. A session the run found no record for then has none, nor a
// manifest entry or pack (a delete in the same write clears what did
// not decode), and writeBuilt does not look: two lookups a session, each
// faulting in a leaf of a large bucket, a twentieth of a 100k rebuild.
//
// The file must be the very one (its whole identity: a file put in its
// place may get its inode back, and its transaction ids may follow on),
// and no session the run found no record for may be its target twice
// (its second write would find the first's record).
func (w *writer) sole(tx *bolt.Tx) bool {
	now, ok := w.r.ix.commitOf(tx)
	if w.commits > 0 {
		return w.wasSole && ok && tx.ID() == w.lastTx+1 && now.file == w.fileAfter
	}
	if !distinctUnstored(w.r.known) {
		return false
	}
	if tx.Bucket(recordsBucket) == nil && tx.Bucket(manifestBucket) == nil {
		return true
	}
	r := w.r
	base := r.base
	return ok && r.loadOK && r.rep.readAtKnown && base.clean && !base.partial && base.gate == nil &&
		tx.ID() == r.rep.readAt.txid+1 && now.file == r.rep.readAt.file
}

// docsStayLive reports whether every doc of the mode's lexicon is named
// by a record once p is written, known without reading the records: a
// run that starts a new lexicon (the mode has no segment when it first
// writes) with sole writes (each follows on from the one before, no
// session it writes had a record, and none is its target twice: see
// distinctUnstored) and never deletes or scrubs leaves no doc dead. Its
// merges then filter nothing, and need not read every record to learn
// so: a 100k rebuild's merges read the records written so far some fifty
// times (1.2 of its 37 CPU-seconds).
func (w *writer) docsStayLive(tx *bolt.Tx, p pendingWrite, sole bool) bool {
	if !sole || len(p.deletes) > 0 || p.scrub || (w.commits > 0 && !w.docsLive) {
		return false
	}
	if lb := tx.Bucket(lexiconBucket); w.commits == 0 && lb != nil {
		if keys, err := segmentList(lb, w.r.mode); err != nil || len(keys) > 0 {
			return false
		}
	}
	for _, b := range p.batch {
		if (b.hot != nil || b.cold != nil) && !b.unstored {
			return false // it replaces a record, whose doc dies
		}
	}
	return true
}

// distinctUnstored reports whether no two of the targets the run found
// no record for (those a sole write skips the lookups of) name the same
// path, by their hashes (a collision only costs those lookups). A
// rebuild into a new file hashes every path once (0.8 MB and a few ms at
// 100k sessions); a server's call that rewrites a grown session, none.
func distinctUnstored(k *knownSessions) bool {
	seed := maphash.MakeSeed()
	var sums []uint64
	for i, rec := range k.recs {
		if rec == nil {
			sums = append(sums, maphash.String(seed, k.targets[i].Path))
		}
	}
	slices.Sort(sums)
	for i := 1; i < len(sums); i++ {
		if sums[i] == sums[i-1] {
			return false
		}
	}
	return true
}

// sameFile reports whether two identities are of one file (its content may
// have changed).
func sameFile(a, b Identity) bool { return a.Inode == b.Inode && a.Dev == b.Dev }

// adoptEpoch gives the report the lexicon epoch its own writes left, when
// nobody else wrote between the commit its records were read at and its
// last write: its records are then the file's, and a merge in those
// writes kept every doc they name (it drops only dead ones). Otherwise the
// search that follows would find the epoch moved and open every cold
// digest, as after a merge by another process. A hot session appended to
// call after call writes a small segment each time, and every few calls
// a merge.
func (w *writer) adoptEpoch() {
	if w.writeErr == nil && w.commits > 0 && w.inOrder {
		w.r.rep.LexEpoch = w.epochAfter
	}
}

// failUnwritten takes the records the index did not take from their
// states: a rebuild keeps no builds to answer from, so those sessions are
// not indexed, and their states say why.
func (w *writer) failUnwritten(reason string) {
	rep := w.r.rep
	for _, i := range w.unwritten {
		st := &rep.States[i]
		if st.Rebuilt() {
			rep.Rebuilt-- // its bytes were read all the same
		}
		*st = FailedState(st.Path, reason, w.writeErr.Error())
	}
	w.unwritten = nil
}

// finish writes what is left. When the index could not take the writes,
// coverage says why and the states keep what was built, for this call to
// answer from; later calls redo it. Damage found while writing is the
// caller's to handle (it resets the file and tries again).
func (w *writer) finish() error {
	w.flush()
	w.stop()
	w.adoptEpoch()
	if w.writeErr == nil {
		return nil
	}
	r := w.r
	reason := IndexUnwritable // read-only, full, damaged past repair, not a file
	switch err := w.writeErr; {
	case errors.Is(err, indexfile.ErrLocked):
		reason = IndexBusy
	case errors.Is(err, indexfile.ErrForeign):
		reason = IndexForeignFile
		r.ix.foreign(r.rep, &r.reasons) // replaced since it was read
	case errors.Is(err, indexfile.ErrCorrupt):
		// A panic opening a damaged freelist, say.
		return err
	}
	r.reasons.Add(reason)
	r.rep.WriteError = w.writeErr.Error()
	w.failUnwritten(reason)
	for _, b := range w.batch {
		if b.hot != nil || b.cold != nil {
			// A digest that does not encode (it always does: its size was
			// counted from the same fields) is not kept; the session is
			// answered from its source.
			if p, err := b.public(); err == nil {
				r.rep.States[b.state].keepBuilt(p)
			}
		}
	}
	return nil
}
