package index

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strings"
	"sync"

	bolt "go.etcd.io/bbolt"

	"github.com/memidx/memidx/internal/analyzer/natural"
	"github.com/memidx/memidx/internal/blocksum"
	"github.com/memidx/memidx/internal/coldvocab"
	"github.com/memidx/memidx/internal/indexfile"
	"github.com/memidx/memidx/internal/lexicon"
	"github.com/memidx/memidx/internal/lineage"
	"github.com/memidx/memidx/internal/termtab"
)

// The archive lexicon (package lexicon) lives in one bucket:
//
//	id                                     random, set when the bucket is made
//	<mode>\x00s<seq, 8 bytes big-endian>  bucket {v: a sealed segment}
//	<mode>\x00segs                         sealed list of the mode's segment seqs
//	<mode>\x00epoch                        uvarint, bumped by every merge or reset
//
// The bucket's sequence numbers both the segments and the cold records'
// docs, so a doc is never reused. A cold record is in the lexicon under
// its Doc from the transaction that writes it; a rebuilt or removed
// session's old doc is dead (no record names it) until a merge drops it.
var lexiconBucket = []byte("lexicon")

// mergeFanIn segments of one size class (a power of 8 of their bytes) are
// merged into one, the next class up: a log-structured merge, so that a
// doc is rewritten O(log n) times, a query reads a few segments per
// class, and no merge but a forced one holds the whole lexicon.
const mergeFanIn = 8

func sizeClass(n int) int { return bits.Len(uint(n)) / 3 }

// maxMergeInput bounds the segments a tiered merge takes, so that no
// merge holds more than mergeFanIn of them (64 MiB) in memory: past it a
// segment only gets rewritten alone, to drop dead docs. It is well above
// a write batch's segment (about 1 MiB on generated archives): merged
// segments store each term once instead of once per batch (the 2k archive's
// lexicon: 39.5 -> 16.9 MB) and a query probes a few segments, not one per
// batch (33 -> 5).
const maxMergeInput = 8 << 20

func lexKey(mode lineage.Mode, name string) []byte {
	return append(append([]byte(mode), 0), name...)
}

func segmentKey(mode lineage.Mode, seq uint64) []byte { return appendSegmentKey(nil, mode, seq) }

// appendSegmentKey appends the key of mode's segment seq to b.
func appendSegmentKey(b []byte, mode lineage.Mode, seq uint64) []byte {
	b = append(append(b, mode...), 0, 's')
	return binary.BigEndian.AppendUint64(b, seq)
}

// A segment is the one value of a bucket of its own: bbolt rewrites a
// whole leaf when any of its keys changes, so segments sharing a leaf
// would be copied again by every write (as hot shards are kept apart too).
var segmentValue = []byte("v")

func putSegment(lb *bolt.Bucket, mode lineage.Mode, seq uint64, sealed []byte, census lexicon.Census) error {
	key := segmentKey(mode, seq)
	b, err := lb.CreateBucket(key)
	if err != nil {
		return err
	}
	b.FillPercent = 1
	if err := b.Put(segmentValue, sealed); err != nil {
		return err
	}
	return putCensus(lb, key, census)
}

// deleteStored removes whatever is stored under key: a bucket (a segment,
// the notes), or the plain value a damaged file may hold in its place.
func deleteStored(lb *bolt.Bucket, key []byte) error {
	if lb.Bucket(key) != nil {
		return lb.DeleteBucket(key)
	}
	return lb.Delete(key)
}

// segmentAt returns the segment stored under key (nil when there is none).
func segmentAt(lb *bolt.Bucket, key []byte) []byte {
	if b := lb.Bucket(key); b != nil {
		return b.Get(segmentValue)
	}
	return nil
}

// addToLexicon numbers every build of batch (setting its record's Doc)
// and writes their keys as one new segment: a cold digest's filter keys
// and terms, a hot shard's terms. lx is the batch's segment gathered
// ahead of the write (gatherLexicon), or nil.
func addToLexicon(tx *bolt.Tx, mode lineage.Mode, batch []*built, lx *lexiconBatch) error {
	lb, err := lexiconBucketOf(tx)
	if err != nil {
		return err
	}
	if lx == nil {
		if lx, _, err = lexiconSources(batch); err != nil {
			return err
		}
	}
	if len(lx.builds) == 0 {
		return nil
	}
	for i, b := range lx.builds {
		doc, err := lb.NextSequence()
		if err != nil {
			return err
		}
		if doc > math.MaxUint32 {
			return errors.New("index: lexicon doc numbers exhausted; remove the index directory to rebuild it")
		}
		b.rec.Doc = uint32(doc)
		lx.srcs[i].Doc = b.rec.Doc
	}
	sealed, err := lx.seal()
	if err != nil {
		return err
	}
	keys, err := segmentList(lb, mode)
	if errors.Is(err, ErrLexiconDamaged) {
		// Start over: the cold records the old lexicon indexed go too.
		if err := resetLexicon(tx, mode); err != nil {
			return err
		}
		keys, err = nil, nil
	}
	if err != nil {
		return err
	}
	seq, err := lb.NextSequence()
	if err != nil {
		return err
	}
	if err := putSegment(lb, mode, seq, sealed, lexicon.CensusOf(lx.srcs)); err != nil {
		return err
	}
	return putSegmentList(lb, mode, append(keys, segmentKey(mode, seq)))
}

