package index

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"unsafe"

	bolt "go.etcd.io/bbolt"

	"github.com/memidx/memidx/internal/blocksum"
	"github.com/memidx/memidx/internal/indexfile"
	"github.com/memidx/memidx/internal/lineage"
)

// The manifest holds, beside each record and under the same key, the part
// of it that the stat gate and a search over the whole scope read: path,
// identity, tier, policy, live signature, source hash, counts, stamps,
// doc and reasons. A one-shot recall walks the manifest, whose small
// values bbolt packs many to a page, instead of the records, and decodes
// a session's full record (session id, cwd, lineage fingerprint, cache
// bytes, timestamps) only when its tier data is read (Reader.Shard,
// Digest, Digests, Current): for the candidates and the hits.
//
// A manifest entry is written and deleted with its record, in the same
// transaction. A record without an entry is new to the gate (rebuilt); an
// entry that does not decode is removed with its record.
var manifestBucket = []byte("manifest")

// manifestFormat is the first byte of an encoded manifest entry.
//
//	1: first form.
//	2: Pack after Doc.
const manifestFormat = 2

// Layout: the format byte; Path and LiveSignature as uvarint-length-
// prefixed strings; the policy's fingerprint (policyID, 8 bytes); the
// SourceHash's 32 bytes (hex-decoded); a tier byte (0 hot, 1 cold); varint
// Size, MtimeNs, CtimeNs, EntryCount, SumLen, IndexedAtNs, VerifiedAtNs;
// uvarint Inode, Dev; uint32 DataStamp; uvarint Doc; uvarint Pack; uvarint count of
// Reasons and each as a string. The key is the record's key.

func encodeGate(r *Record) ([]byte, error) {
	b := make([]byte, 0, 96+len(r.Path)+sha256.Size+16*len(r.Reasons()))
	b = append(b, manifestFormat)
	b = appendString(b, r.Path)
	b = appendString(b, r.LiveSignature())
	b = binary.LittleEndian.AppendUint64(b, r.policyFingerprint())
	if r.SourceHash.IsZero() {
		return nil, fmt.Errorf("record of %s: no source hash", r.Path)
	}
	b = append(b, r.SourceHash.b[:]...)
	tier := byte(0)
	if r.Tier == Cold {
		tier = 1
	}
	b = append(b, tier)
	for _, v := range []int64{r.Identity.Size, r.Identity.MtimeNs, r.Identity.CtimeNs,
		int64(r.EntryCount), r.SumLen, r.IndexedAtNs, r.VerifiedAtNs} {
		b = binary.AppendVarint(b, v)
	}
	return blocksum.Seal(appendPlacement(b, r))
}

// appendPlacement writes the fields a manifest entry ends with, in this
// order: the file's inode and device, the data stamp,
// the doc id, the cold pack, and the reasons (readPlacement reads them).
func appendPlacement(b []byte, r *Record) []byte {
	b = binary.AppendUvarint(b, r.Identity.Inode)
	b = binary.AppendUvarint(b, r.Identity.Dev)
	b = binary.LittleEndian.AppendUint32(b, r.DataStamp)
	b = binary.AppendUvarint(b, uint64(r.Doc))
	b = binary.AppendUvarint(b, r.Pack)
	b = binary.AppendUvarint(b, uint64(len(r.Reasons())))
	for _, s := range r.Reasons() {
		b = appendString(b, s)
	}
	return b
}

// readPlacement reads what appendPlacement wrote into r, and returns
// the reasons.
func (a *recordArena) readPlacement(d *recordReader, r *Record) (reasons []string) {
	r.Identity.Inode = d.uvarint()
	r.Identity.Dev = d.uvarint()
	r.DataStamp, r.Doc, r.Pack = d.build()
	if n := d.uvarint(); d.ok && n <= uint64(len(d.b)-d.pos) {
		for range n {
			reasons = append(reasons, a.str(d.field()))
		}
	} else {
		d.ok = false
	}
	return reasons
}

// decodeGate decodes the manifest entry under key of mode into a partial
// record (Record.partial): the fields only the full record holds are
// empty until Reader completes it.
func (a *recordArena) decodeGate(mode lineage.Mode, key, sealed []byte) (*Record, error) {
	return a.decodeGateAs(mode, key, sealed, true)
}

