package index

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/memidx/memidx/internal/coverage"
	"github.com/memidx/memidx/internal/indexfile"
	"github.com/memidx/memidx/internal/lineage"
	"github.com/memidx/memidx/internal/session/listing"
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
	IndexForeignFile = coverage.IndexForeignFile
)

// Index is the derived index of one index directory.
type Index struct {
	cfg    Config
	policy Policy
	store  *indexfile.Store
	// Workers is how many sessions are read and built at once; 0 means
	// GOMAXPROCS.
	Workers int
	// RacyWindow is how close to its indexing a source change must be for
	// the stat gate not to vouch for the record; 0 means the window the
	// source's stamps call for (FineRacyWindow or DefaultRacyWindow).
	// Tests that rewrite files within one clock tick set it to a negative
	// value to exercise the stat gate alone.
	RacyWindow time.Duration
	// BuildCharged, when set, is called with the build memory charged
	// against maxBuildBytes (the sessions being read and built) each time
	// it changes, in order, under the bound's lock: it must be quick. A
	// batch program steers the Go heap limit with it (memidx rebuild).
	BuildCharged func(inUse int64)
	// RecordsHeld, when set, is told what the records a one-shot call
	// read from the manifest take, as they are read (holdRecords): a
	// batch program's heap limit adds it (HeapSteeringHeld).
	RecordsHeld func(held int64)
	// decoded are the records last decoded, per mode.
	decoded recordCache
	// seen is which blocks of tier data reads verified at the last commit.
	seen seenMemo
	// quiet is the last refresh per kind that found nothing to do.
	quiet quietCache
	// carry is the last stat gate per kind of refresh (carry.go).
	carry gateMemo
	// noSeed: the index could not take a hot roster (SeedRosterOnce).
	noSeed atomic.Bool
	// gated: a Preload read the manifest once; later ones decode the
	// full records, which a long-lived host keeps (recordCache).
	gated atomic.Bool
	// longLived: the host asks again and again (LongLived).
	longLived atomic.Bool
	// runKeys are the run keys of the lexicon segments a long-lived
	// Index read.
	runKeys runKeysMemo
	// lexIDs is the last lexicon identity made (Lexicon.Identity).
	lexIDs lexIDMemo
	// policies numbers the policy strings of this configuration, by
	// branch mode and tier (policyModes, policyTiers): the stat gate
	// compares a record's number with them.
	policies [2][2]policyNum
}

// Open returns the index of cfg.IndexDir. It does not touch the disk.
func Open(cfg Config, lockTimeout time.Duration) *Index {
	ix := &Index{cfg: cfg, policy: PolicyOf(cfg), store: indexfile.New(cfg.IndexDir, indexfile.Options{LockTimeout: lockTimeout})}
	for m, mode := range policyModes {
		for t, tier := range policyTiers {
			ix.policies[m][t] = policies.named(ix.policy.String(tier, mode))
		}
	}
	return ix
}

// Close lets go of the index file handle kept between reads. The Index
// still works after Close, opening the file for each read.
func (x *Index) Close() error { return x.store.Close() }

// Store returns the underlying store.
func (ix *Index) Store() *indexfile.Store { return ix.store }

// Config returns the configuration.
func (ix *Index) Config() Config { return ix.cfg }

// Target is one session file in scope: the listing's ref, its Path and,
// when set, a Stat of it taken moments ago (which saves stat-ing every
// file twice per call). The targets of a call are the listing's own
// refs, not a copy of them (a server kept both: 3.2 MB at 100k
// sessions); which of them is the host's live session is said once, in
// RefreshOptions.
type Target = listing.Ref

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
	// Summary: the caller reads the report's counts and coverage, and of
	// each state its Path, Reason and Detail and whether it has a Record,
	// not the records (a rebuild). A NoBudgets refresh then lets go of a
	// complete record once its batch goes to be written, and its state
	// holds a shared empty stand-in: a 100k rebuild held ~45 MB of
	// records to the end, every collection marking them.
	Summary bool
	// Progress, when set, is called after each session is handled.
	Progress func(done, total int, bytesRead int64)
	// Preloaded, when set, is the stored records of Mode, read while the
	// caller listed the sessions (see Preload).
	Preloaded *Preloaded
	// Force rebuilds every target whatever its stat says (a rebuild
	// --force: a record the stat gate vouches for is read again).
	Force bool
	// Archive says the targets are every session of the archive (a global
	// scope): the refresh ranks the hot tier from them and keeps the
	// roster that narrower refreshes rank with (roster.go).
	Archive bool
	// Watched says the targets come from a watched listing, which the
	// caller keeps between calls: the refresh may keep them too, for the
	// next one to carry its stat gate's answers (carry.go). A listing
	// made anew each call is not held past it.
	Watched bool
	// Live is the host's live branch and the target it is of.
	Live LiveBranch
}