// lexiconBatch is the lexicon segment of a write batch before its docs
// are numbered: the builds it indexes, in batch order, their sources,
// and, when gathered ahead, their keys (the sources then keep only their
// lengths).
type lexiconBatch struct {
	builds   []*built
	srcs     []lexicon.Source
	gathered *lexicon.Gathered
}

// lexiconSources lists the builds of batch the lexicon indexes, with
// their sources (a hot shard's dictionary decoded; a cold digest's keys
// as its builder kept them) and how many keys they hold in all.
func lexiconSources(batch []*built) (*lexiconBatch, int, error) {
	lx := &lexiconBatch{}
	keys := 0
	for _, b := range batch {
		if b.cold == nil && (b.hot == nil || len(b.hot.Dict) > maxLexiconShardDict) {
			continue
		}
		var src lexicon.Source
		var err error
		if b.cold != nil {
			src = finishedSource(0, b.cold)
		} else {
			src, err = shardSource(0, b.hot.Dict)
		}
		if err != nil {
			return nil, 0, err
		}
		lx.builds = append(lx.builds, b)
		lx.srcs = append(lx.srcs, src)
		keys += src.Len
	}
	return lx, keys, nil
}

// gatherLexicon gathers the segment of batch ahead of its write
// (writer.flush: on the goroutine that takes the builds, while the write
// goroutine writes the batch before): gathering the sessions' keys was a
// quarter of a 100k rebuild's single writer. It returns nil, for the
// write to do it, when the batch holds more keys than are gathered (the
// write merges its sources instead) or a hot shard's dictionary does not
// decode (the write fails on it).
func gatherLexicon(gr *lexicon.Gatherer, batch []*built) *lexiconBatch {
	lx, keys, err := lexiconSources(batch)
	if err != nil || keys > maxGatheredKeys {
		return nil
	}
	lx.gathered = gr.Gather(lx.srcs)
	for i := range lx.builds {
		lx.srcs[i].Key = nil // Seal reads the docs only
	}
	return lx
}

// seal writes the segment, its sources numbered.
func (lx *lexiconBatch) seal() ([]byte, error) {
	if lx.gathered == nil {
		return buildSegment(lx.srcs)
	}
	return lx.gathered.Seal(lx.srcs)
}

// maxGatheredKeys bounds the keys of a write batch whose segment is built
// by gathering them in a map (lexicon.BuildGathered: twice as fast as a
// heap merge of a rebuild's batch of a thousand sources, some 430,000
// keys at 100k sessions); past it, the heap merge, which holds no key but
// the segment's own. Gathering holds at most about 40 MB, every key
// distinct; some 10 MB on real batches.
const maxGatheredKeys = 1 << 19

// buildSegment writes the segment of a write batch's sources.
func buildSegment(srcs []lexicon.Source) ([]byte, error) {
	keys := 0
	for _, s := range srcs {
		keys += s.Len
	}
	if keys <= maxGatheredKeys {
		return lexicon.BuildGathered(srcs)
	}
	return lexicon.BuildSorted(sortedSources(srcs))
}

// sortedSources is srcs with each source's keys in increasing order, as
// lexicon.BuildSorted takes them (Gather takes any order): a new digest
// lists its vocabulary in the order the terms were first seen
// (coldvocab.Builder.Terms); such a source is given a sorted copy.
func sortedSources(srcs []lexicon.Source) []lexicon.Source {
	out := slices.Clone(srcs)
	for i, src := range out {
		sorted := true
		for k := 1; k < src.Len && sorted; k++ {
			sorted = bytes.Compare(src.Key(k-1), src.Key(k)) < 0
		}
		if sorted {
			continue
		}
		keys := make([][]byte, src.Len)
		for k := range keys {
			keys[k] = bytes.Clone(src.Key(k))
		}
		slices.SortFunc(keys, bytes.Compare)
		out[i].Key = func(k int) []byte { return keys[k] }
	}
	return out
}

// finishedSource lists what the lexicon keeps of a cold digest just
// built: its structural filter keys (they start with a NUL byte, so they
// sort first), then every term of its vocabulary, exactly as the digest
// holds them (a capped digest's prefixes included), so that the lexicon
// and the digest always agree; the terms are in the order its kept list
// has them (as first seen: see sortedSources). The keys are views into the
// digest's fields, or into the vocabulary its builder kept
// (coldvocab.Finished.Terms). Neither the blob is encoded nor its
// vocabulary inflated again (5 of a 100k rebuild's ~100 CPU-seconds).
func finishedSource(doc uint32, f *coldvocab.Finished) lexicon.Source {
	addr, terms := f.StructuralKeys(), f.Terms()
	nAddr := len(addr)
	return lexicon.Source{Doc: doc, Len: nAddr + terms.Len(), Key: func(i int) []byte {
		if i < nAddr {
			return addr[i]
		}
		return terms.Term(i - nAddr)
	}}
}

// maxLexiconShardDict bounds the dictionary of a hot shard the lexicon
// numbers. A larger one (a session of a million distinct words) would add
// as much again to a build's memory and to the lexicon, for a shard that
// is then only ever opened, as hot shards without a doc are. Generated and
// real hot shards' dictionaries are 2-240 KB.
const maxLexiconShardDict = 1 << 20