// openGate checks a manifest entry's seal and format, and returns a
// reader at its first field.
func openGate(sealed []byte) (recordReader, error) {
	b, err := blocksum.Unseal(sealed)
	if err != nil {
		return recordReader{}, err
	}
	d := recordReader{b: b, ok: true}
	if f := d.bytes(1); f == nil || f[0] != manifestFormat {
		return recordReader{}, errRecordShape
	}
	return d, nil
}

// decodeGateAs is decodeGate; without withPath the record's Path is
// left empty (a keyed gate, gateTable, sets it).
func (a *recordArena) decodeGateAs(mode lineage.Mode, key, sealed []byte, withPath bool) (*Record, error) {
	d, err := openGate(sealed)
	if err != nil {
		return nil, err
	}
	r := a.gate()
	r.CacheVersion = indexfile.CacheVersion
	r.Branches = BranchModeOf(mode)
	if p := d.field(); withPath {
		r.Path = a.path(p)
	}
	live := a.str(d.field())
	if v := d.bytes(8); v != nil {
		r.policy = a.policyNum(binary.LittleEndian.Uint64(v))
	}
	if v := d.bytes(sha256.Size); v != nil {
		r.SourceHash = sumFrom(v)
	}
	switch t := d.bytes(1); {
	case t == nil:
	case t[0] == 0:
		r.Tier = Hot
	case t[0] == 1:
		r.Tier = Cold
	default:
		d.ok = false
	}
	gateNumbers(&d, r)
	r.setNote(a.readPlacement(&d, r), live)
	// The key is not checked against the path (a SHA-256 an entry): an
	// entry under another key can only make its session look changed or
	// its data missing, since the full record and the tier data are
	// compared with it before they answer (complete, Reader.sameData).
	if !d.ok || d.pos != len(d.b) {
		return nil, errRecordShape
	}
	r.partial = true
	return r, nil
}

// policyID is the fingerprint a manifest entry keeps of its policy
// string (the first 8 bytes of its SHA-256): the string itself is some
// 100 bytes a session.
func policyID(policy string) uint64 {
	sum := sha256.Sum256([]byte(policy))
	return binary.LittleEndian.Uint64(sum[:8])
}

// policyNum is the number of the policy whose fingerprint is id
// (policies.byFingerprint), remembered by the arena: its records share a
// few.
func (a *recordArena) policyNum(id uint64) policyNum {
	if a == nil {
		return policies.byFingerprint(id)
	}
	if n, ok := a.policyNums[id]; ok {
		return n
	}
	n := policies.byFingerprint(id)
	if a.policyNums == nil {
		a.policyNums = map[uint64]policyNum{}
	}
	a.policyNums[id] = n
	return n
}

// gateNumbers reads a manifest entry's numbers after its tier byte, up to
// the placement it shares with the record (readPlacement).
func gateNumbers(d *recordReader, r *Record) {
	r.Identity.Size = d.varint()
	r.Identity.MtimeNs = d.varint()
	r.Identity.CtimeNs = d.varint()
	if n := d.varint(); n >= 0 && n <= math.MaxInt32 {
		r.EntryCount = int32(n)
	} else {
		d.ok = false
	}
	r.SumLen = d.varint()
	r.IndexedAtNs = d.varint()
	r.VerifiedAtNs = d.varint()
}

// putGate writes rec's manifest entry under key.
func putGate(tx *bolt.Tx, key []byte, rec *Record) error {
	mb, err := tx.CreateBucketIfNotExists(manifestBucket)
	if err != nil {
		return err
	}
	enc, err := encodeGate(rec)
	if err != nil {
		return err
	}
	return mb.Put(key, enc)
}

// deleteGate removes the manifest entry under key.
func deleteGate(tx *bolt.Tx, key []byte) error {
	if mb := tx.Bucket(manifestBucket); mb != nil {
		return mb.Delete(key)
	}
	return nil
}

// loadGateAt is loadRecordsAt from the manifest: partial records, never
// kept in the record cache (a later call of the same Index decodes the
// full records and keeps those).
func (ix *Index) loadGateAt(ctx context.Context, mode lineage.Mode) (loaded, error) {
	return ix.loadGate(ctx, mode, false)
}

