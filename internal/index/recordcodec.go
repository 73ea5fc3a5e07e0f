package index

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"unsafe"

	bolt "go.etcd.io/bbolt"

	"github.com/memidx/memidx/internal/blocksum"
	"github.com/memidx/memidx/internal/indexfile"
	"github.com/memidx/memidx/internal/lineage"
)

// recordFormat is the first byte of an encoded record. A record of
// another format does not decode and is rebuilt.
//
//	1: first form.
//	2: Doc, the lexicon number, after DataStamp.
//	3: the record's own bbolt key at the end (sealed with the rest), so
//	   that a reader checks a value against its key with a comparison,
//	   not a SHA-256 of the path per record.
//	4: VerifiedAtNs after IndexedAtNs (a source dated in the future
//	   settles).
//	5: Pack after Doc (cold digests packed many to a value).
const recordFormat = 5

// A record is stored sealed ([blocksum]), so that a damaged one (a reason
// or a count changed by bit rot) is dropped and rebuilt, never trusted; and
// in a compact binary form that decodes without reflection, since every
// refresh decodes every record of its scope (2.3 µs a record with msgpack,
// which was a third of a no-change refresh over 2,000 sessions).
//
// Layout: the format byte; uvarint CacheVersion; Path, Branches,
// SessionID, Cwd, SourceHash, LineageFingerprint, LiveSignature, Policy,
// Tier as uvarint-length-prefixed strings; varint Size, MtimeNs, CtimeNs,
// EntryCount, SumLen, CacheBytes, IndexedAtNs, VerifiedAtNs; uvarint Inode, Dev; uint32
// DataStamp; uvarint Doc; uvarint Pack; uvarint count of Reasons and each as a string; FirstTs and
// LastTs each as a presence byte and, when present, float64 bits; the
// record's bbolt key, uvarint-length-prefixed.

func encodeRecord(r *Record) ([]byte, error) {
	key := recordKey(lineage.Mode(r.Branches), r.Path)
	b := make([]byte, 0, 128+len(r.Path)+len(r.Cwd)+len(r.Policy)+16*len(r.Reasons))
	b = append(b, recordFormat)
	b = binary.AppendUvarint(b, uint64(r.CacheVersion))
	for _, s := range []string{r.Path, r.Branches, r.SessionID, r.Cwd, r.SourceHash,
		r.LineageFingerprint, r.LiveSignature, r.Policy, r.Tier} {
		b = appendString(b, s)
	}
	for _, v := range []int64{r.Identity.Size, r.Identity.MtimeNs, r.Identity.CtimeNs,
		int64(r.EntryCount), r.SumLen, r.CacheBytes, r.IndexedAtNs, r.VerifiedAtNs} {
		b = binary.AppendVarint(b, v)
	}
	b = appendPlacement(b, r)
	for _, f := range []*float64{r.FirstTs, r.LastTs} {
		if f == nil {
			b = append(b, 0)
			continue
		}
		b = binary.LittleEndian.AppendUint64(append(b, 1), math.Float64bits(*f))
	}
	b = append(binary.AppendUvarint(b, uint64(len(key))), key...)
	return blocksum.Seal(b)
}

// appendPlacement writes the fields a record and its manifest entry both
// end with, in this order: the file's inode and device, the data stamp,
// the doc id, the cold pack, and the reasons (readPlacement reads them).
func appendPlacement(b []byte, r *Record) []byte {
	b = binary.AppendUvarint(b, r.Identity.Inode)
	b = binary.AppendUvarint(b, r.Identity.Dev)
	b = binary.LittleEndian.AppendUint32(b, r.DataStamp)
	b = binary.AppendUvarint(b, uint64(r.Doc))
	b = binary.AppendUvarint(b, r.Pack)
	b = binary.AppendUvarint(b, uint64(len(r.Reasons)))
	for _, s := range r.Reasons {
		b = appendString(b, s)
	}
	return b
}

// readPlacement reads what appendPlacement wrote into r.
func (a *recordArena) readPlacement(d *recordReader, r *Record) {
	r.Identity.Inode = d.uvarint()
	r.Identity.Dev = d.uvarint()
	if v := d.bytes(4); v != nil {
		r.DataStamp = binary.LittleEndian.Uint32(v)
	}
	if doc := d.uvarint(); doc <= math.MaxUint32 {
		r.Doc = uint32(doc)
	} else {
		d.ok = false
	}
	r.Pack = d.uvarint()
	if n := d.uvarint(); d.ok && n <= uint64(len(d.b)-d.pos) {
		for range n {
			r.Reasons = append(r.Reasons, a.str(d.field()))
		}
	} else {
		d.ok = false
	}
}

func appendString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

var errRecordShape = errors.New("record does not decode")

// recordReader reads the fields of an encoded record; ok turns false at the
// first one that is not there.
type recordReader struct {
	b   []byte
	pos int
	ok  bool
}