// shardSource lists what the lexicon keeps of a hot shard: the keys of
// its dictionary, in order (its terms, and its structural keys, which no
// query reads for a hot doc: a query with a filter opens every hot
// shard), less its stemmed field.
func shardSource(doc uint32, dict []byte) (lexicon.Source, error) {
	b, err := blocksum.Open(dict)
	if err != nil {
		return lexicon.Source{}, err
	}
	t, err := termtab.Open(b)
	if err != nil {
		return lexicon.Source{}, err
	}
	// Its stemmed field stays out: the lexicon answers a stem from its
	// forms (Lexicon.Docs).
	lo, hi := t.Prefix(natural.KeyPrefix)
	key := func(i int) []byte {
		if i >= lo {
			i += hi - lo
		}
		return t.Term(i)
	}
	return lexicon.Source{Doc: doc, Len: t.Len() - (hi - lo), Key: key}, t.Err()
}

// The segments of a mode are named by a sealed list (key <mode>\x00segs,
// 8-byte big-endian seqs): a damaged bucket name or a lost key would
// otherwise hide a segment, and the sessions only it indexes, without a
// trace. A listed segment that is missing, or segments without a list,
// are damage.

// segmentList returns the keys of mode's segments, as listed.
func segmentList(lb *bolt.Bucket, mode lineage.Mode) ([][]byte, error) {
	keys, err := listedSegments(lb, mode)
	if err != nil {
		return nil, err
	}
	for _, k := range keys {
		if lb.Bucket(k) == nil {
			return nil, missingSegment(k)
		}
	}
	return keys, nil
}

// listedSegments is segmentList without the check that each listed
// segment is there, for a caller that opens each anyway and fails on a
// missing one (missingSegment): a read checked each twice. The keys
// share one buffer.
func listedSegments(lb *bolt.Bucket, mode lineage.Mode) ([][]byte, error) {
	v := lb.Get(lexKey(mode, "segs"))
	if v == nil {
		if len(segmentBuckets(lb, mode)) > 0 {
			return nil, fmt.Errorf("%w: segments without a list", ErrLexiconDamaged)
		}
		return nil, nil
	}
	data, err := blocksum.Unseal(v)
	if err != nil || len(data)%8 != 0 {
		return nil, fmt.Errorf("%w: segment list: %v", ErrLexiconDamaged, err)
	}
	n := len(data) / 8
	buf := make([]byte, 0, n*(len(mode)+2+8))
	keys := make([][]byte, 0, n)
	for i := 0; i < len(data); i += 8 {
		at := len(buf)
		buf = appendSegmentKey(buf, mode, binary.BigEndian.Uint64(data[i:]))
		keys = append(keys, buf[at:len(buf):len(buf)])
	}
	return keys, nil
}

func missingSegment(k []byte) error {
	return fmt.Errorf("%w: listed segment %x is missing", ErrLexiconDamaged, k)
}

// putSegmentList stores the list of mode's segment keys.
func putSegmentList(lb *bolt.Bucket, mode lineage.Mode, keys [][]byte) error {
	data := make([]byte, 0, 8*len(keys))
	for _, k := range keys {
		data = append(data, k[len(k)-8:]...)
	}
	sealed, err := blocksum.Seal(data)
	if err != nil {
		return err
	}
	return lb.Put(lexKey(mode, "segs"), sealed)
}

// segmentBuckets returns every key under mode's segment prefix, listed or
// not (for a reset, and to notice segments without a list).
func segmentBuckets(lb *bolt.Bucket, mode lineage.Mode) [][]byte {
	var keys [][]byte
	prefix := lexKey(mode, "s")
	c := lb.Cursor()
	for k, _ := c.Seek(prefix); k != nil && strings.HasPrefix(string(k), string(prefix)); k, _ = c.Next() {
		if len(k) == len(prefix)+8 {
			keys = append(keys, append([]byte(nil), k...))
		}
	}
	return keys
}

// mergeLexicon merges mode's segments: first, each segment that is half
// dead is rewritten alone (lexdead.go); then each size class that has
// mergeFanIn segments under maxMergeInput bytes is merged, cascading. With
// force (a write that removed sessions) every segment is rewritten, alone,
// so that the removed sessions' docs, and the words only they held, leave
// the file. Only the docs of the records stored now are kept, and a
// segment left with none is dropped. A merge bumps the epoch, so that a
// reader whose records predate it does not trust the lexicon.
//
// live, when set, gives the docs the records of mode in tx name, as
// liveDocs would read them (writer.liveFromKept).
func mergeLexicon(tx *bolt.Tx, mode lineage.Mode, force bool, live func() docSet) error {
	lb := tx.Bucket(lexiconBucket)
	if lb == nil {
		return nil
	}
	keys, err := segmentList(lb, mode)
	if errors.Is(err, ErrLexiconDamaged) {
		return resetLexicon(tx, mode)
	}
	if err != nil {
		return err
	}
	m := &merger{tx: tx, lb: lb, mode: mode, keys: keys, liveOf: live}
	// Rewritten alone: every segment when forced, else the half-dead ones.
	alone := keys
	if !force {
		alone = nil
		if sweepDead {
			alone, err = halfDead(lb, mode, keys, m.liveDocs)
		}
	}
	for _, k := range slices.Clone(alone) {
		if err != nil {
			break
		}
		err = m.merge([][]byte{k})
	}
	for err == nil {
		pick := pickMerge(lb, m.keys)
		if pick == nil {
			break
		}
		err = m.merge(pick)
	}
	if errors.Is(err, ErrLexiconDamaged) {
		return resetLexicon(tx, mode)
	}
	if err != nil || !m.merged {
		return err
	}
	if err := putSegmentList(lb, mode, m.keys); err != nil {
		return err
	}
	return bumpEpoch(lb, mode)
}

