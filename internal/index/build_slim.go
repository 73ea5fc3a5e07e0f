package index

import (
	"context"
	"errors"
	"hash/maphash"
	"io"
	"os"
	"runtime"
	"slices"

	"github.com/memidx/memidx/internal/coverage"
	"github.com/memidx/memidx/internal/jsjson"
	"github.com/memidx/memidx/internal/lineage"
	"github.com/memidx/memidx/internal/normalize"
	"github.com/memidx/memidx/internal/session"
	"github.com/memidx/memidx/internal/session/confine"
)

// The slim build path. A session whose whole read would cost
// much memory (BuildCost over slimFrom: many records, or many bytes) is
// read by session.ReadSlim, which keeps each record as a byte span and
// its ids; its selection is computed as for a whole read, and its entries
// are normalized one at a time from the file and fed to the tier's
// builder, which keeps only what the tier stores. It is charged
// SlimBuildCost, not BuildCost, so a session of a million tiny records is
// indexed under the default bound instead of skipped. A file outside the
// slim reader's fast path, or whose selection holds records that depend on
// the rest of the session (Fabric traces, branch facts), is read whole as
// before, with BuildCost.

// slimFrom is the BuildCost from which a source is read slim: below it a
// whole read is cheap, and faster (one parse of each record, not two).
const slimFrom = 64 << 20

func useSlim(size, lines int64) bool { return BuildCost(size, lines) > slimFrom }

// SlimBuildCost estimates the memory a slim build of a source of size
// bytes and lines lines holds at its peak, the larger of its two phases
// (measured on a session of 1,000,000 tiny records, 150 MB, the shape that
// costs the most a byte): while the selection is computed, the slim
// records, their ids and the id index (about 170 bytes a record); while
// the entries are built, their spans (28 bytes an entry) and the tier
// data, which for a hot shard of tiny records is about 1.15 bytes a source
// byte (postings, columns, encoded entries) and for a cold digest at most
// a few MiB.
func SlimBuildCost(size, lines int64) int64 {
	return max(192*lines, size+48*lines) + 4<<20
}

// slimRead is what the slim reader kept of a source: its records'
// spans and ids, the normalizer's plan and the file-level checks.
type slimRead struct {
	s        *session.Slim
	plan     normalize.Planner
	refusals session.RefusalCheck
}

// readSlim reads f (opened at path, of identity before and lines lines)
// with the slim reader under gate. session.ErrNeedsFullRead means the file
// is outside the slim reader's fast path: the caller releases and reads
// it whole.
func readSlim(ctx context.Context, f *os.File, path string, before Identity, lines int64, gate *buildGate) (*Source, func(), error) {
	release, err := gate.charge(ctx, path, before, lines, SlimBuildCost(before.Size, lines))
	if err != nil {
		return nil, release, err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, release, err
	}
	sourceReads.Add(1)
	sr := &slimRead{}
	s, err := session.ReadSlim(f, before.Size, path, func(i int, typ string, v jsjson.Value) uint8 {
		sr.refusals.Record(typ, v)
		return sr.plan.Tag(i, typ, v)
	})
	if err != nil {
		return nil, release, err
	}
	sr.s = s
	src := &Source{Path: path, Identity: before, Hash: s.SourceHash, slim: sr}
	if after, err := StatIdentity(path); err != nil || after != before {
		src.Changed = true
	}
	return src, release, nil
}

// readAndBuild reads the source at path (slim when it qualifies) and
// builds it with build. A slim source whose selection the slim path cannot
// take (build answers session.ErrNeedsFullRead) is read again whole.
// readErr is the read's error, err the build's; the caller calls release
// once done with what was built, whatever the errors.
func (ix *Index) readAndBuild(ctx context.Context, held *confine.Held, path string, buf []byte, gate *buildGate, build func(*Source) (*built, error)) (b *built, src *Source, release func(), readErr, err error) {
	for _, trySlim := range []bool{true, false} {
		src, release, readErr = readSourceInto(ctx, held, path, buf, gate, trySlim)
		if readErr != nil {
			return nil, src, release, readErr, nil
		}
		slim := src.slim != nil // build lets the slim read go
		b, err = build(src)
		if slim && errors.Is(err, session.ErrNeedsFullRead) {
			release()
			continue
		}
		break
	}
	return b, src, release, nil, err
}

