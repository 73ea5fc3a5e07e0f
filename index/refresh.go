package index

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/memidx/memidx/bucket"
	"github.com/memidx/memidx/coverage"
	"github.com/memidx/memidx/lineage"
	"github.com/memidx/memidx/session"
)

// Reasons of the index itself.
const (
	// IndexBusy: another process held the index file past the lock
	// timeout; what it would have added is missing.
	IndexBusy = "index_busy"
	// IndexUnwritable: the index directory or file cannot be written.
	IndexUnwritable = "index_unwritable"
	// IndexUnreadable: the index file cannot be read (permissions); the
	// call answers from the sources.
	IndexUnreadable = "index_unreadable"
	// IndexReset: the index file was damaged or of another version and was
	// rebuilt from the sources.
	IndexReset = "index_reset"
	// IndexForeignFile: the index file is not memidx's (another program's
	// database, say); it is left untouched and the call answers from the
	// sources. Coverage's error names the file.
	IndexForeignFile = "index_foreign_file"
)

// Index is the derived index of one index directory.
type Index struct {
	cfg    Config
	policy Policy
	store  *bucket.Store
	// Workers is how many sessions are read and built at once; 0 means
	// GOMAXPROCS.
	Workers int
	// RacyWindow is how close to its indexing a source change must be for
	// the stat gate not to vouch for the record; 0 means DefaultRacyWindow.
	// Tests that rewrite files within one clock tick set it to a negative
	// value to exercise the stat gate alone.
	RacyWindow time.Duration
	// decoded are the records last decoded, per mode.
	decoded recordCache
}

// Open returns the index of cfg.IndexDir. It does not touch the disk.
func Open(cfg Config, lockTimeout time.Duration) *Index {
	return &Index{cfg: cfg, policy: PolicyOf(cfg), store: bucket.New(cfg.IndexDir, bucket.Options{LockTimeout: lockTimeout})}
}

// Store returns the underlying store.
func (ix *Index) Store() *bucket.Store { return ix.store }

// Config returns the configuration.
func (ix *Index) Config() Config { return ix.cfg }

// Target is one session file in scope.
type Target struct {
	Path string
	// Stat, when set, is a stat of Path taken moments ago (by the listing);
	// it saves stat-ing every file twice per call.
	Stat *session.FileStat
	// Live is the host's live branch when this is its current session.
	Live *lineage.Live
}

// RefreshOptions shape one refresh.
type RefreshOptions struct {
	Mode lineage.Mode
	// Searched are directories that were listed completely: a record of a
	// session under one of them that is not a target has lost its source.
	Searched []string
	// Roots are the directories that some scope lists (the sessions root,
	// the explicit session dir). A record under none of them (indexed
	// through session:<path>, or a live file elsewhere) is seen by no
	// listing, so every refresh stats its source; a record under a root
	// that this refresh did not list waits for one that does. Without
	// Roots every record is stat-ed.
	Roots []string
	// NoBudgets lifts maxSyncSessions and maxSyncSourceBytes (an explicit
	// rebuild is not a synchronous call).
	NoBudgets bool
	// Progress, when set, is called after each session is handled.
	Progress func(done, total int, bytesRead int64)
	// Preloaded, when set, is the stored records of Mode, read while the
	// caller listed the sessions (see Preload).
	Preloaded *Preloaded
}

// Preloaded is the stored records of a branch mode, read ahead.
type Preloaded struct {
	mode   lineage.Mode
	done   chan struct{}
	stored map[string]*Record
	bad    [][]byte
	epoch  LexiconEpoch
	err    error
}

// Preload starts reading the stored records of mode, so that a caller can
// list and stat the session files meanwhile (the listing waits on the
// kernel, the decoding on the processor). Records read before the listing
// are at worst older than the files: the stat gate then re-reads more,
// never less.
func (ix *Index) Preload(ctx context.Context, mode lineage.Mode) *Preloaded {
	p := &Preloaded{mode: mode, done: make(chan struct{})}
	go func() {
		defer close(p.done)
		p.stored, p.bad, p.epoch, p.err = ix.loadRecordsAt(ctx, mode)
	}()
	return p
}