// dropMapped lets go of what a write transaction has read of the file so
// far (indexfile.DropPages): a merge reads every record and its inputs,
// and at 100k sessions those were 100-160 MB of a rebuild's peak RSS.
var dropMapped = indexfile.DropPages

// merger merges segments of one mode in one write, keeping their list.
type merger struct {
	tx     *bolt.Tx
	lb     *bolt.Bucket
	mode   lineage.Mode
	keys   [][]byte // the segments listed now
	live   docSet
	liveOf func() docSet // liveDocs without reading every record
	merged bool
}

// liveChecked, when set, is given the docs a merge took from the kept
// records beside those liveDocs reads (tests).
var liveChecked func(kept docSet, read docMap)

// docSet is a set of lexicon docs: the live ones, for a merge.
type docSet interface{ has(doc uint32) bool }

// everyDoc is the docSet of a lexicon whose every doc is live
// (writer.docsStayLive).
type everyDoc struct{}

func (everyDoc) has(uint32) bool { return true }

// everyDocChecked, when set, is given the docs the records name and those
// of the segments listed, for a merge told that every doc is live (tests).
var everyDocChecked func(read docMap, listed []uint32)

// docMap is a docSet that holds its docs.
type docMap map[uint32]struct{}

func (m docMap) has(doc uint32) bool { _, ok := m[doc]; return ok }

// liveDocs are the docs that records name, read once.
func (m *merger) liveDocs() docSet {
	switch {
	case m.live != nil:
	case m.liveOf != nil:
		m.live = m.liveOf()
		if _, all := m.live.(everyDoc); all && everyDocChecked != nil {
			everyDocChecked(liveDocs(m.tx, m.mode), m.listedDocs())
		} else if liveChecked != nil {
			liveChecked(m.live, liveDocs(m.tx, m.mode))
		}
	default:
		m.live = liveDocs(m.tx, m.mode)
		dropMapped(m.tx) // every record was read
	}
	return m.live
}

// listedDocs are the docs of the segments listed now, by their
// censuses (everyDocChecked).
func (m *merger) listedDocs() []uint32 {
	var out []uint32
	for _, k := range m.keys {
		c, _, err := censusOf(m.lb, k)
		if err != nil {
			return append(out, 0) // no record names doc 0
		}
		for _, d := range c {
			out = append(out, d.Doc)
		}
	}
	return out
}

// merge replaces the segments pick by their merge in the list (by
// nothing when none of their docs is live).
func (m *merger) merge(pick [][]byte) error {
	k, err := mergeSegments(m.lb, m.mode, pick, m.liveDocs())
	if err != nil {
		return err
	}
	dropMapped(m.tx) // the inputs, up to mergeFanIn*maxMergeInput bytes
	m.merged = true
	m.keys = slices.DeleteFunc(m.keys, func(x []byte) bool {
		return slices.ContainsFunc(pick, func(p []byte) bool { return bytes.Equal(p, x) })
	})
	if k != nil {
		m.keys = append(m.keys, k)
	}
	return nil
}

// pickMerge chooses the segments to merge next, or nil.
func pickMerge(lb *bolt.Bucket, keys [][]byte) [][]byte {
	byClass := map[int][][]byte{}
	for _, k := range keys {
		n := len(segmentAt(lb, k))
		if n >= maxMergeInput {
			continue
		}
		c := sizeClass(n)
		byClass[c] = append(byClass[c], k)
		if len(byClass[c]) == mergeFanIn {
			return byClass[c]
		}
	}
	return nil
}

// mergeSegments replaces the segments at keys by their merge and returns
// its key (the caller lists it), or nil when nothing in them was live.
func mergeSegments(lb *bolt.Bucket, mode lineage.Mode, keys [][]byte, live docSet) ([]byte, error) {
	segs := make([]lexicon.Segment, len(keys))
	censuses := make([]lexicon.Census, len(keys))
	for i, k := range keys {
		var err error
		if segs[i], err = lexicon.Open(segmentAt(lb, k)); err != nil {
			return nil, fmt.Errorf("%w: lexicon: %v", ErrLexiconDamaged, err)
		}
		if censuses[i], _, err = censusOf(lb, k); err != nil {
			return nil, fmt.Errorf("%w: lexicon: %v", ErrLexiconDamaged, err)
		}
	}
	isLive := live.has
	if _, all := live.(everyDoc); all || everyDocLive(censuses, live) {
		// Nothing to drop: the merge need not ask of every posting (a
		// map lookup each, a third of a rebuild's merges).
		isLive = nil
	}
	tx := lb.Tx()
	merged, err := lexicon.MergeEvery(segs, isLive, mergeDropKeys, func() { dropMapped(tx) })
	if err != nil {
		return nil, fmt.Errorf("%w: lexicon: %v", ErrLexiconDamaged, err)
	}
	census := lexicon.Merged(censuses, isLive)
	if err := forgetNotes(lb, mode, censuses); err != nil {
		return nil, err
	}
	for _, k := range keys {
		if err := deleteStored(lb, k); err != nil {
			return nil, err
		}
	}
	if seg, err := lexicon.Open(merged); err == nil && seg.Len() == 0 {
		return nil, nil // every doc was dead: no segment
	}
	seq, err := lb.NextSequence()
	if err != nil {
		return nil, err
	}
	return segmentKey(mode, seq), putSegment(lb, mode, seq, merged, census)
}

