package index

import (
	"context"
	"errors"

	bolt "go.etcd.io/bbolt"

	"github.com/memidx/memidx/internal/indexfile"
	"github.com/memidx/memidx/internal/lineage"
	"github.com/memidx/memidx/internal/session/scopes"
)

// Need is what a call needs of the index for the sessions of its scope.
type Need struct {
	// Targets are the scope's sessions, newest first.
	Targets []Target
	// Refresh shapes each try's refresh; its Preloaded records serve the
	// first try only (a later one follows a try whose records no longer
	// hold).
	Refresh RefreshOptions
	// Archive, when set, lists the whole archive to seed a hot roster
	// for an index that has none (see SeedRosterOnce); unused for an
	// Archive refresh, which keeps the roster itself.
	Archive *scopes.Resolver
	// Single reads the one target from its source when the index holds
	// it cold or not at all: a single session answers entry by entry,
	// from its untruncated text. Nothing of that read is persisted.
	Single bool
	// Fallback reads the targets into memory when the index cannot be
	// read at all (locked, or damaged past a reset): index_unwritable.
	Fallback bool
	// RecordsOnly: the call reads the records and no tier data, so fn
	// runs outside any read of the index.
	RecordsOnly bool
	// HotSessions tiers what is read into memory as the index tiers it;
	// MaxSyncSourceBytes bounds what one try reads from source.
	HotSessions        int
	MaxSyncSourceBytes int64
	// BeforeRead, when set (by tests), runs between a try's refresh and
	// its read of the index: where another process may rewrite a session.
	BeforeRead func()
	// refresh, when set (by tests), replaces a try's refresh.
	refresh func(ctx context.Context) (*Report, error)
}

// maxTries bounds Acquire: a drop of damaged data, an index reset, the
// fallback to the sources, and one more for data that another process
// rewrote meanwhile.
const maxTries = 4

// Acquire refreshes need.Targets and runs fn with a View of them: their
// refreshed states and where their tier data is, consistent for the
// duration of fn. It recovers as the index allows, in at most maxTries
// tries:
//
//   - tier data that fn found damaged (View.Damaged) is dropped, so that
//     the next refresh rebuilds it, and fn runs again (index_reset);
//   - an index file found damaged is reset and the call tried again
//     (index_reset);
//   - data rewritten by another process between the refresh and the read
//     (ErrNoData) makes another try;
//   - an index that cannot be read at all, with need.Fallback, is left
//     alone and the targets read into memory (index_unwritable).
//
// It returns the last try's View (nil when none got as far as a refresh),
// the reasons of the steps taken, for the answer's coverage, and the last
// try's error. fn may run more than once; only its last run answers. A
// nil fn reads nothing but the records.
func (ix *Index) Acquire(ctx context.Context, need Need, fn func(*View) error) (last *View, reasons []string, err error) {
	opt := need.Refresh
	reasons, err = ix.recovering(ctx, &need, func(try int, fromMemory bool) ([]*Record, error) {
		if try > 1 {
			opt.Preloaded = nil // read before the try that failed
		}
		var broken []*Record
		last, broken, err = ix.acquireOnce(ctx, &need, &opt, fromMemory, fn)
		return broken, err
	})
	return last, reasons, err
}

// recovering runs tries (see Acquire) until one stands; fromMemory asks
// a try to read the sources instead of the index.
func (ix *Index) recovering(ctx context.Context, need *Need, once func(try int, fromMemory bool) ([]*Record, error)) (reasons []string, err error) {
	fromMemory := false
	for try := 1; ; try++ {
		var broken []*Record
		broken, err = once(try, fromMemory)
		dropped := ix.Forget(ctx, need.Refresh.Mode, broken)
		if dropped {
			reasons = append(reasons, IndexReset)
		}
		again := false
		switch {
		case try == maxTries:
		case dropped || errors.Is(err, ErrNoData):
			again = true
		case err == nil:
		case !fromMemory && ix.ResetIfDamaged(err):
			reasons, again = append(reasons, IndexReset), true
		case !fromMemory && need.Fallback && (errors.Is(err, indexfile.ErrCorrupt) || errors.Is(err, indexfile.ErrLocked)):
			reasons, again, fromMemory = append(reasons, IndexUnwritable), true, true
		}
		if !again {
			return reasons, err
		}
	}
}

