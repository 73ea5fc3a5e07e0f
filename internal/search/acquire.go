package search

import (
	"context"
	"errors"

	"github.com/memidx/memidx/internal/coverage"
	"github.com/memidx/memidx/internal/index"
	"github.com/memidx/memidx/internal/indexfile"
	"github.com/memidx/memidx/internal/lineage"
)

// Need is what a call needs of the index for the sessions of its scope.
type Need struct {
	Mode lineage.Mode
	// Targets are the scope's sessions, newest first.
	Targets []index.Target
	// Refresh brings the targets' records up to date. first is false on
	// a later try, whose records a read made before the first one (a
	// preload) no longer describes.
	Refresh func(ctx context.Context, first bool) (*index.Report, error)
	// Single reads the one target from its source when the index holds
	// it cold or not at all: a single session answers entry by entry,
	// from its untruncated text. Nothing of that read is persisted.
	Single bool
	// Fallback reads the targets into memory when the index cannot be
	// read at all (locked, or damaged past a reset): index_unwritable.
	Fallback bool
	// RecordsOnly: the call reads the records and no tier data, so use
	// runs outside any read of the index.
	RecordsOnly bool
	// HotSessions tiers what is read into memory as the index tiers it;
	// MaxSyncSourceBytes bounds what one try reads from source.
	HotSessions        int
	MaxSyncSourceBytes int64
	// BeforeRead, when set (by tests), runs between a try's refresh and
	// its read of the index: where another process may rewrite a session.
	BeforeRead func()
}

// Acquired is one try's view of the targets: their refreshed states, and
// where their tier data is.
type Acquired struct {
	need *Need
	ix   *index.Index
	// Report is the try's refresh: a state per target, in order.
	Report *index.Report
	// Reader reads the index at the commit the try reads (a Reader over
	// nothing when all the try needs is in memory). It is valid only
	// during use.
	Reader *index.Reader
	// SingleErr is why Need.Single's session could not be read from its
	// source (it wraps index.ErrSourceUnavailable); the index was then not
	// read.
	SingleErr error
	// Sessions read into memory for this try; single is Need.Single's.
	mem     map[*index.Record]HotSource
	memCold map[*index.Record]ColdSource
	single  *HotSource
	s       *Searcher // the search Open fed, if any
}

// maxTries bounds Acquire: a drop of damaged data, an index reset, the
// fallback to the sources, and one more for data that another process
// rewrote meanwhile.
const maxTries = 4

// Acquire refreshes need.Targets in ix and calls use with their tier data
// at hand, recovering as the index allows, in at most maxTries tries:
//
//   - tier data that use (or Open) found damaged, and returned as broken,
//     is dropped, so that the next refresh rebuilds it, and use is called
//     again (index_reset);
//   - an index file found damaged is reset and the call tried again
//     (index_reset);
//   - data rewritten by another process between the refresh and the read
//     (index.ErrNoData) makes another try;
//   - an index that cannot be read at all, with need.Fallback, is left
//     alone and the targets read into memory (index_unwritable).
//
// It returns the last try (nil when none got as far as a report), the
// reasons of the steps taken, for the answer's coverage, and the last
// try's error. use may run more than once; only its last run answers.
func Acquire(ctx context.Context, ix *index.Index, need Need, use func(a *Acquired) (broken []*index.Record, err error)) (last *Acquired, reasons []string, err error) {
	reasons, err = recovering(ctx, ix, need.Mode, need.Fallback, func(try int, fromMemory bool) ([]*index.Record, error) {
		var broken []*index.Record
		var err error
		last, broken, err = acquireOnce(ctx, ix, &need, try == 1, fromMemory, use)
		return broken, err
	})
	return last, reasons, err
}

// recovering runs tries (see Acquire) until one stands; fromMemory asks
// a try to read the sources instead of the index.
func recovering(ctx context.Context, ix *index.Index, mode lineage.Mode, fallback bool,
	once func(try int, fromMemory bool) ([]*index.Record, error)) (reasons []string, err error) {
	fromMemory := false
	for try := 1; ; try++ {
		var broken []*index.Record
		broken, err = once(try, fromMemory)
		dropped := ix.Forget(ctx, mode, broken)
		if dropped {
			reasons = append(reasons, index.IndexReset)
		}
		again := false
		switch {
		case try == maxTries:
		case dropped || errors.Is(err, index.ErrNoData):
			again = true
		case err == nil:
		case !fromMemory && ix.ResetIfDamaged(err):
			reasons, again = append(reasons, index.IndexReset), true
		case !fromMemory && fallback && (errors.Is(err, indexfile.ErrCorrupt) || errors.Is(err, indexfile.ErrLocked)):
			reasons, again, fromMemory = append(reasons, index.IndexUnwritable), true, true
		}
		if !again {
			return reasons, err
		}
	}
}

// acquireOnce is one try: the refresh (or, from memory, a report of no
// records), the single session's read, then use where the data is.
func acquireOnce(ctx context.Context, ix *index.Index, need *Need, first, fromMemory bool,
	use func(a *Acquired) ([]*index.Record, error)) (a *Acquired, broken []*index.Record, err error) {
	a = &Acquired{need: need, ix: ix, mem: map[*index.Record]HotSource{}, memCold: map[*index.Record]ColdSource{}}
	if fromMemory {
		a.Report = index.EmptyReport(need.Targets, index.IndexUnwritable)
	} else if a.Report, err = need.Refresh(ctx, first); err != nil {
		return nil, nil, err
	}
	// Records only: the refresh's record answers, and no source is read.
	if need.Single && !need.RecordsOnly && len(need.Targets) == 1 {
		if err := a.readSingle(); err != nil {
			return a, nil, err
		}
	}
	// The index is not read for records only, for a single session whose
	// source is gone, when the sources are read into memory, or when
	// everything the call needs is in memory already: built by this try's
	// refresh, which the index could not take (unwritable, busy,
	// unreadable).
	noIndex := need.RecordsOnly || a.SingleErr != nil
	if !noIndex && fromMemory {
		a.readAll()
		noIndex = true
	}
	if noIndex || !a.needsIndex() {
		broken, err = callUse(a, &index.Reader{}, use)
		return a, broken, err
	}
	if need.BeforeRead != nil {
		need.BeforeRead()
	}
	err = ix.ViewAfter(ctx, need.Mode, a.Report, func(rd *index.Reader) error {
		var err error
		broken, err = callUse(a, rd, use)
		return err
	})
	if a.s != nil && a.s.LexDamaged {
		ix.ResetLexicon(ctx, need.Mode)
	}
	return a, broken, err
}