// errGateKeyed: a manifest key is not a record key, or the keys are not
// in increasing order; the manifest is read again with paths.
var errGateKeyed = errors.New("manifest keys not in record-key form")

// loadGateKeyed is loadGateAt into a gateTable (see there), or with
// paths when a key is not a record key.
func (ix *Index) loadGateKeyed(ctx context.Context, mode lineage.Mode) (loaded, error) {
	got, err := ix.loadGate(ctx, mode, true)
	if errors.Is(err, errGateKeyed) {
		return ix.loadGate(ctx, mode, false)
	}
	return got, err
}

// loadGate is loadGateAt; keyed reads the records into a gateTable, by
// key, without copying their paths.
func (ix *Index) loadGate(ctx context.Context, mode lineage.Mode, keyed bool) (loaded, error) {
	var got loaded
	err := ix.store.View(ctx, func(tx *bolt.Tx) error {
		at, ok := ix.commitOf(tx)
		got = loaded{epoch: lexiconEpoch(tx, mode), at: at, atKnown: ok, partial: true}
		got.roster, got.hasRoster = readRoster(tx)
		mb := tx.Bucket(manifestBucket)
		if mb == nil {
			got.stored = map[string]*Record{}
			return nil
		}
		prefix := []byte(string(mode) + "\x00")
		arena := recordArena{hold: ix.holdRecords, keyed: keyed}
		var recs []*Record
		var tab *gateTable
		if keyed {
			tab = &gateTable{}
		}
		pages := mappedPages{area: indexfile.Mapped(tx)}
		defer pages.drop()
		inMap := valuesInMap(tx, mb)
		c := mb.Cursor()
		for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
			if inMap {
				pages.addDropping(v)
			}
			if tab != nil && len(k) != len(prefix)+gateSumLen {
				return errGateKeyed // not a record key: read paths
			}
			r, err := arena.decodeGateAs(mode, k, v, tab == nil)
			if err != nil {
				got.bad = append(got.bad, append([]byte(nil), k...))
				continue
			}
			if tab != nil {
				if !tab.add(r, k[len(prefix):]) {
					return errGateKeyed
				}
				continue
			}
			recs = append(recs, r)
		}
		if tab != nil {
			tab.seal()
			got.gate = tab
			arena.grow(tab.bytes())
		} else {
			got.stored = make(map[string]*Record, len(recs))
			for _, r := range recs {
				got.stored[r.Path] = r
			}
		}
		got.held = arena.held
		ix.holdRecords(arena.held)
		indexfile.DropPages(tx) // the records are copies
		return nil
	})
	if errors.Is(err, indexfile.ErrMissing) {
		return loaded{stored: map[string]*Record{}, partial: true}, nil
	}
	return got, err
}

// gateSumLen is the length of the path's SHA-256 prefix in a record key
// (recordKey).
const gateSumLen = 16

// gateTable is the manifest of a call over the whole archive, looked up
// by the SHA-256 prefix of a path that is the records' key (recordKey)
// rather than by the path: its partial records copy no path (13 MB of a
// 100k archive's, which were garbage once a target's path replaced them,
// sharePaths) and hash none. A target's record is found by its path's
// sum; the records no target found get their paths afterwards
// (gatePaths): sessions gone since, few.
//
// The sums come in the manifest's key order, increasing, and are
// uniform: a directory of the first sum under each value of their top
// bits finds one in a run of about gateBucketLoad, with no map (a map
// of 100k sums was 4 MB live and 8 MB allocated while it grew, in the
// call's peak; the directory is a tenth of that, pointer-free).
type gateTable struct {
	// chunks hold the records and their sums in sum order, gateChunk to
	// a chunk: one slice grown by append to 100k entries was 13 MB
	// allocated for 2.4 live, in a one-shot call's peak.
	chunks [][]gateEntry
	n      int
	// dir[b] is the first record whose sum's top bits are b or more;
	// len(dir) is 1<<bits + 1, bits = 64 - shift.
	dir   []int32
	shift uint
}

// gateEntry is a record of a gateTable and the sum it is stored under.
type gateEntry struct {
	sum [gateSumLen]byte
	rec *Record
}

// gateChunk is how many entries a chunk of a gateTable holds (48 KB).
const gateChunk = 2048