// buildSlim is build for a source read slim: the selection as Select
// computes it, then each entry normalized from its record's bytes and
// fed to the tier's builder, so that what is held is the slim records and
// the tier data, never the parsed records or normalized entries.
func (ix *Index) buildSlim(src *Source, mode lineage.Mode, tier Tier, live *lineage.Live, full bool) (*built, error) {
	sr := src.slim
	sel := lineage.SelectSlim(sr.s, mode, liveFor(mode, live))
	lz, ok := normalize.NewLazy(sr.s, sel, &sr.plan, ix.normalizeOptions())
	if !ok {
		return nil, session.ErrNeedsFullRead
	}
	rec := ix.newRecord(src, sr.s.Header, sr.s.SourceHash, sel, mode, tier, live)
	problems := sr.s.Problems(&sr.refusals)
	problems.Merge(sel.Problems)
	if duplicateIDs(lz) {
		problems.Add(coverage.DuplicateEntryID)
	}
	// From here on only the entries' spans are needed: the slim records,
	// ids and selection go, so that the build holds less while it
	// normalizes.
	sel = nil
	lz.Detach()
	src.slim = nil
	sink := ix.newSink(rec, tier, full, lz.Len())
	if err := feedSlim(src, lz, sink); err != nil {
		return nil, err
	}
	n := lz.Len()
	lz = nil
	if n < collectFrom {
		return sink.finish(problems)
	}
	// A long session's build makes its tier data in a few large
	// allocations (the sealed entries of a million tiny records are 70
	// MB), and they are copied once more when written: the garbage of
	// normalizing every entry, then that of finishing (the postings,
	// the entries' chunks), is collected first rather than when the heap
	// is at its fullest.
	runtime.GC()
	b, err := sink.finish(problems)
	runtime.GC()
	return b, err
}

// collectFrom is the number of entries from which a slim build collects
// its garbage before and after finishing (a few milliseconds a collection
// of what is live then, against seconds of building).
const collectFrom = 100_000

// feedSlim normalizes lz's entries from src's file, in order, into sink.
// A file that is not the one read answers errChanged.
func feedSlim(src *Source, lz *normalize.Lazy, sink *entrySink) error {
	f, st, err := session.OpenRegular(src.Path)
	if err != nil {
		return errChanged
	}
	defer f.Close()
	if id, err := identityOf(st); err != nil || id != src.Identity {
		return errChanged
	}
	r := session.NewSpanReader(f)
	var ps jsjson.Parser
	for k := 0; k < lz.Len(); k++ {
		val, ok := r.Read(lz.Span(k))
		if !ok {
			return errChanged
		}
		// The entry aliases the parser's memory and the read buffer,
		// both reused for the next: the sink copies what it keeps.
		e, err := lz.EntryWith(&ps, k, val)
		if err != nil {
			return errChanged
		}
		if e.OperationAddress != nil {
			// Only Fabric children carry one, and a slim selection has
			// none; the whole read decides if that ever changes.
			return session.ErrNeedsFullRead
		}
		if err := sink.add(&e); err != nil {
			return err
		}
	}
	// The entries were read back by span: the file must still be the one
	// whose bytes were hashed.
	if after, err := StatIdentity(src.Path); err != nil || after != src.Identity {
		return errChanged
	}
	return nil
}

// duplicateIDs reports whether two of lz's entries share an EntryID
// (normalize.Session's duplicate_entry_id) from a sorted list of the ids'
// hashes: 8 bytes an entry rather than a set of the ids. Equal hashes are
// confirmed on the ids themselves.
func duplicateIDs(lz *normalize.Lazy) bool {
	seed := maphash.MakeSeed()
	hashes := make([]uint64, 0, lz.Len())
	for k := 0; k < lz.Len(); k++ {
		if id, ok := lz.EntryID(k); ok {
			hashes = append(hashes, maphash.String(seed, id))
		}
	}
	slices.Sort(hashes)
	collide := false
	for i := 1; i < len(hashes) && !collide; i++ {
		collide = hashes[i] == hashes[i-1]
	}
	if !collide {
		return false
	}
	seen := make(map[string]bool, lz.Len())
	for k := 0; k < lz.Len(); k++ {
		if id, ok := lz.EntryID(k); ok {
			if seen[id] {
				return true
			}
			seen[id] = true
		}
	}
	return false
}