// acquireOnce is one try: the refresh (or, from memory, a report of no
// records), the single session's read, then fn where the data is.
func (ix *Index) acquireOnce(ctx context.Context, need *Need, opt *RefreshOptions, fromMemory bool,
	fn func(*View) error) (v *View, broken []*Record, err error) {
	v = &View{ix: ix, need: need, mem: map[*Record]Loaded{}}
	if fromMemory {
		v.rep = EmptyReport(need.Targets, IndexUnwritable)
	} else if v.rep, err = ix.refreshFor(ctx, need, opt); err != nil {
		return nil, nil, err
	}
	// A single session's record is checked against a pointer's
	// bindings, whatever the tier data says: it is read whole.
	if !fromMemory && len(need.Targets) == 1 {
		ix.completeState(ctx, opt.Mode, v.rep)
	}
	// Records only: the refresh's record answers, and no source is read.
	if need.Single && !need.RecordsOnly && len(need.Targets) == 1 {
		if err := v.readSingle(); err != nil {
			return v, nil, err
		}
	}
	// The index is not read for records only, for a single session whose
	// source is gone, when the sources are read into memory, or when
	// everything the call needs is in memory already: built by this try's
	// refresh, which the index could not take (unwritable, busy,
	// unreadable).
	noIndex := need.RecordsOnly || v.singleErr != nil
	if !noIndex && fromMemory {
		v.readAll()
		noIndex = true
	}
	if noIndex || !v.needsIndex() {
		err = v.run(&Reader{}, fn)
		return v, v.broken, err
	}
	if need.BeforeRead != nil {
		need.BeforeRead()
	}
	err = ix.ViewAfter(ctx, opt.Mode, v.rep, func(rd *Reader) error { return v.run(rd, fn) })
	if v.lexDamaged {
		ix.ResetLexicon(ctx, opt.Mode)
	}
	return v, v.broken, err
}

// refreshFor is a try's refresh of need's targets, after seeding a hot
// roster when the index has none.
func (ix *Index) refreshFor(ctx context.Context, need *Need, opt *RefreshOptions) (*Report, error) {
	if need.refresh != nil {
		return need.refresh(ctx)
	}
	if !opt.Archive && need.Archive != nil {
		ix.SeedRosterOnce(ctx, opt, need.Archive)
	}
	return ix.Refresh(ctx, need.Targets, *opt)
}

// SeedRosterOnce gives an index without a hot roster one, ranked from a
// listing of the whole archive (through archive), before a narrower
// refresh ranks its tiers with it: without it a session's tier would
// depend on which call indexed it first. It happens once per index; an
// index that cannot take it is not asked again by this Index. Seeding
// writes, so opt's preloaded records, read before, are let go.
func (ix *Index) SeedRosterOnce(ctx context.Context, opt *RefreshOptions, archive *scopes.Resolver) {
	if ix.noSeed.Load() {
		return
	}
	if has, err := ix.HasRoster(ctx, opt.Mode, opt.Preloaded); err != nil || has {
		return
	}
	all, err := archiveTargets(archive)
	if err == nil {
		err = ix.SeedRoster(ctx, all)
	}
	if err != nil {
		ix.noSeed.Store(true)
		return
	}
	opt.Preloaded = nil
}

// archiveTargets lists every session of the archive (the global scope).
func archiveTargets(archive *scopes.Resolver) ([]Target, error) {
	sc, err := scopes.ParseScope("global")
	if err != nil {
		return nil, err
	}
	res, err := archive.Resolve(sc)
	if err != nil {
		return nil, err
	}
	if err := res.Err(); err != nil {
		return nil, err
	}
	return res.Refs, nil // a Target is a ref
}

// completeState completes the one state's record when it is a partial
// one (see Preload), changing the report's own copy.
func (ix *Index) completeState(ctx context.Context, mode lineage.Mode, rep *Report) {
	rec := rep.States[0].Record
	if rec == nil || !rec.partial {
		return
	}
	full := *rec
	_ = ix.store.View(ctx, func(tx *bolt.Tx) error {
		complete(tx, mode, &full)
		return nil
	})
	rep.own()
	rep.States[0].Record = &full
}