func (d *recordReader) uvarint() uint64 {
	v, n := binary.Uvarint(d.b[d.pos:])
	if n <= 0 {
		d.ok = false
		return 0
	}
	d.pos += n
	return v
}

// varint undoes binary.AppendVarint's zig-zag coding.
func (d *recordReader) varint() int64 {
	u := d.uvarint()
	x := int64(u >> 1)
	if u&1 != 0 {
		x = ^x
	}
	return x
}

// bytes returns the next n bytes (nil when they are not there).
func (d *recordReader) bytes(n uint64) []byte {
	if !d.ok || n > uint64(len(d.b)-d.pos) {
		d.ok = false
		return nil
	}
	v := d.b[d.pos : d.pos+int(n)]
	d.pos += int(n)
	return v
}

// field returns the next length-prefixed field, in place.
func (d *recordReader) field() []byte { return d.bytes(d.uvarint()) }

func decodeRecord(key, sealed []byte) (*Record, error) {
	return (*recordArena)(nil).decode(key, sealed)
}

// recordArena holds the records that one walk decodes: their strings
// are cut from shared text chunks and the records taken from slabs, so
// that a walk over 2,000 records allocates a few dozen times instead of
// four times a record (in a one-shot command, fresh heap pages are paid
// for in page faults). A chunk's bytes are never written after they are
// appended, so the strings cut from them stay valid; a record keeps its
// slab and chunk alive, which is at most the size of one walk's records.
type recordArena struct {
	text  []byte
	slots []recordSlot
	// paths and gates hold the manifest's partial records and their paths
	// apart from the rest: a refresh points those records at the
	// listing's paths (sharePaths), and the chunks of paths that only
	// they held are then garbage.
	paths []byte
	gates []Record
	// held counts the bytes of the slabs and chunks allocated for
	// partial records; hold, when set, is told each time it grows by
	// holdStep (Index.holdRecords), and told is what it was told last.
	held, told int64
	hold       func(held int64)
	// scratch, when set, is the one slot decode fills, and its strings
	// are cut from the value itself, not copied: a record valid only
	// while the value is (inside its transaction), which complete reads
	// a few fields of.
	scratch *recordSlot
	// policies, when set, holds the one instance of each policy string
	// the records share (Index.policies); policyIDs maps their
	// fingerprints to them (manifest.go).
	policies  map[string]string
	policyIDs map[uint64]string
}

// recordSlot is a record with room for the values its pointers point to.
type recordSlot struct {
	Record
	firstTs, lastTs float64
}

const (
	arenaTextChunk = 64 << 10
	arenaSlab      = 128
)

// slot returns a zero record slot: from the arena's slab, or allocated
// alone for a nil arena.
func (a *recordArena) slot() *recordSlot {
	if a == nil {
		return new(recordSlot)
	}
	if a.scratch != nil {
		*a.scratch = recordSlot{}
		return a.scratch
	}
	if len(a.slots) == 0 {
		a.slots = make([]recordSlot, arenaSlab)
	}
	s := &a.slots[0]
	a.slots = a.slots[1:]
	return s
}

// str returns b as a string: copied into the arena's text, or alone for a
// nil arena.
func (a *recordArena) str(b []byte) string {
	if a == nil || len(b) == 0 {
		return string(b)
	}
	if a.scratch != nil {
		return unsafe.String(&b[0], len(b))
	}
	return a.chunkString(&a.text, b)
}

// path is str for a partial record's path, which has chunks of its own.
func (a *recordArena) path(b []byte) string {
	if a == nil || len(b) == 0 {
		return string(b)
	}
	return a.chunkString(&a.paths, b)
}

// chunkString copies b into the chunk *text, starting a new chunk when
// it does not fit, and returns the copy as a string.
func (a *recordArena) chunkString(text *[]byte, b []byte) string {
	if len(b) > cap(*text)-len(*text) {
		*text = make([]byte, 0, max(arenaTextChunk, len(b)))
		a.grow(int64(cap(*text)))
	}
	start := len(*text)
	*text = append(*text, b...)
	return unsafe.String(&(*text)[start], len(b))
}

// holdStep is how much the partial records' bytes grow between two
// reports of them: the heap limit follows them while they are read.
const holdStep = 1 << 20

func (a *recordArena) grow(n int64) {
	a.held += n
	if a.hold != nil && a.held-a.told >= holdStep {
		a.told = a.held
		a.hold(a.held)
	}
}

// gate returns a zero record for a manifest entry: a partial record has
// no timestamps, so it needs no slot's room for them.
func (a *recordArena) gate() *Record {
	if a == nil {
		return new(Record)
	}
	if len(a.gates) == 0 {
		a.gates = make([]Record, arenaSlab)
		a.grow(arenaSlab * int64(unsafe.Sizeof(Record{})+mapEntryBytes))
	}
	r := &a.gates[0]
	a.gates = a.gates[1:]
	return r
}