// LiveBranch is the host's live branch and the target it is of, the
// host's current session as listed (Target.Path): that target's records
// are built and checked under it, every other one's without.
type LiveBranch struct {
	Path string
	Live *lineage.Live
}

// Of is the live branch of the target at path (nil: none).
func (b LiveBranch) Of(path string) *lineage.Live {
	if b.Live != nil && path == b.Path {
		return b.Live
	}
	return nil
}

// Preloaded is the stored records of a branch mode, read ahead.
type Preloaded struct {
	mode lineage.Mode
	done chan struct{}
	got  loaded
	err  error
	// spent: a refresh took the records and let go of what it no longer
	// needed (refreshRun.releaseGate); a later read reads them again.
	spent atomic.Bool
}

// spend lets go of the records once a refresh has taken them: a one-shot
// call's gate table (2.4 MB at 100k sessions) would otherwise stay live
// through its search.
func (p *Preloaded) spend() {
	p.spent.Store(true)
	p.got = loaded{}
}

// Preload starts reading the stored records of mode, so that a caller can
// list and stat the session files meanwhile (the listing waits on the
// kernel, the decoding on the processor). Records read before the listing
// are at worst older than the files: the stat gate then re-reads more,
// never less.
//
// The first Preload of an Index reads the manifest (manifest.go): a
// one-shot recall decodes the full records of its candidates and hits
// only. A later one decodes every record, for the record cache of a host
// that asks again; the refresh that takes them keeps them (keepMatched),
// and a preload no refresh takes (its call failed first) is let go.
func (ix *Index) Preload(ctx context.Context, mode lineage.Mode) *Preloaded {
	return ix.preload(ctx, mode, false)
}

// PreloadArchive is Preload for a call whose targets are the whole
// archive (a global scope): a manifest read first is held by key, not by
// path (gateTable), since nearly every record will be a target's.
func (ix *Index) PreloadArchive(ctx context.Context, mode lineage.Mode) *Preloaded {
	return ix.preload(ctx, mode, true)
}

func (ix *Index) preload(ctx context.Context, mode lineage.Mode, archive bool) *Preloaded {
	p := &Preloaded{mode: mode, done: make(chan struct{})}
	gate := !ix.gated.Swap(true)
	// Records the cache holds at the file's commit now (a server's call
	// but after a write) are taken here: a goroutine to read them added
	// two hand-offs a call, and each waited up to milliseconds for a
	// processor whenever the collector's fractional workers held both
	// (a third of a 100k server's slow calls).
	if !gate {
		if got, ok, err := ix.cachedRecords(ctx, mode); ok || err != nil {
			p.got, p.err = got, err
			close(p.done)
			return p
		}
	}
	go func() {
		defer close(p.done)
		switch {
		case gate && archive:
			p.got, p.err = ix.loadGateKeyed(ctx, mode)
			return
		case gate:
			p.got, p.err = ix.loadGateAt(ctx, mode)
			return
		}
		p.got, p.err = ix.loadRecordsKept(ctx, mode, false, archive)
	}()
	return p
}

// LongLived tells the Index that its host asks again and again (a
// server): Preload decodes the full records from the first call on, which
// the record cache keeps, instead of the manifest's partial records first,
// which would be garbage at the second call and double the host's peak.
//
// Its map of the index file keeps the pages its calls read, within
// longLivedMapBudget, instead of giving back each lexicon segment's after
// a lookup (Lexicon.giveBack): the next call's lookups find them mapped.
func (ix *Index) LongLived() {
	ix.gated.Store(true)
	ix.longLived.Store(true)
	ix.store.SetMapBudget(longLivedMapBudget)
}

// longLivedMapBudget is how much of the index file a long-lived host
// keeps mapped beyond what it held after its last trim
// (indexfile.Store.SetMapBudget).
const longLivedMapBudget = 64 << 20