// gateBucketLoad is about how many sums share a directory entry.
const gateBucketLoad = 4

// len is how many records the table holds.
func (g *gateTable) len() int { return g.n }

// bytes is what the table holds: its chunks and its directory.
func (g *gateTable) bytes() int64 {
	return int64(len(g.chunks))*gateChunk*int64(unsafe.Sizeof(gateEntry{})) + int64(len(g.dir))*4
}

// at is entry i.
func (g *gateTable) at(i int) *gateEntry { return &g.chunks[i/gateChunk][i%gateChunk] }

// add adds rec stored under a key that ends in sum; false when sum does
// not come after the last one added.
func (g *gateTable) add(rec *Record, sum []byte) bool {
	s := [gateSumLen]byte(sum)
	if g.n > 0 && bytes.Compare(g.at(g.n - 1).sum[:], s[:]) >= 0 {
		return false
	}
	if g.n%gateChunk == 0 {
		g.chunks = append(g.chunks, make([]gateEntry, gateChunk))
	}
	*g.at(g.n) = gateEntry{s, rec}
	g.n++
	return true
}

// seal builds the directory once every sum is added.
func (g *gateTable) seal() {
	bits := uint(1)
	for 1<<bits < g.n/gateBucketLoad {
		bits++
	}
	g.shift = 64 - bits
	g.dir = make([]int32, 1<<bits+1)
	i := 0
	for b := range g.dir {
		for i < g.n && g.top(i) < uint64(b) {
			i++
		}
		g.dir[b] = int32(i)
	}
}

// top is the directory entry of sum i.
func (g *gateTable) top(i int) uint64 {
	return binary.BigEndian.Uint64(g.at(i).sum[:8]) >> g.shift
}

// find is the record stored for path, nil when there is none.
func (g *gateTable) find(path string) *Record {
	return g.lookup(gateSumOf(bytesOf(path)))
}

// lookup is the record stored under sum, nil when there is none.
func (g *gateTable) lookup(sum [gateSumLen]byte) *Record {
	b := binary.BigEndian.Uint64(sum[:8]) >> g.shift
	for i := g.dir[b]; i < g.dir[b+1]; i++ {
		if e := g.at(int(i)); e.sum == sum {
			return e.rec
		}
	}
	return nil
}

// gatePaths gives the records of a keyed gate their paths, once the
// targets found theirs: a found one takes its target's path; when some
// were not found, the others' are read from the manifest, and k.stored
// maps every path to its record as loadGateAt's would, when byPath (what
// a refresh that keeps the records needs, and one that sees a record
// without a target: hotSet, the orphans sweep). It
// reports whether every record got its path from a manifest read at
// commit at (the gate's own: the records then equal a decode by path,
// and may be kept), and whether each is stored under its own path's key
// (loaded.clean; a found one is, by its key's sum).
func (ix *Index) gatePaths(ctx context.Context, mode lineage.Mode, k *knownSessions, g *gateTable, at commit, byPath bool) (complete, clean bool) {
	for i, rec := range k.recs {
		if rec != nil {
			rec.pointAt(k.targets[i].Path)
		}
	}
	complete, clean = true, true
	// Whether some record is still without a path, not whether as many
	// targets as records found one: two targets of one path would hide a
	// record no target found.
	pathless := false
	for i := 0; i < g.n && !pathless; i++ {
		pathless = g.at(i).rec.Path == ""
	}
	if pathless {
		prefix := []byte(string(mode) + "\x00")
		err := ix.store.View(ctx, func(tx *bolt.Tx) error {
			mb := tx.Bucket(manifestBucket)
			if now, ok := ix.commitOf(tx); !ok || now != at || mb == nil {
				complete = false
			}
			if mb == nil {
				return nil
			}
			key := slices.Clone(prefix)
			for i := range g.n {
				e := g.at(i)
				rec := e.rec
				if rec.Path != "" {
					continue
				}
				key = append(key[:len(prefix)], e.sum[:]...)
				p, ok := gatePathOf(mb.Get(key))
				if !ok {
					complete = false
					continue
				}
				rec.pointAt(string(p))
				clean = clean && gateSumOf(p) == e.sum
			}
			return nil
		})
		complete = complete && err == nil
	}
	if !byPath {
		return complete, clean
	}
	k.stored = make(map[string]*Record, g.n)
	for i := range g.n {
		if rec := g.at(i).rec; rec.Path != "" {
			k.stored[rec.Path] = rec
		}
	}
	return complete, clean
}