func (a *recordArena) decode(key, sealed []byte) (*Record, error) {
	recordBytesDecoded.Add(int64(len(sealed)))
	b, err := blocksum.Unseal(sealed)
	if err != nil {
		return nil, err
	}
	d := recordReader{b: b, ok: true}
	if f := d.bytes(1); f == nil || f[0] != recordFormat {
		return nil, errRecordShape
	}
	slot := a.slot()
	r := &slot.Record
	r.CacheVersion = int(d.uvarint())
	// Only the strings a record keeps are copied: the policy, tier and
	// branches are the shared instances, the key is only compared.
	r.Path = a.str(d.field())
	branches := d.field()
	r.SessionID = a.str(d.field())
	r.Cwd = a.str(d.field())
	r.SourceHash = a.str(d.field())
	r.LineageFingerprint = a.str(d.field())
	r.LiveSignature = a.str(d.field())
	r.Policy = a.policy(d.field())
	tier := d.field()
	r.Identity.Size = d.varint()
	r.Identity.MtimeNs = d.varint()
	r.Identity.CtimeNs = d.varint()
	r.EntryCount = int(d.varint())
	r.SumLen = d.varint()
	r.CacheBytes = d.varint()
	r.IndexedAtNs = d.varint()
	r.VerifiedAtNs = d.varint()
	a.readPlacement(&d, r)
	readTimes(&d, slot)
	own := d.bytes(d.uvarint())
	if !d.ok || d.pos != len(d.b) {
		return nil, errRecordShape
	}
	if err := r.checkDecoded(key, own, branches, tier); err != nil {
		return nil, err
	}
	return r, nil
}

// readTimes reads a record's first and last timestamps (a presence
// byte, then eight bytes each) into its slot.
func readTimes(d *recordReader, slot *recordSlot) {
	r := &slot.Record
	for _, f := range [...]struct {
		p   **float64
		val *float64
	}{{&r.FirstTs, &slot.firstTs}, {&r.LastTs, &slot.lastTs}} {
		if p := d.bytes(1); p != nil && p[0] == 1 {
			if v := d.bytes(8); v != nil {
				*f.val = math.Float64frombits(binary.LittleEndian.Uint64(v))
				*f.p = f.val
			}
		} else if p != nil && p[0] != 0 {
			d.ok = false
		}
	}
}

// checkDecoded checks what a decoded record says of itself against the key
// it was read under, and sets its branch mode and tier to the shared
// constants.
func (r *Record) checkDecoded(key, own, branches, tier []byte) error {
	if r.CacheVersion != indexfile.CacheVersion {
		return fmt.Errorf("record of cache version %d", r.CacheVersion)
	}
	// The value names the key it was written under (computed from its path
	// when it was encoded, and sealed with it): a value under another key
	// is not this session's record.
	if !bytes.Equal(key, own) || !bytes.HasPrefix(key, branches) || len(key) == len(branches) || key[len(branches)] != 0 {
		return fmt.Errorf("record key %q does not match its source %q (%s)", key, r.Path, branches)
	}
	r.Branches = branchesOf(branches)
	switch string(tier) { // the constants themselves: compared by pointer
	case Hot:
		r.Tier = Hot
	case Cold:
		r.Tier = Cold
	default:
		return fmt.Errorf("record tier %q", tier)
	}
	return nil
}

// branchesOf is b as a string: a branch mode's own constant when it is
// one.
func branchesOf(b []byte) string {
	for _, m := range []lineage.Mode{lineage.Active, lineage.All} {
		if string(b) == string(m) {
			return string(m)
		}
	}
	return string(b)
}

// policy is b as a string: the shared instance when the arena has one.
func (a *recordArena) policy(b []byte) string {
	if a != nil {
		if p, ok := a.policies[string(b)]; ok {
			return p
		}
	}
	return a.str(b)
}

// eachRecord calls fn with the key of every record of mode in tx, in key
// order, and the record it decodes to, or why it does not. The key is
// valid only inside the transaction.
func eachRecord(tx *bolt.Tx, mode lineage.Mode, fn func(key []byte, r *Record, err error)) {
	eachRecordShared(tx, mode, nil, fn)
}

// eachRecordShared is eachRecord, the records sharing the instances of
// policies.
func eachRecordShared(tx *bolt.Tx, mode lineage.Mode, policies map[string]string, fn func(key []byte, r *Record, err error)) {
	b := tx.Bucket(recordsBucket)
	if b == nil {
		return
	}
	prefix := []byte(string(mode) + "\x00")
	arena := recordArena{policies: policies}
	c := b.Cursor()
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		r, err := arena.decode(k, v)
		fn(k, r, err)
	}
}