// everyDocLive reports whether live holds every doc of the censuses (a
// census lists every doc of its segment).
func everyDocLive(censuses []lexicon.Census, live docSet) bool {
	for _, c := range censuses {
		for _, d := range c {
			if !live.has(d.Doc) {
				return false
			}
		}
	}
	return true
}

// ErrLexiconDamaged is returned for a lexicon segment whose checksums or
// shape are wrong. Nothing is answered from it: the caller opens the
// digests instead, and ResetLexicon rebuilds it.
var ErrLexiconDamaged = errors.New("index: lexicon damaged")

// resetLexicon drops mode's lexicon and every record of mode it numbered
// (every cold record, and hot records with a doc), with their tier data:
// the lexicon can only be rebuilt from them, and their sessions are
// rebuilt from source by the next refresh (a damaged lexicon is as rare as
// any damaged value). The epoch moves on, so that no reader trusts what it
// read before.
func resetLexicon(tx *bolt.Tx, mode lineage.Mode) error {
	lb := tx.Bucket(lexiconBucket)
	if lb != nil {
		for _, k := range segmentBuckets(lb, mode) {
			if err := deleteStored(lb, k); err != nil {
				return err
			}
		}
		if err := lb.Delete(lexKey(mode, "segs")); err != nil {
			return err
		}
	}
	var cold [][]byte
	eachRecord(tx, mode, func(k []byte, r *Record, err error) {
		if err != nil || r.Tier == Cold || r.Doc != 0 {
			cold = append(cold, append([]byte(nil), k...))
		}
	})
	for _, k := range cold {
		if err := deleteSession(tx, k); err != nil {
			return err
		}
	}
	if lb == nil {
		return nil
	}
	// After the records: deleting them noted their docs.
	if err := deleteStored(lb, deadBucket(mode)); err != nil {
		return err
	}
	// A new id too: a writer that reset the lexicon in its own write must
	// not take the epoch after it as its records' (see adoptEpoch).
	if err := putLexiconID(lb); err != nil {
		return err
	}
	return bumpEpoch(lb, mode)
}

// bumpEpoch counts one more merge (or reset) of mode's lexicon.
func bumpEpoch(lb *bolt.Bucket, mode lineage.Mode) error {
	epoch, _ := binary.Uvarint(lb.Get(lexKey(mode, "epoch")))
	return lb.Put(lexKey(mode, "epoch"), binary.AppendUvarint(nil, epoch+1))
}

// ResetLexicon drops a lexicon a query found damaged (see resetLexicon).
// It reports whether it was dropped.
func (ix *Index) ResetLexicon(ctx context.Context, mode lineage.Mode) bool {
	return ix.store.Update(ctx, func(tx *bolt.Tx) error { return resetLexicon(tx, mode) }) == nil
}

// liveDocs are the docs of mode's records.
func liveDocs(tx *bolt.Tx, mode lineage.Mode) docMap {
	live := docMap{}
	n := 0
	eachStored(tx, mode, func(_ []byte, r *Record, err error) {
		if err == nil && r.Doc != 0 {
			live[r.Doc] = struct{}{}
		}
		if n++; n%liveDropRecords == 0 {
			dropMapped(tx) // the records bucket is 50 MB at 100k sessions
		}
	})
	return live
}

// liveDropRecords is how many records liveDocs reads (some 2 MB of the
// file) before it lets go of their pages, and mergeDropKeys how many keys
// a merge walks (a few MB of its inputs) before it does: a write
// transaction that reads the whole records bucket, then 8 segments of up
// to 8 MB, kept 100-150 MB of the file mapped at 100k sessions.
const (
	liveDropRecords = 4096
	mergeDropKeys   = 1 << 16
)

// LexiconEpoch says which lexicon a caller's records belong to: the
// lexicon bucket's random id (a new index file, after a reset or an rm -r,
// numbers its docs from 1 again) and mode's merge count.
type LexiconEpoch struct {
	ID    string
	Merge uint64
}

// lexiconEpoch reads mode's epoch.
func lexiconEpoch(tx *bolt.Tx, mode lineage.Mode) LexiconEpoch {
	lb := tx.Bucket(lexiconBucket)
	if lb == nil {
		return LexiconEpoch{}
	}
	e, _ := binary.Uvarint(lb.Get(lexKey(mode, "epoch")))
	return LexiconEpoch{ID: string(lb.Get(lexiconIDKey)), Merge: e}
}