// gatePathOf is the path of a manifest entry.
func gatePathOf(sealed []byte) ([]byte, bool) {
	d, err := openGate(sealed)
	if err != nil {
		return nil, false
	}
	p := d.field()
	return p, d.ok && len(p) > 0
}

// sharePaths points each partial record that a target matched, and the
// key it is stored under, at the target's path: the listing's string,
// with the same bytes. A one-shot call then holds each path once, and
// the manifest's copies of them are garbage (recordArena.paths). It
// returns how many bytes of those copies it let go of.
func sharePaths(k *knownSessions) (freed int64) {
	for i, rec := range k.recs {
		if rec == nil {
			continue
		}
		p := k.targets[i].Path
		freed += int64(len(rec.Path))
		rec.pointAt(p)
		k.stored[p] = rec // a map assignment takes the new key's bytes
	}
	return freed
}

// valuesInMap reports whether the values of b, a top-level bucket, lie
// in the index file's map, whose pages can be given back (mappedPages):
// a read transaction hands out its pages in place, but a small bucket
// stored inline in its parent's value is copied to the Go heap when that
// value is not aligned, and a writable transaction's may be on the heap.
func valuesInMap(tx *bolt.Tx, b *bolt.Bucket) bool {
	return !tx.Writable() && b.Root() != 0
}

// mapEntryBytes is about what an entry of the records' map takes (a
// string key, a pointer, the table's control byte and free room).
const mapEntryBytes = 48

// holdRecords tells RecordsHeld what a one-shot call's partial records
// take: a soft heap limit under what the call must hold anyway only
// makes the collector run back to back (at 100k sessions it was half
// the call's time).
func (ix *Index) holdRecords(held int64) {
	if hook := ix.RecordsHeld; hook != nil {
		hook(held)
	}
}

// completeMu serialises the completion of partial records: a search may
// read tier data on more than one goroutine. It guards completions too.
var completeMu sync.Mutex

// completions holds what complete copies into partial records: their
// strings cut from shared chunks. A search
// over two common words completes most of an archive's records, and a
// whole record decoded and copied for each was 80 MB at 100k sessions.
// What a chunk holds stays as long as a record refers to it.
var completions completionArena

type completionArena struct {
	arena recordArena
	// tx and records are a cursor over the records bucket of the last
	// transaction completed in: bbolt allocates a bucket each time a read
	// transaction opens one, and a cursor for each Get. key and scratch
	// are reused too.
	tx      *bolt.Tx
	records *bolt.Cursor
	key     []byte
	scratch recordSlot
}

// complete fills a partial record's remaining fields from its full record
// in tx. A record stored since under the key that is not the same build
// (another process rewrote the session) leaves rec partial: its tier data
// then has another stamp too, and the session is read from source.
func complete(tx *bolt.Tx, mode lineage.Mode, rec *Record) {
	completeMu.Lock()
	defer completeMu.Unlock()
	if !rec.partial || tx == nil {
		return
	}
	c := &completions
	if c.tx != tx {
		c.tx, c.records = tx, nil
		if b := tx.Bucket(recordsBucket); b != nil {
			c.records = b.Cursor()
		}
	}
	if c.records == nil {
		return
	}
	c.key = appendRecordKey(c.key[:0], mode, rec.Path)
	k, v := c.records.Seek(c.key)
	if !bytes.Equal(k, c.key) {
		return
	}
	full, err := (&recordArena{scratch: &c.scratch}).decode(c.key, v)
	if err != nil || full.DataStamp != rec.DataStamp || full.Doc != rec.Doc || full.SourceHash != rec.SourceHash {
		return
	}
	f := c.arena.facts()
	*f = *full.facts
	f.sessionID, f.cwd = c.arena.str(bytesOf(f.sessionID)), c.arena.str(bytesOf(f.cwd))
	rec.facts = f
	rec.partial = false
}

// bytesOf is s as bytes, without a copy: only to be read.
func bytesOf(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }
