package index

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/memidx/memidx/internal/blocksum"
	"github.com/memidx/memidx/internal/coldvocab"
	"github.com/memidx/memidx/internal/coverage"
	"github.com/memidx/memidx/internal/hotbm25"
	"github.com/memidx/memidx/internal/indexfile"
	"github.com/memidx/memidx/internal/jsjson"
	"github.com/memidx/memidx/internal/lineage"
	"github.com/memidx/memidx/internal/normalize"
	"github.com/memidx/memidx/internal/session"
	"github.com/memidx/memidx/internal/session/confine"
)

// Source is one read of a session file: its bytes, their hash and the
// identity they were read under.
type Source struct {
	Path     string
	Identity Identity
	Data     []byte
	// Hash is the SHA-256 hex of Data.
	Hash string
	// Changed is true when the file changed while it was read: the bytes
	// may mix two versions and must not be indexed.
	Changed bool
	// slim is set, and Data nil, for a source read by the slim reader:
	// its entries are read back from the file one at a time.
	slim *slimRead
	// parser, when set, is the reading worker's: Parse uses its memory,
	// which the worker recycles once the build is done.
	parser *jsjson.Parser
	// scratch, when set, is the reading worker's too: a cold build
	// normalizes in its memory (its builder copies what it keeps).
	scratch *normalize.Scratch
}

// Parse parses the bytes as OMP does. Data must not be modified after.
func (s *Source) Parse() *session.File {
	return session.ParseWith(s.Path, s.Data, s.Hash, session.Options{Stream: len(s.Data) >= session.StreamThreshold, Parser: s.parser})
}

// ReadSource reads path, checking its identity before and after so that a
// read racing a writer is detected rather than indexed. A source whose
// BuildCost exceeds DefaultMaxBuildBytes is refused with
// ErrOverBuildBudget.
func ReadSource(path string) (*Source, error) {
	return readSourceWith(path, newBuildGate(DefaultMaxBuildBytes))
}

// ReadSource is ReadSource under the index's configured maxBuildBytes: a
// whole read that expansion and walks keep (the engine's read cache) is
// bounded as a build is.
func (ix *Index) ReadSource(path string) (*Source, error) {
	return readSourceWith(path, ix.newBuildGate())
}

func readSourceWith(path string, gate *buildGate) (*Source, error) {
	src, release, err := readSourceInto(context.Background(), nil, path, nil, gate, false)
	release()
	return src, err
}

// MaxBuildBytes is the reason of a session whose estimated build memory
// (BuildCost) alone exceeds the configured maxBuildBytes: it is skipped,
// never allocated, and the other sessions are built.
const MaxBuildBytes = "max_build_bytes"

// ErrOverBuildBudget is returned for a source whose BuildCost exceeds the
// build memory bound (maxBuildBytes).
var ErrOverBuildBudget = errors.New("source over the build memory bound (maxBuildBytes)")

// BuildCost estimates the memory that reading, parsing and building a
// source of size bytes and lines lines holds at its peak: the bytes
// themselves and what parsing, normalizing and tokenizing make of them
// (measured: about 4.2 bytes a byte on ordinary sessions, plus about 2 KiB a
// record, which dominates a session of tiny records).
func BuildCost(size, lines int64) int64 {
	return 5*size + 2048*lines + 64<<10
}

// buildGate bounds the estimated memory of the sources being read and
// built at once, across workers. Waiters are served in order, so that a
// large source is not starved by small ones.
type buildGate struct {
	mu      sync.Mutex
	cond    *sync.Cond
	limit   int64
	used    int64
	next    uint64 // the next ticket to hand out
	serving uint64 // the ticket allowed to take its charge
	// abandoned are tickets whose waiters gave up (a cancelled context).
	abandoned map[uint64]bool
	// charged, when set, is told used after each change (Index.BuildCharged).
	charged func(inUse int64)
}

func newBuildGate(limit int64) *buildGate {
	if limit <= 0 {
		limit = DefaultMaxBuildBytes
	}
	g := &buildGate{limit: limit}
	g.cond = sync.NewCond(&g.mu)
	return g
}

// newBuildGate is the bound of one refresh's (or one read's) builds.
func (ix *Index) newBuildGate() *buildGate {
	g := newBuildGate(int64(ix.cfg.MaxBuildBytes))
	g.charged = ix.BuildCharged
	return g
}