// lexiconIDKey holds the lexicon bucket's random id, set when the bucket
// is created.
var lexiconIDKey = []byte("id")

// lexiconBucketOf returns the lexicon bucket, creating it with a fresh id.
func lexiconBucketOf(tx *bolt.Tx) (*bolt.Bucket, error) {
	if lb := tx.Bucket(lexiconBucket); lb != nil {
		return lb, nil
	}
	lb, err := tx.CreateBucket(lexiconBucket)
	if err != nil {
		return nil, err
	}
	return lb, putLexiconID(lb)
}

// putLexiconID gives the lexicon bucket a fresh random id.
func putLexiconID(lb *bolt.Bucket) error {
	var id [16]byte
	if _, err := rand.Read(id[:]); err != nil {
		return err
	}
	return lb.Put(lexiconIDKey, id[:])
}

// mergeAfterWrite merges mode's lexicon after a write. When the write
// removed sessions (of either mode) or replaced what a changed policy no
// longer indexes (scrub), every mode that lost something has each of its
// segments rewritten, so that those words leave the file.
// live is mergeLexicon's, for mode.
func mergeAfterWrite(tx *bolt.Tx, mode lineage.Mode, deletes [][]byte, scrub bool, live func() docSet) error {
	forced := map[lineage.Mode]bool{mode: scrub}
	for _, k := range deletes {
		if i := bytes.IndexByte(k, 0); i > 0 {
			forced[lineage.Mode(k[:i])] = true
		}
	}
	for m, force := range forced {
		if m != mode && force {
			if err := mergeLexicon(tx, m, true, nil); err != nil {
				return err
			}
		}
	}
	return mergeLexicon(tx, mode, forced[mode], live)
}

// Lexicon is the archive lexicon of one mode as one read transaction sees
// it. Valid only inside that transaction.
type Lexicon struct {
	// Epoch names the lexicon and counts its merges: a lexicon of another
	// epoch than the records a caller holds may have dropped their docs,
	// or be another file's.
	Epoch LexiconEpoch
	ids   *lexIDMemo // the Index's, for Identity (nil: made each time)
	segs  []lexicon.Segment
	// lb and keys find the segments' censuses (Vocabularies).
	lb   *bolt.Bucket
	keys [][]byte
	// giveBack, for a short-lived Index, holds each segment's bytes in
	// the read's map (tx): a lookup gives back what it mapped of the
	// segment (read), since the page cache maps whole folios (at 100k
	// sessions, a one-shot recall's peak RSS was 24 MB more for a
	// lookup in each of 16 segments). A long-lived one keeps them
	// mapped, within its map budget (LongLived).
	giveBack [][]byte
	tx       *bolt.Tx
	// StemScanCut reports that a stem lookup met the scan budget
	// (maxStemScan) and found only the stem itself: the lexicon's answer
	// for that stem is not complete.
	StemScanCut bool
	scanned     int
}

// Identity names what the lexicon holds: its epoch and its segments. A
// segment is never rewritten under its key (a merge writes a new one and
// bumps the epoch), so two reads with the same identity find the same
// postings, and what a caller derived from them may be kept between reads.
func (l *Lexicon) Identity() string {
	if l.ids != nil {
		return l.ids.of(l)
	}
	return l.identity()
}

func (l *Lexicon) identity() string {
	b := append([]byte(nil), l.Epoch.ID...)
	b = binary.AppendUvarint(b, l.Epoch.Merge)
	for _, k := range l.keys {
		b = append(b, k...)
	}
	return string(b)
}

// lexIDMemo keeps the last lexicon identity an Index made and what it was
// made of: a server's every search asks it, of the same lexicon until a
// write (some 600 bytes of a 100k archive's, twice, a call).
type lexIDMemo struct {
	mu    sync.Mutex
	epoch LexiconEpoch
	keys  [][]byte
	id    string
}

// of is l's identity, the kept one when l is of the same epoch and
// segments.
func (m *lexIDMemo) of(l *Lexicon) string {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.id != "" && m.epoch == l.Epoch && slices.EqualFunc(m.keys, l.keys, bytes.Equal) {
		return m.id
	}
	m.epoch, m.id = l.Epoch, l.identity()
	m.keys = make([][]byte, len(l.keys))
	for i, k := range l.keys {
		m.keys[i] = bytes.Clone(k)
	}
	return m.id
}

