package index

import (
	"errors"
	"slices"

	"github.com/memidx/memidx/internal/coldvocab"
	"github.com/memidx/memidx/internal/coverage"
	"github.com/memidx/memidx/internal/hotbm25"
)

// View is one try of Acquire: the refreshed states of the targets and
// where their tier data is (the index file at one commit, or sessions
// read into memory). It is read-only to its users: the states change
// only through its own methods (a re-read of sessions another process
// rewrote), on a copy of its own, never on a report shared with other
// calls.
type View struct {
	ix   *Index
	need *Need
	rep  *Report
	// rd reads the index at the commit the try reads (a Reader over
	// nothing when all the try needs is in memory); set only while fn
	// runs.
	rd *Reader
	// singleErr is why Need.Single's session could not be read from its
	// source; the index was then not read.
	singleErr error
	// mem are the sessions read into memory for this try; single is
	// Need.Single's.
	mem    map[*Record]Loaded
	single *Loaded
	// broken and lexDamaged are what fn found damaged.
	broken     []*Record
	lexDamaged bool
}

// Loaded is a session read into memory for one view: a hot shard, or a
// cold digest.
type Loaded struct {
	Record *Record
	// Tier is what an answer reports: Hot, or Cold for a single session
	// read entry by entry.
	Tier   Tier
	IsHot  bool
	Shard  hotbm25.Shard  // when IsHot
	Digest coldvocab.View // otherwise
}

// Open opens a session built in memory as a hot shard or a cold digest.
func (b *Built) Open() (Loaded, error) {
	if b.Hot != nil {
		sh, err := b.Hot.Open()
		if err != nil {
			return Loaded{}, err
		}
		return Loaded{Record: b.Record, Tier: Hot, IsHot: true, Shard: sh}, nil
	}
	v, err := coldvocab.Open(b.Cold)
	if err != nil {
		return Loaded{}, err
	}
	return Loaded{Record: b.Record, Tier: Cold, Digest: v}, nil
}

// run runs fn with rd as the view's Reader, which is gone when fn
// returns.
func (v *View) run(rd *Reader, fn func(*View) error) error {
	if fn == nil {
		return nil
	}
	v.rd = rd
	defer func() { v.rd = nil }()
	return fn(v)
}

// Reader reads the tier data of the view's records; it is valid only
// while the function given to Acquire runs.
func (v *View) Reader() *Reader { return v.rd }

// Len is the number of states: one per target, in order.
func (v *View) Len() int { return len(v.rep.States) }

// State is a copy of state i.
func (v *View) State(i int) State { return v.rep.States[i] }

// Record is state i's record (nil when it has none). Records are never
// changed once read.
func (v *View) Record(i int) *Record { return v.rep.States[i].Record }

// Split is the states split by where their tier data is; read-only.
func (v *View) Split() *Split { return v.rep.Split() }

// LexEpoch is the archive lexicon's epoch when the records were read.
func (v *View) LexEpoch() LexiconEpoch { return v.rep.LexEpoch }

// Coverage is the view's coverage of the targets; its slices are the
// caller's.
func (v *View) Coverage() Coverage {
	c := v.rep.Coverage
	c.Reasons = slices.Clone(c.Reasons)
	return c
}

// SingleErr is why Need.Single's session could not be read from its
// source (it wraps ErrSourceUnavailable); the index was then not read.
func (v *View) SingleErr() error { return v.singleErr }

// Memory is rec's session when this try read it into memory.
func (v *View) Memory(rec *Record) (Loaded, bool) {
	l, ok := v.mem[rec]
	return l, ok
}

// InMemory reports whether this try read any session into memory.
func (v *View) InMemory() bool { return len(v.mem) > 0 }

// Damaged tells the view that recs' tier data turned out damaged: Acquire
// drops it, so that the next refresh rebuilds it, and tries again.
func (v *View) Damaged(recs ...*Record) { v.broken = append(v.broken, recs...) }

// LexiconDamaged tells the view that the archive lexicon turned out
// damaged: Acquire drops it once the read is over.
func (v *View) LexiconDamaged() { v.lexDamaged = true }

// readSingle reads the one target from its source when the index holds
// it cold or not at all; a fresh read answers for the session.
func (v *View) readSingle() error {
	rep := v.rep
	if st := rep.States[0]; st.Record != nil && st.Record.Tier != Cold {
		return nil
	}
	t := v.need.Targets[0]
	b, err := v.ix.HydrateSource(t, v.need.Refresh.Live.Of(t.Path), v.need.Refresh.Mode)
	if errors.Is(err, ErrSourceUnavailable) {
		v.singleErr = err
		return nil
	}
	if err != nil {
		return err
	}
	sh, err := b.Hot.Open()
	if err != nil {
		return err
	}
	v.single = &Loaded{Record: b.Record, Tier: Cold, IsHot: true, Shard: sh}
	v.mem[b.Record] = *v.single
	rep.own()
	rep.States[0].answer(b.Record, "")
	rep.Recount()
	return nil
}

// needsIndex reports whether some state has its data only in the index
// file: a current record that this try did not build in memory.
func (v *View) needsIndex() bool {
	rep := v.rep
	split := rep.Split()
	for _, rec := range split.Cold {
		if l, inMem := v.mem[rec]; !inMem || !l.IsHot {
			return true
		}
	}
	for _, i := range split.Each {
		if l, inMem := v.mem[rep.States[i].Record]; rep.States[i].Built() == nil && (!inMem || !l.IsHot) {
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
func (v *View) readAll() {
	rep := v.rep
	rep.own()
	var spent int64
	for i := range rep.States {
		st := &rep.States[i]
		if i == 0 && v.single != nil {
			st.answer(v.single.Record, "")
			continue
		}
		if spent >= v.need.MaxSyncSourceBytes {
			st.answer(nil, coverage.MaxSyncSourceBytes)
			continue
		}
		tier := Cold
		if i < v.need.HotSessions {
			tier = Hot
		}
		l, ok := v.readState(i, tier)
		if !ok {
			continue
		}
		v.mem[l.Record] = l
		spent += st.Record.Identity.Size
	}
	rep.Recount()
}

// Reread reads the raced states (whose tier data another process
// rewrote since the refresh) from source, within the sync budget, and
// returns what it read, in order; the states take the new records, whose
// own reasons (and any failure) count in the coverage.
func (v *View) Reread(raced []int) []Loaded {
	if len(raced) == 0 {
		return nil
	}
	rep := v.rep
	rep.own()
	var spent int64
	var read []Loaded
	for _, i := range raced {
		st := &rep.States[i]
		if spent >= v.need.MaxSyncSourceBytes {
			st.answer(nil, coverage.MaxSyncSourceBytes)
			continue
		}
		if l, ok := v.readState(i, st.Record.Tier); ok {
			read = append(read, l)
			spent += st.Record.Identity.Size
		}
	}
	rep.Recount()
	return read
}

// readState reads the session of state i from source for tier, as a
// refresh would, and makes it the state's record; on failure the state
// keeps no record and says why. Nothing is written.
func (v *View) readState(i int, tier Tier) (Loaded, bool) {
	st := &v.rep.States[i]
	t := v.need.Targets[i]
	b, err := v.ix.BuildSource(t, v.need.Refresh.Live.Of(t.Path), v.need.Refresh.Mode, tier)
	var l Loaded
	if err == nil {
		l, err = b.Open()
	}
	switch {
	case errors.Is(err, ErrSourceUnavailable):
		st.answer(nil, coverage.SourceUnavailable)
	case err != nil:
		st.answer(nil, coverage.IndexError)
	default:
		st.answer(l.Record, "")
		return l, true
	}
	return Loaded{}, false
}