// charge takes cost, a source's estimated build memory, of the bound for
// reading the file at path (size before.Size, lines lines): a source whose
// cost alone is over the bound is refused with ErrOverBuildBudget. release
// gives it back (once, whenever called); it is never nil.
func (g *buildGate) charge(ctx context.Context, path string, before Identity, lines, cost int64) (release func(), err error) {
	release = func() {}
	if cost > g.limit {
		return release, fmt.Errorf("%w: %s is %d bytes in %d lines, about %d to build, over %d", ErrOverBuildBudget, path, before.Size, lines, cost, g.limit)
	}
	if err := g.acquire(ctx, cost); err != nil {
		return release, err
	}
	var once sync.Once
	return func() { once.Do(func() { g.release(cost) }) }, nil
}

// acquire takes n bytes of the bound, waiting in turn until they fit. n
// must be at most the limit.
func (g *buildGate) acquire(ctx context.Context, n int64) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	t := g.next
	g.next++
	stop := context.AfterFunc(ctx, func() {
		g.mu.Lock()
		g.cond.Broadcast()
		g.mu.Unlock()
	})
	defer stop()
	for g.serving != t || g.used+n > g.limit {
		if err := ctx.Err(); err != nil {
			// Give the turn away: the next waiter must not wait on a
			// ticket that will never be served.
			g.skipTicket(t)
			return err
		}
		g.cond.Wait()
	}
	g.used += n
	g.serving++
	g.advance()
	g.cond.Broadcast()
	if g.charged != nil {
		g.charged(g.used)
	}
	return nil
}

// skipTicket and advance manage abandoned tickets: a cancelled waiter's
// ticket is remembered and passed over when its turn comes.
func (g *buildGate) skipTicket(t uint64) {
	if g.abandoned == nil {
		g.abandoned = map[uint64]bool{}
	}
	g.abandoned[t] = true
	g.advance()
	g.cond.Broadcast()
}

func (g *buildGate) advance() {
	for g.abandoned[g.serving] {
		delete(g.abandoned, g.serving)
		g.serving++
	}
}

// tryAcquire takes n bytes of the bound at once when they fit and no
// waiter is in line; it never waits. Give them back with release.
func (g *buildGate) tryAcquire(n int64) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if n > 0 && (g.serving != g.next || g.used+n > g.limit) {
		return false
	}
	g.used += n
	if g.charged != nil {
		g.charged(g.used)
	}
	return true
}

func (g *buildGate) release(n int64) {
	g.mu.Lock()
	g.used -= n
	g.cond.Broadcast()
	if g.charged != nil {
		g.charged(g.used)
	}
	g.mu.Unlock()
}

// probeChunk is the read size of the streaming passes over a source.
const probeChunk = 256 << 10

// reuseMax bounds the read buffer a worker keeps between sources: larger
// ones go back to the collector, so that what a worker holds between
// charges stays small.
const reuseMax = 4 << 20

// readSourceInto is ReadSource under gate, reusing buf's memory when it is
// large enough. A small file is read in one pass (readOnePass). Before
// allocating anything of a larger file's size it streams the file once (checking that it can hold a session at all, and counting
// its lines), then waits for the file's BuildCost to fit the gate. With
// trySlim, a file whose BuildCost is over slimFrom is read slim instead,
// charged SlimBuildCost (a Source without Data); one the slim reader does
// not take is read whole after all. release gives the charge back; the
// caller calls it, even on error, once the source and what was built from
// it are no longer needed, and must not reuse buf before then.
func readSourceInto(ctx context.Context, held *confine.Held, path string, buf []byte, gate *buildGate, trySlim bool) (_ *Source, release func(), _ error) {
	release = func() {}
	f, st, err := session.OpenRegularHeld(held, path)
	if err != nil {
		return nil, release, err
	}
	defer f.Close()
	before, err := identityOf(st)
	if err != nil {
		return nil, release, err
	}
	if before.Size > session.MaxFileBytes {
		return nil, release, fmt.Errorf("%s is %d bytes, over the %d-byte limit", path, before.Size, int64(session.MaxFileBytes))
	}
	one := readOnePass(ctx, f, path, before, buf, gate, trySlim)
	if one.done {
		return one.src, one.release, one.err
	}
	lines := one.lines
	if lines < 0 {
		var err error
		if lines, err = probe(f, path, before, gate); err != nil {
			return nil, release, err
		}
	}
	if trySlim && useSlim(before.Size, lines) {
		src, release, err := readSlim(ctx, f, path, before, lines, gate)
		if !errors.Is(err, session.ErrNeedsFullRead) {
			return src, release, err
		}
		release() // read whole, as today
	}
	return readWhole(ctx, f, path, before, lines, buf, gate)
}