// records returns the stored records of mode: preloaded, or read now.
func (ix *Index) records(ctx context.Context, mode lineage.Mode, pre *Preloaded) (loaded, error) {
	if pre == nil || pre.mode != mode {
		return ix.loadRecordsAt(ctx, mode)
	}
	select {
	case <-pre.done:
		if pre.spent.Load() {
			return ix.loadRecordsAt(ctx, mode)
		}
		return pre.got, pre.err
	case <-ctx.Done():
		return loaded{}, ctx.Err()
	}
}

// State is what a refresh left for one target.
type State struct {
	Path string
	// Record is the session's current record, nil when it has none (a
	// budget, an unreadable source, a failed build).
	Record *Record
	// note holds what few states have (Reason, Detail, Built, Rebuilt): a
	// server keeps a state per session, and a one-shot call over 100k
	// sessions too. A note is never changed once made (copies of a state
	// share it).
	note *stateNote
}

// stateNote is the rare part of a State.
type stateNote struct {
	reason  string
	detail  string
	built   *Built
	rebuilt bool
}

// Rebuilt reports whether this refresh read the source.
func (s State) Rebuilt() bool { return s.note != nil && s.note.rebuilt }

// markRebuilt notes that this refresh read the source.
func (s *State) markRebuilt() {
	if s.note == nil {
		s.note = rebuiltNote
		return
	}
	n := *s.note
	n.rebuilt = true
	s.note = &n
}

// rebuiltNote is the shared note of a state rebuilt and nothing else.
var rebuiltNote = &stateNote{rebuilt: true}

// Reason says why there is no current record ("" when there is one).
func (s State) Reason() string {
	if s.note == nil {
		return ""
	}
	return s.note.reason
}

// setReason sets Reason, keeping Detail and Built.
func (s *State) setReason(reason string) { s.setNote(reason, s.Detail(), s.Built()) }

// answer sets the state's record and the reason it has none ("" with a
// record), keeping Detail and Built.
func (s *State) answer(rec *Record, reason string) {
	s.Record = rec
	s.setReason(reason)
}

// setNote gives s a note with these, keeping Rebuilt (none when all are
// empty): a reason alone gets the note shared by every state with that
// reason alone.
func (s *State) setNote(reason, detail string, built *Built) {
	rebuilt := s.Rebuilt()
	switch {
	case reason == "" && detail == "" && built == nil && !rebuilt:
		s.note = nil
	case reason == "" && detail == "" && built == nil:
		s.note = rebuiltNote
	case detail == "" && built == nil && !rebuilt:
		s.note = reasonNote(reason)
	default:
		s.note = &stateNote{reason: reason, detail: detail, built: built, rebuilt: rebuilt}
	}
}

// reasonNotes are the shared notes of a reason alone (notes are never
// changed, so states may share them): a first call over an archive it
// cannot index at once gives most of its states one, 104k at 100k
// sessions. Reasons are a few constants; past maxReasonNotes a note is
// made each time.
var reasonNotes struct {
	sync.Mutex
	m map[string]*stateNote
}

const maxReasonNotes = 64

func reasonNote(reason string) *stateNote {
	reasonNotes.Lock()
	defer reasonNotes.Unlock()
	if n := reasonNotes.m[reason]; n != nil {
		return n
	}
	n := &stateNote{reason: reason}
	if reasonNotes.m == nil {
		reasonNotes.m = map[string]*stateNote{}
	}
	if len(reasonNotes.m) < maxReasonNotes {
		reasonNotes.m[reason] = n
	}
	return n
}

// Detail is the error behind Reason when it says more than the reason
// does: a write the index file did not take ("no space left on device").
func (s State) Detail() string {
	if s.note == nil {
		return ""
	}
	return s.note.detail
}

// Built is the record's tier data when this refresh built it but the
// index could not take it (unwritable, busy): the caller answers from it
// instead of reading the source again.
func (s State) Built() *Built {
	if s.note == nil {
		return nil
	}
	return s.note.built
}

// FailedState is the state of a target a refresh could not index, for
// reason, with the error behind it (detail, "" for none).
func FailedState(path, reason, detail string) State {
	st := State{Path: path}
	st.setNote(reason, detail, nil)
	return st
}