// records returns the stored records of mode: preloaded, or read now.
func (ix *Index) records(ctx context.Context, mode lineage.Mode, pre *Preloaded) (map[string]*Record, [][]byte, LexiconEpoch, error) {
	if pre == nil || pre.mode != mode {
		return ix.loadRecordsAt(ctx, mode)
	}
	select {
	case <-pre.done:
		return pre.stored, pre.bad, pre.epoch, pre.err
	case <-ctx.Done():
		return nil, nil, LexiconEpoch{}, ctx.Err()
	}
}

// State is what a refresh left for one target.
type State struct {
	Path string
	// Record is the session's current record, nil when it has none (a
	// budget, an unreadable source, a failed build).
	Record *Record
	// Rebuilt is true when this refresh read the source.
	Rebuilt bool
	// Reason says why there is no current record.
	Reason string
	// Built is the record's tier data when this refresh built it but the
	// index could not take it (unwritable, busy): the caller answers from
	// it instead of reading the source again.
	Built *Built
}

// Coverage is the index part of an answer's coverage.
type Coverage struct {
	Complete           bool     `json:"complete"`
	IndexedSessions    int      `json:"indexedSessions"`
	EligibleSessions   int      `json:"eligibleSessions"`
	StaleSessions      int      `json:"staleSessions"`
	IncompleteSessions int      `json:"incompleteSessions"`
	Reasons            []string `json:"reasons"`
	// Error explains a reason that needs the user: a foreign index file.
	Error *coverage.Error `json:"error,omitempty"`
}

// Report is the outcome of a refresh.
type Report struct {
	Seen      int           `json:"seen"`
	Indexed   int           `json:"indexed"`
	Unchanged int           `json:"unchanged"`
	Rebuilt   int           `json:"rebuilt"`
	Removed   int           `json:"removed"`
	BytesRead int64         `json:"bytesRead"`
	Seconds   float64       `json:"seconds"`
	Coverage  Coverage      `json:"coverage"`
	States    []State       `json:"-"`
	Elapsed   time.Duration `json:"-"`
	// LexEpoch is the archive lexicon's merge epoch when the records were
	// read: a lexicon merged since may have dropped their docs.
	LexEpoch LexiconEpoch `json:"-"`
	// reasons are the refresh's own (budgets, a busy or reset index).
	reasons coverage.Set
	// indexErr is the index file's problem that coverage reports.
	indexErr *coverage.Error
}

// Recount computes Coverage from the states (a caller that replaces a
// state's record, say with a fresh read of the source, calls it again). A
// session without a current record is stale: its old record is never
// served, because its text may contradict the source.
func (rep *Report) Recount() {
	reasons := rep.reasons
	cov := Coverage{EligibleSessions: len(rep.States)}
	for i := range rep.States {
		st := &rep.States[i]
		if st.Record == nil {
			if st.Reason != "" {
				reasons.Add(st.Reason)
			}
			continue
		}
		cov.IndexedSessions++
		if !st.Record.Complete() {
			cov.IncompleteSessions++
			for _, r := range st.Record.Reasons {
				reasons.Add(r)
			}
		}
	}
	cov.StaleSessions = cov.EligibleSessions - cov.IndexedSessions
	cov.Reasons = reasons.Reasons()
	cov.Complete = reasons.Complete() && cov.StaleSessions == 0 && cov.IncompleteSessions == 0
	cov.Error = rep.indexErr
	rep.Coverage = cov
	rep.Indexed = cov.IndexedSessions
}

// Refresh brings the records of targets up to date in opt.Mode: a stat gate
// decides what to re-read; changed, new, re-tiered and policy-changed
// sessions are rebuilt (newest first, under the work budgets); records of
// sessions whose sources are gone from a searched directory are removed.
// It returns the state of every target, in order.
func (ix *Index) Refresh(ctx context.Context, targets []Target, opt RefreshOptions) (*Report, error) {
	start := time.Now()
	rep := &Report{Seen: len(targets), States: make([]State, len(targets))}
	var reasons coverage.Set
	mode := opt.Mode
	if mode == "" {
		mode = lineage.Active
	}

	stored, bad, epoch, err := ix.records(ctx, mode, opt.Preloaded)
	rep.LexEpoch = epoch
	switch {
	case errors.Is(err, bucket.ErrCorrupt):
		// Derived data: drop it and rebuild from the sources. A file that
		// cannot even be removed leaves the index unusable, which coverage
		// says; the call still answers.
		switch rerr := ix.store.Reset(); {
		case rerr == nil:
			reasons.Add(IndexReset)
		case errors.Is(rerr, bucket.ErrForeign):
			ix.foreign(rep, &reasons) // replaced meanwhile
		default:
			reasons.Add(IndexUnwritable)
		}
		stored, bad = map[string]*Record{}, nil
	case errors.Is(err, bucket.ErrForeign):
		// Not memidx's file: never written nor deleted. Build from the
		// sources as for an unreadable index; the writes fail the same
		// way and the caller answers from what was built.
		ix.foreign(rep, &reasons)
		stored = map[string]*Record{}
	case errors.Is(err, bucket.ErrLocked):
		reasons.Add(IndexBusy)
		stored = map[string]*Record{}
	case errors.Is(err, bucket.ErrUnreadable):
		// Not ours to delete: build from the sources; the write will fail
		// too (index_unwritable) and the caller answers from memory.
		reasons.Add(IndexUnreadable)
		stored = map[string]*Record{}
	case err != nil:
		return nil, err
	}

	// Fresh identities of the targets.
	ids := make([]Identity, len(targets))
	statErr := make([]error, len(targets))
	for i, t := range targets {
		rep.States[i].Path = t.Path
		if t.Stat != nil {
			ids[i] = identityFrom(*t.Stat)
		} else {
			ids[i], statErr[i] = StatIdentity(t.Path)
		}
	}
	known := newKnownSessions(stored, targets)
	hot := ix.hotSet(known, ids, statErr)

	// current reports whether rec was built from a source of identity id,
	// for this tier, policy and live view. The two policy strings are
	// built once, not once a target.
	hotPolicy, coldPolicy := ix.policy.String(Hot, mode), ix.policy.String(Cold, mode)
	current := func(rec *Record, id Identity, tier string, t Target) bool {
		policy := coldPolicy
		if tier == Hot {
			policy = hotPolicy
		}
		return rec != nil && rec.Identity == id && rec.Tier == tier && rec.Policy == policy &&
			rec.LiveSignature == liveSignature(liveFor(mode, t.Live))
	}

	// Decide what is fresh; collect the work.
	type job struct {
		i    int
		tier string
	}
	var jobs []job
	for i, t := range targets {
		st := &rep.States[i]
		if statErr[i] != nil {
			st.Reason = coverage.SourceUnavailable
			continue
		}
		rec := known.recs[i]
		tier := Cold
		if hot[t.Path] {
			tier = Hot
		}
		if current(rec, ids[i], tier, t) && !rec.racy(ix.racyWindow()) {
			st.Record = rec
			rep.Unchanged++
			continue
		}
		jobs = append(jobs, job{i, tier})
	}
	// Newest first, so that budgets spend themselves on what matters most.
	sort.SliceStable(jobs, func(a, b int) bool { return ids[jobs[a].i].MtimeNs > ids[jobs[b].i].MtimeNs })

	// Budgets: only real reads are charged. The session budget stops the
	// work; a session whose bytes do not fit what is left of the byte
	// budget is skipped with its reason and the older ones still get
	// their turn, so that one oversized session (the newest, say) never
	// keeps every other one from being indexed.
	if !opt.NoBudgets {
		var n int
		var bytes int64
		kept := jobs[:0]
		for _, j := range jobs {
			skip := ""
			switch {
			case n >= ix.cfg.MaxSyncSessions:
				skip = coverage.MaxSyncSessions
			case bytes+ids[j.i].Size > int64(ix.cfg.MaxSyncSourceBytes):
				skip = coverage.MaxSyncSourceBytes
			}
			if skip != "" {
				rep.States[j.i].Reason = skip
				reasons.Add(skip)
				// A stale record still answers for what it had; it is
				// counted stale below.
				continue
			}
			n++
			bytes += ids[j.i].Size
			kept = append(kept, j)
		}
		jobs = kept
	}

	// Orphans: records whose source is gone, and records that did not
	// decode. They go with the first write, which then scrubs the file.
	deletes := append(bad, ix.orphans(ctx, known, mode, opt, &reasons)...)
	scrub := len(deletes) > 0

	// Build in parallel, write in batches.
	workers := ix.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	type result struct {
		i     int
		b     *built
		fresh *Record // a racy record whose hash still matched
		err   error
	}
	jobCh := make(chan job)
	resCh := make(chan result)
	var wg sync.WaitGroup
	// What the workers read and build at once is bounded by maxBuildBytes,
	// whatever the sources: each waits for its source's charge.
	gate := newBuildGate(int64(ix.cfg.MaxBuildBytes))
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// One small read buffer per worker: a build copies what it
			// keeps, so the next source can reuse the memory.
			var buf []byte
			for j := range jobCh {
				t := targets[j.i]
				r := result{i: j.i}
				src, release, err := readSourceInto(ctx, t.Path, buf, gate)
				if err == nil && cap(src.Data) <= reuseMax {
					buf = src.Data
				}
				switch {
				case err != nil:
					r.err = err
				case src.Changed:
					r.err = errChanged
				default:
					rec := known.recs[j.i]
					if current(rec, src.Identity, j.tier, t) && rec.SourceHash == src.Hash {
						// Racy but unchanged: vouch for it from now on.
						c := *rec
						c.IndexedAtNs = time.Now().UnixNano()
						r.fresh = &c
					} else {
						r.b, r.err = ix.build(src, mode, j.tier, t.Live, false)
					}
				}
				src = nil
				release()
				select {
				case resCh <- r:
				case <-ctx.Done():
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
	go func() { wg.Wait(); close(resCh) }()

	var batch []*built
	var batchBytes int64
	var writeErr error
	// keepUnwritten: builds the index cannot take still answer this call;
	// a rebuild (no budgets, no answer) must not hold a whole scope in
	// memory for nothing.
	keepUnwritten := !opt.NoBudgets
	flush := func() {
		if writeErr != nil && !keepUnwritten {
			batch, batchBytes, deletes = batch[:0], 0, nil
		}
		if (len(batch) == 0 && len(deletes) == 0) || writeErr != nil {
			return
		}
		update := ix.store.Update
		if scrub {
			update = ix.store.UpdateScrub
		}
		err := update(ctx, func(tx *bolt.Tx) error {
			for _, k := range deletes {
				if err := deleteSession(tx, k); err != nil {
					return err
				}
			}
			if err := writeBuilt(tx, mode, batch); err != nil {
				return err
			}
			// A removed session's words, and what a changed policy no
			// longer indexes, leave the lexicon too (and then the file,
			// with the scrub).
			return mergeAfterWrite(tx, mode, deletes, scrub)
		})
		switch {
		case err == nil:
			rep.Removed += len(deletes)
			scrub = false
		case keepUnwritten:
			writeErr = err
			return // the batch stays: its builds still answer this call
		default:
			writeErr = err
		}
		batch, batchBytes, deletes = batch[:0], 0, nil
	}
	done := 0
	for r := range resCh {
		done++
		st := &rep.States[r.i]
		switch {
		case r.err != nil:
			if errors.Is(r.err, errChanged) {
				st.Reason = coverage.SourceChangedDuringIndex
			} else if errors.Is(r.err, ErrNotSession) {
				st.Reason = coverage.InvalidHeader
			} else if errors.Is(r.err, ErrOverBuildBudget) {
				st.Reason = MaxBuildBytes
			} else if errors.Is(r.err, fs.ErrNotExist) || errors.Is(r.err, fs.ErrPermission) {
				st.Reason = coverage.SourceUnavailable
			} else {
				st.Reason = coverage.IndexError
			}
		case r.fresh != nil:
			st.Record = r.fresh
			rep.Unchanged++
			batch = append(batch, &built{rec: r.fresh})
		default:
			if old := known.recs[r.i]; old != nil && old.Tier == r.b.rec.Tier && old.Policy != r.b.rec.Policy {
				// The policy changed (thinking or tool output no longer
				// indexed, say): what the old record held must leave the
				// file as if deleted.
				scrub = true
			}
			st.Record = r.b.rec
			st.Rebuilt = true
			rep.Rebuilt++
			rep.BytesRead += r.b.bytes
			batch = append(batch, r.b)
			batchBytes += r.b.rec.CacheBytes
		}
		if len(batch) >= 64 || batchBytes >= 64<<20 {
			flush()
		}
		if opt.Progress != nil {
			opt.Progress(done, len(jobs), rep.BytesRead)
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	flush()
	if writeErr != nil {
		switch {
		case errors.Is(writeErr, bucket.ErrLocked):
			reasons.Add(IndexBusy)
		case errors.Is(writeErr, bucket.ErrForeign):
			ix.foreign(rep, &reasons) // replaced since it was read
		case errors.Is(writeErr, bucket.ErrCorrupt):
			// Damage found while writing (a panic opening a damaged
			// freelist): the caller resets the file and tries again.
			return nil, writeErr
		default:
			// Read-only, damaged past repair, not a file: the index cannot
			// take what was built. Later calls try again.
			reasons.Add(IndexUnwritable)
		}
		// What was built is still good for this call (the states keep
		// it); later calls redo it.
		at := make(map[*Record]int, len(rep.States))
		for i := range rep.States {
			at[rep.States[i].Record] = i
		}
		for _, b := range batch {
			if i, ok := at[b.rec]; ok && (b.hot != nil || b.cold != nil) {
				rep.States[i].Built = &Built{Record: b.rec, Hot: b.hot, Cold: b.cold}
			}
		}
	}

	rep.reasons = reasons
	rep.Recount()
	rep.Elapsed = time.Since(start)
	rep.Seconds = rep.Elapsed.Seconds()
	return rep, nil
}

var errChanged = errors.New("source changed while it was read")

// foreign notes that the index file is not memidx's.
func (ix *Index) foreign(rep *Report, reasons *coverage.Set) {
	reasons.Add(IndexForeignFile)
	rep.indexErr = &coverage.Error{Code: IndexForeignFile, Message: fmt.Sprintf(
		"%s is not a memidx index file; memidx leaves it untouched and answers from the session files: "+
			"move it away or use another index directory", ix.store.Path())}
}

// orphans returns the keys of records whose source is gone: records under
// a searched directory, as that listing saw them, and records under no
// root, which no listing sees; each stat-ed, within maxCacheCleanupFiles.
// A rebuild (NoBudgets) checks the other branch mode's records too, so
// that it leaves no record without a source.
func (ix *Index) orphans(ctx context.Context, known *knownSessions, mode lineage.Mode, opt RefreshOptions, reasons *coverage.Set) [][]byte {
	// A project's refresh must not stat every other project's records.
	seenByNoListing := func(path string) bool { return len(opt.Roots) == 0 || !under(path, opt.Roots) }
	var out [][]byte
	inspected := 0
	sweep := func(recs map[string]*Record, mode lineage.Mode) {
		for path := range recs {
			if known.isTarget(path) || !(under(path, opt.Searched) || seenByNoListing(path)) {
				continue
			}
			if inspected >= ix.cfg.MaxCacheCleanupFiles {
				reasons.Add(coverage.CacheCleanupBudget)
				return
			}
			inspected++
			if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
				out = append(out, recordKey(mode, path))
			}
		}
	}
	if !known.allTargets() {
		sweep(known.stored, mode)
	}
	if opt.NoBudgets {
		other := lineage.All
		if mode == lineage.All {
			other = lineage.Active
		}
		if recs, bad, err := ix.loadRecords(ctx, other); err == nil {
			sweep(recs, other)
			out = append(out, bad...)
		}
	}
	return out
}

func (ix *Index) racyWindow() time.Duration {
	if ix.RacyWindow == 0 {
		return DefaultRacyWindow
	}
	return ix.RacyWindow
}

// under reports whether path lies in one of dirs ("" is no directory).
func under(path string, dirs []string) bool {
	for _, d := range dirs {
		if d == "" {
			continue
		}
		d = strings.TrimSuffix(d, string(filepath.Separator))
		if strings.HasPrefix(path, d+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// EmptyReport is the report of a refresh that could not use the index at
// all: every target is in it, none has a record.
func EmptyReport(targets []Target, reason string) *Report {
	rep := &Report{Seen: len(targets), States: make([]State, len(targets))}
	for i, t := range targets {
		rep.States[i] = State{Path: t.Path, Reason: reason}
	}
	rep.reasons.Add(reason)
	rep.Recount()
	return rep
}