// probe streams f (opened at path, of identity before) once and returns
// its line count. The header check comes first: a file that is no session
// says so, whatever its size. Too large is over even the least any build
// of it can cost, a slim build's.
func probe(f *os.File, path string, before Identity, gate *buildGate) (int64, error) {
	tooLarge := min(BuildCost(before.Size, 0), SlimBuildCost(before.Size, 0)) > gate.limit
	sourceReads.Add(1)
	lines, notSession, err := probeSource(f, before.Size, !tooLarge)
	if err != nil {
		return 0, err
	}
	if notSession {
		return 0, fmt.Errorf("%w: %s", ErrNotSession, path)
	}
	if tooLarge {
		return 0, fmt.Errorf("%w: %s is %d bytes, at least %d to build, over %d", ErrOverBuildBudget, path, before.Size, SlimBuildCost(before.Size, 0), gate.limit)
	}
	return lines, nil
}

// readWhole reads f (opened at path, of identity before and lines lines)
// into buf's memory when it is large enough, under gate with the file's
// BuildCost, hashing it as it goes.
func readWhole(ctx context.Context, f *os.File, path string, before Identity, lines int64, buf []byte, gate *buildGate) (_ *Source, release func(), _ error) {
	release, err := gate.charge(ctx, path, before, lines, BuildCost(before.Size, lines))
	if err != nil {
		return nil, release, err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, release, err
	}
	src, err := readAll(f, path, before, buf)
	if err != nil {
		return nil, release, err
	}
	if !session.IsSessionData(src.Data) {
		return nil, release, fmt.Errorf("%w: %s", ErrNotSession, path)
	}
	return src, release, nil
}

// onePassMax is the largest source read in one pass (readOnePass): its
// least BuildCost is within slimFrom, so it may be read whole.
const onePassMax = (slimFrom - 64<<10) / 5

// onePass is what readOnePass did: done, with the source or the error
// (and release, never nil); or not done, with nothing charged or kept, the
// file back at its start, and its line count when it was read (else -1).
type onePass struct {
	done    bool
	src     *Source
	release func()
	err     error
	lines   int64
}

// readOnePass reads a small source in one pass instead of a probe and a
// read: it charges the gate the cost of the bytes alone, reads, hashes
// and counts the lines at once, then takes the rest of the file's
// BuildCost, if the gate has it now. It is not done when the two-pass
// read must decide: a source too large or too costly for the gate (not
// read), or of so many lines that it is read slim, or a gate that others
// are waiting on (read: a second wait while holding a charge could
// deadlock them; the two-pass read waits holding nothing).
func readOnePass(ctx context.Context, f *os.File, path string, before Identity, buf []byte, gate *buildGate, trySlim bool) onePass {
	base := BuildCost(before.Size, 0)
	if before.Size > onePassMax || base > gate.limit {
		return onePass{lines: -1}
	}
	release, err := gate.charge(ctx, path, before, 0, base)
	failed := func(err error) onePass { return onePass{done: true, release: release, err: err} }
	if err != nil {
		return failed(err)
	}
	src, err := readAll(f, path, before, buf)
	if err != nil {
		return failed(err)
	}
	if !session.IsSessionData(src.Data) {
		return failed(fmt.Errorf("%w: %s", ErrNotSession, path))
	}
	lines := int64(bytes.Count(src.Data, []byte{'\n'}))
	rest := BuildCost(before.Size, lines) - base
	if base+rest > gate.limit {
		return failed(fmt.Errorf("%w: %s is %d bytes in %d lines, about %d to build, over %d", ErrOverBuildBudget, path, before.Size, lines, base+rest, gate.limit))
	}
	if (trySlim && useSlim(before.Size, lines)) || !gate.tryAcquire(rest) {
		release()
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return onePass{done: true, release: func() {}, err: err}
		}
		return onePass{lines: lines}
	}
	var once sync.Once
	both := func() { once.Do(func() { release(); gate.release(rest) }) }
	return onePass{done: true, src: src, release: both}
}