// keepBuilt notes b, what this refresh built for the state's record.
func (s *State) keepBuilt(b *Built) { s.setNote(s.Reason(), s.Detail(), b) }

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
	// WriteError is the error of a write the index file did not take (a
	// full disk, a file size limit), when any: what it would have added
	// is not in the index.
	WriteError string `json:"writeError,omitempty"`
	// reasons are the refresh's own (budgets, a busy or reset index).
	reasons coverage.Set
	// indexErr is the index file's problem that coverage reports.
	indexErr *coverage.Error
	// readAt is the commit of the index file the records were read at
	// (when readAtKnown); wrote is set once this refresh wrote to it.
	readAt      commit
	readAtKnown bool
	wrote       bool
	// shared is set when States is shared with other reports (a kept
	// quiet refresh's): own copies it before anything is changed.
	shared bool
	// split caches Split for these States (shared with them).
	split *splitOnce
}

// own makes States the report's own: a caller that changes a state calls
// it first (a report answered from a kept refresh shares them).
func (rep *Report) own() {
	if rep.shared {
		rep.States = slices.Clone(rep.States)
		rep.shared = false
	}
	rep.split = nil
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
			if r := st.Reason(); r != "" {
				reasons.Add(r)
			}
			continue
		}
		cov.IndexedSessions++
		if !st.Record.Complete() {
			cov.IncompleteSessions++
			for _, r := range st.Record.Reasons() {
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
// It returns the state of every target, in order. The targets, and the
// stats they point to, must not change after the call: a later refresh
// may compare its own with them (quiet.go, carry.go).
func (ix *Index) Refresh(ctx context.Context, targets []Target, opt RefreshOptions) (*Report, error) {
	start := time.Now()
	r := ix.newRun(ctx, targets, opt)
	stored, bad, err := r.load()
	if err != nil {
		return nil, err
	}
	quiet := r.quietable(bad)
	if quiet {
		if rep, ok := ix.quiet.get(r, r.rep.readAt); ok {
			r.keepQuiet()
			rep.Elapsed = time.Since(start)
			rep.Seconds = rep.Elapsed.Seconds()
			return rep, nil
		}
	}
	r.stat(stored)
	jobs := r.budget(r.decide())
	// Orphans: records whose source is gone, and records that did not
	// decode. They go with the first write, which then scrubs the file.
	orphans, orphanPaths := ix.orphans(ctx, r.known, r.mode, opt, &r.reasons)
	deletes := append(bad, orphans...)
	quiet = quiet && len(jobs) == 0 && len(deletes) == 0 && r.known.allTargets()
	w := r.newWriter(deletes)
	w.deletedPaths = orphanPaths
	defer w.stop() // when the context ends the run early
	done := 0
	for res := range r.build(jobs) {
		done++
		w.take(res)
		r.taken(res)
		if opt.Progress != nil {
			opt.Progress(done, len(jobs), r.rep.BytesRead)
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := w.finish(); err != nil {
		return nil, err
	}
	ix.patchDecoded(r, w)
	r.rep.reasons = r.reasons
	r.rep.Recount()
	// Partial records are this call's own: completing them in place is
	// safe only while no other call shares them.
	if quiet && !r.rep.wrote && r.reasons.Complete() && !r.partial {
		ix.quiet.put(r, r.rep.readAt)
	}
	r.rep.Elapsed = time.Since(start)
	r.rep.Seconds = r.rep.Elapsed.Seconds()
	return r.rep, nil
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
// that it leaves no record without a source. paths maps each key to its
// record's path (patchDecoded).
func (ix *Index) orphans(ctx context.Context, known *knownSessions, mode lineage.Mode, opt RefreshOptions, reasons *coverage.Set) (out [][]byte, paths map[string]string) {
	// A project's refresh must not stat every other project's records.
	seenByNoListing := func(path string) bool { return len(opt.Roots) == 0 || !under(path, opt.Roots) }
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
				k := recordKey(mode, path)
				out = append(out, k)
				if paths == nil {
					paths = map[string]string{}
				}
				paths[string(k)] = path
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
	return out, paths
}

func (ix *Index) racyWindow() time.Duration { return ix.RacyWindow }

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
		rep.States[i] = FailedState(t.Path, reason, "")
	}
	rep.reasons.Add(reason)
	rep.Recount()
	return rep
}