// Lexicon opens the reader's mode's lexicon; nil when the index has none.
func (r *Reader) Lexicon() (*Lexicon, error) {
	if r.tx == nil {
		return nil, nil
	}
	lb := r.tx.Bucket(lexiconBucket)
	if lb == nil {
		return nil, nil
	}
	keys, err := listedSegments(lb, r.mode) // each is opened below
	if err != nil {
		return nil, err
	}
	l := newLexicon(len(keys))
	l.Epoch, l.lb, l.keys = lexiconEpoch(r.tx, r.mode), lb, keys
	if r.ix != nil {
		l.ids = &r.ix.lexIDs
	}
	longLived := r.ix.longLived.Load()
	at, atOK := r.commit()
	if !longLived {
		l.tx = r.tx
	}
	var drop func(b []byte) // gives back a probe's pages (WithGiveBack)
	for _, k := range keys {
		raw := segmentAt(lb, k)
		if raw == nil {
			l.Release()
			return nil, missingSegment(k)
		}
		s, err := lexicon.OpenSeen(raw, r.segSeen(k))
		if err != nil {
			l.Release()
			return nil, fmt.Errorf("%w: %v", ErrLexiconDamaged, err)
		}
		switch {
		case !longLived:
			l.giveBack = append(l.giveBack, raw)
			// Opening it mapped the folio of its head: given back now,
			// not when a lookup reads the segment, so that a call does
			// not hold one folio a segment at once (up to 15 MB at 100k
			// sessions, when the call's heap peaks); so are the folios
			// a lookup's binary search maps, probe by probe (10 MB).
			indexfile.DropRange(r.tx, raw)
			if len(raw) > probeGiveBackFrom {
				if drop == nil {
					tx := r.tx
					drop = func(b []byte) { indexfile.DropRange(tx, b) }
				}
				s = s.WithGiveBack(drop)
			}
		case atOK:
			s = r.ix.runKeys.with(l.Epoch.ID, at, k, keys, raw, s, func() { indexfile.DropRange(r.tx, raw) })
		}
		l.segs = append(l.segs, s)
	}
	return l, nil
}

// probeGiveBackFrom is the segment size from which a short-lived
// lexicon gives back the pages of each probe of a lookup's search: the
// probes of a smaller one fall in a folio or two, which the lookup's
// own give-back covers, and giving back after each probe would only
// fault the same folio again for the next.
var probeGiveBackFrom = 4 << 20 // a variable for tests

// lexicons keeps the tables of released Lexicons (Release): a search
// opens the lexicon once, and its segments' table, some 300 bytes a
// segment, was a tenth of a rare-term recall's garbage in a server.
var lexicons sync.Pool

// newLexicon is an empty Lexicon with room for n segments, a released
// one when the pool has one.
func newLexicon(n int) *Lexicon {
	if l, ok := lexicons.Get().(*Lexicon); ok && cap(l.segs) >= n {
		return l
	}
	return &Lexicon{segs: make([]lexicon.Segment, 0, n)}
}

// Release gives l's tables back for another read's Lexicon: l must not be
// used after. Its segments point into the read's map, which may be
// unmapped and its addresses reused: they are cleared, not kept.
func (l *Lexicon) Release() {
	if l == nil {
		return
	}
	segs, back := l.segs[:cap(l.segs)], l.giveBack[:cap(l.giveBack)]
	clear(segs)
	clear(back)
	*l = Lexicon{segs: segs[:0], giveBack: back[:0]}
	lexicons.Put(l)
}

// read is called when a lookup is done with segment i (see giveBack).
func (l *Lexicon) read(i int) {
	if l.tx != nil {
		indexfile.DropRange(l.tx, l.giveBack[i])
	}
}

// Docs appends the docs, live or dead, that hold key to dst (unsorted
// across segments). For a stem's natural.Key, they are the docs that hold
// any of the stem's forms, each once.
func (l *Lexicon) Docs(dst []uint32, key string) ([]uint32, error) {
	if stem, ok := strings.CutPrefix(key, natural.KeyPrefix); ok {
		return l.stemDocs(dst, stem)
	}
	for i, s := range l.segs {
		var err error
		dst, err = s.AppendDocs(dst, key)
		l.read(i)
		if err != nil {
			return dst, fmt.Errorf("%w: %v", ErrLexiconDamaged, err)
		}
	}
	return dst, nil
}

// stemDocs appends the docs that hold a form of stem, found among the keys
// that start with natural.FormPrefix(stem): the lexicon keeps no stem
// keys of its own, so a stem costs nothing to index and a scan of a few
// keys to look up. The scans of one lexicon read share a budget of
// maxStemScan keys (a query of hundreds of two-letter words would scan
// the whole lexicon over and over); past it a stem finds only itself, and
// StemScanCut says so.
func (l *Lexicon) stemDocs(dst []uint32, stem string) ([]uint32, error) {
	if natural.OwnFormOnly(stem) || l.scanned >= maxStemScan {
		l.StemScanCut = l.StemScanCut || !natural.OwnFormOnly(stem)
		return l.Docs(dst, stem)
	}
	n := len(dst)
	form := func(k []byte) (bool, bool) {
		if l.scanned++; l.scanned > maxStemScan {
			l.StemScanCut = true
			return false, false
		}
		return natural.IsForm(k, stem), true
	}
	for i, s := range l.segs {
		var err error
		dst, err = s.AppendMatchingDocs(dst, natural.FormPrefix(stem), form)
		l.read(i)
		if err != nil {
			return dst, fmt.Errorf("%w: %v", ErrLexiconDamaged, err)
		}
	}
	if l.StemScanCut {
		// The stem itself, at least, wherever the scan stopped.
		var err error
		if dst, err = l.Docs(dst, stem); err != nil {
			return dst, err
		}
	}
	found := dst[n:]
	slices.Sort(found)
	return dst[:n+len(slices.Compact(found))], nil
}

// maxStemScan bounds the keys the stem lookups of one lexicon read scan:
// a question's stems scan a few hundred.
var maxStemScan = 1 << 15