// callUse runs use with rd as the try's Reader, which is gone when use
// returns.
func callUse(a *Acquired, rd *index.Reader, use func(a *Acquired) ([]*index.Record, error)) ([]*index.Record, error) {
	a.Reader = rd
	defer func() { a.Reader = nil }()
	return use(a)
}

// Open makes every state of the try a source of s (see Searcher.Open),
// and reads from source, within the sync budget, the sessions whose data
// another process rewrote since the refresh.
func (a *Acquired) Open(s *Searcher) {
	a.s = s
	a.readRaced(s.Open(a.Reader, a.Report, a.mem, a.memCold))
}

// readSingle reads the one target from its source when the index holds
// it cold or not at all; a fresh read answers for the session.
func (a *Acquired) readSingle() error {
	rep := a.Report
	if st := rep.States[0]; st.Record != nil && st.Record.Tier != index.Cold {
		return nil
	}
	b, err := a.ix.HydrateSource(a.need.Targets[0], a.need.Mode)
	if errors.Is(err, index.ErrSourceUnavailable) {
		a.SingleErr = err
		return nil
	}
	if err != nil {
		return err
	}
	sh, err := b.Hot.Open()
	if err != nil {
		return err
	}
	a.single = &HotSource{Rec: b.Record, Shard: sh, Tier: index.Cold, First: -1, Last: -1}
	a.mem[b.Record] = *a.single
	rep.Own()
	rep.States[0].Record, rep.States[0].Reason = b.Record, ""
	rep.Recount()
	return nil
}

// needsIndex reports whether some state has its data only in the index
// file: a current record that this try did not build in memory.
func (a *Acquired) needsIndex() bool {
	rep := a.Report
	split := rep.Split()
	for _, rec := range split.Cold {
		if _, inMem := a.mem[rec]; !inMem {
			return true
		}
	}
	for _, i := range split.Each {
		if _, inMem := a.mem[rep.States[i].Record]; rep.States[i].Built == nil && !inMem {
			return true
		}
	}
	return false
}

// readAll replaces every state's record with an in-memory build of its
// source, tiered as the index would tier it (the newest HotSessions hot,
// the rest cold digests), newest first until MaxSyncSourceBytes is spent;
// the rest stay without a record, counted stale with the budget's
// reason. Nothing is persisted.
func (a *Acquired) readAll() {
	rep := a.Report
	rep.Own()
	var spent int64
	for i := range rep.States {
		st := &rep.States[i]
		if i == 0 && a.single != nil {
			st.Record, st.Reason = a.single.Rec, ""
			continue
		}
		if spent >= a.need.MaxSyncSourceBytes {
			st.Record, st.Reason = nil, coverage.MaxSyncSourceBytes
			continue
		}
		tier := index.Cold
		if i < a.need.HotSessions {
			tier = index.Hot
		}
		h, c := a.readState(i, tier)
		switch {
		case h != nil:
			a.mem[h.Rec] = *h
		case c != nil:
			a.memCold[c.Rec] = *c
		default:
			continue
		}
		spent += st.Record.Identity.Size
	}
	rep.Recount()
}

// readRaced reads the raced states from source, within the sync budget;
// the new records' own reasons (and any failure) count in the coverage.
func (a *Acquired) readRaced(raced []int) {
	if len(raced) == 0 {
		return
	}
	rep := a.Report
	rep.Own()
	var spent int64
	for _, i := range raced {
		st := &rep.States[i]
		if spent >= a.need.MaxSyncSourceBytes {
			st.Record, st.Reason = nil, coverage.MaxSyncSourceBytes
			continue
		}
		if a.s.Add(a.readState(i, st.Record.Tier)) {
			spent += st.Record.Identity.Size
		}
	}
	rep.Recount()
}

// readState reads the session of state i from source for tier and makes
// it the state's record; on failure the state keeps no record and says
// why.
func (a *Acquired) readState(i int, tier string) (*HotSource, *ColdSource) {
	st := &a.Report.States[i]
	h, c, err := a.readSource(a.need.Targets[i], tier)
	switch {
	case errors.Is(err, index.ErrSourceUnavailable):
		st.Record, st.Reason = nil, coverage.SourceUnavailable
	case err != nil:
		st.Record, st.Reason = nil, coverage.IndexError
	case h != nil:
		st.Record, st.Reason = h.Rec, ""
	default:
		st.Record, st.Reason = c.Rec, ""
	}
	return h, c
}

// readSource reads and builds one session in memory for tier, as a
// refresh would, and opens it as a hot or a cold source. Nothing is
// written.
func (a *Acquired) readSource(t index.Target, tier string) (*HotSource, *ColdSource, error) {
	b, err := a.ix.BuildSource(t, a.need.Mode, tier)
	if err != nil {
		return nil, nil, err
	}
	return OpenBuilt(b)
}