// readAll reads f (opened at path, of identity before) from where it
// stands into buf's memory when it is large enough, hashing it as it goes;
// the source is Changed when the file is not as it was at before.
func readAll(f *os.File, path string, before Identity, buf []byte) (*Source, error) {
	sourceReads.Add(1)
	// One byte more than the file: a file that grew meanwhile is seen to
	// have changed without reading (or allocating) what it grew by.
	want := int(before.Size) + 1
	if cap(buf) < want {
		buf = make([]byte, 0, want)
	}
	data := buf[:0]
	h := sha256.New()
	for len(data) < want {
		n, err := f.Read(data[len(data):min(len(data)+probeChunk, want)])
		h.Write(data[len(data) : len(data)+n])
		data = data[:len(data)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	after, err := StatIdentity(path)
	src := &Source{Path: path, Identity: before, Data: data}
	if err != nil || after != before || int64(len(data)) != before.Size {
		src.Changed = true
	}
	// Only a session's bytes are hashed (the caller checks): a stray
	// *.jsonl, a swapped-in file, stops there.
	src.Hash = hex.EncodeToString(h.Sum(nil))
	return src, nil
}

// probeSource streams the file from its start with a small buffer and
// returns its line count, or notSession when no line of it can start a
// JSON value: every line that is not blank starts (after white space) with
// a control byte that neither OMP loader takes for white space or a value,
// a NUL above all. Such a file (a sparse file, a zeroed one) holds no
// value, is not blank, and OMP refuses it: it is rejected without reading
// it into memory. The scan for that stops at the first line that could
// start a value; the line count, when countLines, reads on.
func probeSource(f io.Reader, size int64, countLines bool) (lines int64, notSession bool, err error) {
	chunk := make([]byte, min(probeChunk, max(size, 1)))
	dead := false     // a line that cannot start a value was seen
	deciding := true  // every line so far could not start a value
	lineStart := true // at the start of a line (after white space only)
	file, _ := f.(*os.File)
	var pos int64
	for {
		// A hole reads as NUL bytes and holds no line break: it is passed
		// over (a sparse file costs no read of its holes). A hole at the
		// start of a line makes that line one that cannot start a value.
		if file != nil {
			next, ok := nextData(file, pos)
			if !ok && pos >= size {
				break // the end
			}
			if next > pos || !ok {
				if deciding && lineStart {
					dead, lineStart = true, false
				}
				pos = next
			}
			if !ok {
				break
			}
		}
		n, rerr := f.Read(chunk)
		pos += int64(n)
		b := chunk[:n]
		lines += int64(bytes.Count(b, []byte{'\n'}))
		for i := 0; deciding && i < len(b); i++ {
			c := b[i]
			switch {
			case c == '\n':
				lineStart = true
			case !lineStart:
				// Skip to the end of a dead line.
				if j := bytes.IndexByte(b[i:], '\n'); j >= 0 {
					i += j - 1
				} else {
					i = len(b)
				}
			case c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f':
			case c < 0x20:
				dead, lineStart = true, false
			default:
				deciding = false
			}
		}
		if rerr == io.EOF || (!deciding && !countLines) {
			break
		}
		if rerr != nil {
			return 0, false, rerr
		}
	}
	return lines, deciding && dead, nil
}

// ErrNotSession is returned for a file that OMP would not open as a
// session (no valid header, and not blank).
var ErrNotSession = errors.New("not an OMP session file")

// built is a record with its tier data, ready to write.
type built struct {
	rec *Record
	hot *hotbm25.Built
	// cold is the whole digest, encoded only for an answer from memory
	// (Built); stored is its form in the file (coldvocab.Stored).
	cold   *coldvocab.Finished
	stored []byte
	bytes  int64 // source bytes read
	// unstored: the run found no stored record for the session (see
	// writer.sole).
	unstored bool
	state    int // the session's target, and state, in the run
}

// liveSignature identifies a live branch.
func liveSignature(l *lineage.Live) string {
	if l == nil {
		return ""
	}
	h := sha256.New()
	io.WriteString(h, l.LeafID)
	for _, id := range l.BranchIDs {
		io.WriteString(h, "\x00")
		io.WriteString(h, id)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// build normalizes a source into the record and tier data of tier. full
// keeps every entry's whole text in a hot shard: a hydrated cold session,
// never stored. A source read by the slim reader is built entry by entry
// (buildSlim); it may answer session.ErrNeedsFullRead, and the caller then
// reads the source whole.
func (ix *Index) build(src *Source, mode lineage.Mode, tier Tier, live *lineage.Live, full bool) (*built, error) {
	if src.slim != nil {
		return ix.buildSlim(src, mode, tier, live, full)
	}
	f := src.Parse()
	sel := lineage.Select(f, mode, liveFor(mode, live))
	rec := ix.newRecord(src, f.Header, f.SourceHash, sel, mode, tier, live)
	opt := ix.normalizeOptions() // full text: the cold vocabulary needs it
	if tier == Cold && !full {
		// The entries go to a coldvocab.Builder, which keeps copies:
		// the next build may write over them.
		opt.Scratch = src.scratch
	}
	res := normalize.Session(f, sel, opt)
	sink := ix.newSink(rec, tier, full, len(res.Entries))
	for i := range res.Entries {
		if err := sink.add(&res.Entries[i]); err != nil {
			return nil, err
		}
	}
	return sink.finish(res.Problems)
}

// normalizeOptions are the build's: the policy's, with every entry's whole
// text (the cold vocabulary needs it; the hot tier bounds it itself).
func (ix *Index) normalizeOptions() normalize.Options {
	return normalize.Options{IndexThinking: ix.policy.IndexThinking, IndexToolOutput: ix.policy.IndexToolOutput}
}

// newRecord is the record of a build of src before its entries are seen.
func (ix *Index) newRecord(src *Source, h *session.Header, hash string, sel *lineage.Selection, mode lineage.Mode, tier Tier, live *lineage.Live) *Record {
	rec := &Record{
		CacheVersion: indexfile.CacheVersion,
		Path:         src.Path,
		Branches:     BranchModeOf(mode),
		Identity:     src.Identity,
		SourceHash:   MustSum(hash),
		policy:       ix.policyOf(tier, mode),
		Tier:         tier,
		IndexedAtNs:  time.Now().UnixNano(),
		// The build's own: it fills them in place (entrySink.add, finish).
		facts: &sessionFacts{lineageFingerprint: MustSum(sel.Fingerprint)},
	}
	rec.setNote(nil, liveSignature(liveFor(mode, live)))
	if h != nil {
		rec.facts.sessionID = h.ID
		rec.facts.cwd = h.Cwd
	}
	return rec
}

// entrySink takes a session's normalized entries one at a time into its
// record and its tier's builder, which keeps of each only what the tier
// stores: the same code builds from a slice of entries (the full read)
// and from entries normalized one by one (the slim read), so both give
// the same record and data.
type entrySink struct {
	ix       *Index
	rec      *Record
	full     bool
	problems coverage.Set // the sink's own: entries cut at maxEntryChars
	hot      *hotbm25.Builder
	cold     *coldvocab.Builder
}

// newSink starts the build of rec's tier data for about n entries.
func (ix *Index) newSink(rec *Record, tier Tier, full bool, n int) *entrySink {
	s := &entrySink{ix: ix, rec: rec, full: full}
	if tier == Hot {
		s.hot = hotbm25.NewBuilder(n)
		return s
	}
	s.cold = coldvocab.NewBuilder(digestIdentity(rec), coldvocab.Limits{
		MaxVocabularyBytes: s.ix.policy.MaxColdVocabularyBytes,
		MaxCacheBytes:      s.ix.policy.MaxColdCacheBytes,
	})
	return s
}

// digestIdentity is the identity of rec's digest: the fields a stored
// digest leaves to its record (coldvocab.Stored), and its stamps.
func digestIdentity(rec *Record) coldvocab.Digest {
	return coldvocab.Digest{
		SessionID:          rec.SessionID(),
		File:               rec.Path,
		Cwd:                rec.Cwd(),
		MtimeMs:            rec.MtimeMs(),
		Size:               rec.Identity.Size,
		SourceHash:         rec.SourceHash.String(),
		Branches:           rec.Branches.String(),
		LineageFingerprint: rec.LineageFingerprint().String(),
		Policy:             rec.Policy(),
	}
}

// add takes the next entry; the sink keeps no reference to it. A hot
// entry is bounded first (unless full).
func (s *entrySink) add(e *normalize.Entry) error {
	rec := s.rec
	rec.EntryCount++
	if ts := e.Timestamp; ts != nil {
		f := rec.facts // the build's own (newRecord)
		if first, ok := f.firstTs.Value(); !ok || *ts < first {
			f.firstTs = stampAt(*ts)
		}
		if last, ok := f.lastTs.Value(); !ok || *ts > last {
			f.lastTs = stampAt(*ts)
		}
	}
	if s.cold != nil {
		s.cold.Add(e)
		return nil
	}
	// One budget for the text and the argument rests it indexes: a hot
	// entry stays within MaxEntryChars, and a cut of either makes an
	// empty answer non-authoritative.
	if !s.full && e.Bound(s.ix.policy.MaxEntryChars) {
		s.problems.Add(coverage.MaxEntryChars)
	}
	return s.hot.Add(e)
}

// finish encodes the tier data; problems are the file's, the selection's
// and normalization's.
func (s *entrySink) finish(problems coverage.Set) (*built, error) {
	rec := s.rec
	b := &built{rec: rec, bytes: rec.Identity.Size}
	problems.Merge(s.problems)
	if s.hot != nil {
		hb, err := s.hot.Finish()
		if err != nil {
			return nil, err
		}
		b.hot = hb
		rec.SumLen = hb.SumLen
		rec.facts.cacheBytes = int64(len(hb.Dict) + len(hb.Cols) + len(hb.Ents))
		rec.DataStamp, _ = blocksum.Stamp(hb.Dict, hb.Cols, hb.Ents)
	} else {
		f, err := s.cold.Complete(problems)
		if err != nil {
			return nil, err
		}
		if b.stored, err = f.Stored(); err != nil {
			return nil, err
		}
		b.cold = f
		problems = coverage.Of(f.Digest().IndexCoverage.Reasons...)
		rec.facts.cacheBytes = int64(f.Size())
		rec.DataStamp, _ = blocksum.Stamp(b.stored)
	}
	rec.SetReasons(problems.Reasons())
	return b, nil
}

func liveFor(mode lineage.Mode, live *lineage.Live) *lineage.Live {
	if mode != lineage.Active {
		return nil
	}
	return live
}

// Built is a session read and built for one tier without touching the
// index file: the record and either the hot shard or the cold digest.
type Built struct {
	Record *Record
	Hot    *hotbm25.Built
	Cold   []byte
}

// public is b as a caller answering from memory reads it, the cold
// digest encoded whole.
func (b *built) public() (*Built, error) {
	p := &Built{Record: b.rec, Hot: b.hot}
	if b.cold != nil {
		var err error
		if p.Cold, _, err = b.cold.Blob(); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// ErrSourceUnavailable wraps the error of a session file that could not be
// read.
var ErrSourceUnavailable = errors.New("source unavailable")

// BuildSource reads and builds one session in memory, as a refresh would
// for tier (Hot or Cold), with the index's policy, under live when it is
// the host's live session (nil: it is not). Nothing is written: the
// engine uses it to answer when the index file cannot be used. A source
// that cannot be read gives ErrSourceUnavailable.
func (ix *Index) BuildSource(t Target, live *lineage.Live, mode lineage.Mode, tier Tier) (*Built, error) {
	return ix.buildSource(t, live, mode, tier, false)
}

// HydrateSource reads one session into an in-memory hot shard of its full,
// untruncated entries, so that a cold session answers entry by entry; the
// record still says Cold. live is as for BuildSource. Nothing is written.
func (ix *Index) HydrateSource(t Target, live *lineage.Live, mode lineage.Mode) (*Built, error) {
	b, err := ix.buildSource(t, live, mode, Hot, true)
	if err != nil {
		return nil, err
	}
	b.Record.Tier = Cold
	return b, nil
}

func (ix *Index) buildSource(t Target, live *lineage.Live, mode lineage.Mode, tier Tier, full bool) (*Built, error) {
	gate := ix.newBuildGate()
	b, src, release, readErr, err := ix.readAndBuild(context.Background(), nil, t.Path, nil, gate, func(src *Source) (*built, error) {
		return ix.build(src, mode, tier, live, full)
	})
	defer release()
	if readErr != nil {
		return nil, fmt.Errorf("%w: %w", ErrSourceUnavailable, readErr)
	}
	if err != nil {
		return nil, err
	}
	if src.Changed {
		b.rec.SetReasons(append(slices.Clip(b.rec.Reasons()), coverage.SourceChangedDuringIndex))
	}
	return b.public()
}