// AllCurrent reports whether every record the refresh read is current
// (Current answers true for each without a look): the file is still at
// the refresh's commit, which wrote nothing. A search that would ask
// Current of nearly every cold session can then skip the asking.
func (r *Reader) AllCurrent() bool { return r.tx != nil && r.unchanged }

// Current reports whether rec is still the record stored for its session:
// a session that the lexicon says can match is checked before it is
// answered from, since another process may have rewritten it after rec was
// read (its digest then has another stamp and is read from source). At
// the refresh's own commit it touches neither rec nor the file: a common
// term asks it of nearly every cold session, and a candidate's record is
// completed when its digest is read.
func (r *Reader) Current(rec *Record) bool {
	if r.tx == nil {
		return false
	}
	if r.unchanged {
		return true
	}
	complete(r.tx, r.mode, rec)
	b := r.tx.Bucket(recordsBucket)
	if b == nil {
		return false
	}
	key := recordKey(r.mode, rec.Path)
	doc, stamp, ok := storedBuild(key, b.Get(key))
	return ok && doc == rec.Doc && stamp == rec.DataStamp
}

// Complete makes rec whole when it is a partial record (see Preload): a
// cold session answered from the lexicon alone, whose digest was not read.
// It answers ErrNoData when the stored record is missing, damaged or of
// another build.
func (r *Reader) Complete(rec *Record) error { return r.whole(rec) }

// LexiconBytes is the size of the reader's mode's lexicon segments.
func (r *Reader) LexiconBytes() int64 {
	if r.tx == nil {
		return 0
	}
	lb := r.tx.Bucket(lexiconBucket)
	if lb == nil {
		return 0
	}
	var n int64
	for _, k := range segmentBuckets(lb, r.mode) {
		n += int64(len(segmentAt(lb, k)))
	}
	return n
}

// Vocabularies returns the terms the lexicon holds for each of docs (cold
// docs: the vocabularies of their stored digests, coldvocab.Stored), each
// list in increasing order, without the structural keys. A doc is in one
// segment only: a segment whose census names none of docs is skipped, and
// the others are read once, their postings only as far as the docs they
// hold need.
func (l *Lexicon) Vocabularies(docs []uint32) (map[uint32][]string, error) {
	out := make(map[uint32][]string, len(docs))
	for _, d := range docs {
		out[d] = nil
	}
	for i, s := range l.segs {
		lo, hi, ok := l.docRange(i, out)
		if !ok {
			continue
		}
		err := s.EachPostingIn(lo, hi, func(key []byte, held []uint32) error {
			if key[0] == 0 {
				return nil // a structural key
			}
			var term string
			for _, d := range held {
				if list, ok := out[d]; ok {
					if term == "" {
						term = string(key)
					}
					out[d] = append(list, term)
				}
			}
			return nil
		})
		l.read(i)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrLexiconDamaged, err)
		}
	}
	return out, nil
}

// KeyCounts returns how many keys (terms and structural keys) the
// lexicon holds for each of docs that a segment's census names: a bound
// on a doc's terms, read without its postings. A doc of a segment without
// a readable census is left out.
func (l *Lexicon) KeyCounts(docs []uint32) map[uint32]int {
	want := make(map[uint32]bool, len(docs))
	for _, d := range docs {
		want[d] = true
	}
	out := make(map[uint32]int, len(docs))
	for i := range l.keys {
		for _, dk := range l.census(i) {
			if want[dk.Doc] {
				out[dk.Doc] += int(dk.Keys)
			}
		}
	}
	return out
}

// census is segment i's census; nil when it has none that reads.
func (l *Lexicon) census(i int) lexicon.Census {
	if i >= len(l.keys) || l.lb == nil {
		return nil
	}
	b := l.lb.Bucket(l.keys[i])
	if b == nil {
		return nil
	}
	c, err := lexicon.DecodeCensus(b.Get(censusValue))
	if err != nil {
		return nil
	}
	return c
}

// docRange is the range of the docs of want that segment i holds, by its
// census (all of want's when it has none that reads); ok is false when it
// holds none.
func (l *Lexicon) docRange(i int, want map[uint32][]string) (lo, hi uint32, ok bool) {
	lo = math.MaxUint32
	add := func(d uint32) { lo, hi, ok = min(lo, d), max(hi, d), true }
	census := l.census(i)
	if census == nil {
		for d := range want {
			add(d)
		}
		return lo, hi, ok
	}
	for _, dk := range census {
		if _, in := want[dk.Doc]; in {
			add(dk.Doc)
		}
	}
	return lo, hi, ok
}

// Holds reports whether the cold session of rec, whose digest v is,
// holds term: by the digest's own vocabulary when it has one (a digest
// built in memory), else by the archive lexicon under rec's doc (a stored
// digest, coldvocab.Stored).
func (r *Reader) Holds(rec *Record, v coldvocab.View, term string) (bool, error) {
	if !v.Vocabulary.InLexicon() {
		return v.HasTerm(term), v.Err()
	}
	lex, err := r.Lexicon()
	if err != nil || lex == nil {
		return false, errors.Join(ErrNoData, err)
	}
	docs, err := lex.Docs(nil, term)
	return slices.Contains(docs, rec.Doc), err
}
