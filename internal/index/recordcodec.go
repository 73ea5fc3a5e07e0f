package index

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
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
//	6: only what the manifest entry under the same key does not hold
//	   (the path, policy, identity, counts, stamps and reasons were
//	   stored twice: 340 of a record's 508 bytes at 100k sessions); the
//	   hashes and a UUID session id as raw bytes; a checksum of the key
//	   instead of the key.
const recordFormat = 6

// A record is stored sealed ([blocksum]), so that a damaged one (a reason
// or a count changed by bit rot) is dropped and rebuilt, never trusted; and
// in a compact binary form that decodes without reflection, since every
// refresh decodes every record of its scope (2.3 µs a record with msgpack,
// which was a third of a no-change refresh over 2,000 sessions).
//
// The stored record is the session's own part: the fields its manifest
// entry (manifest.go) does not hold. A whole record is the two joined
// (decodeFull), and they must agree on the doc, the data stamp, the
// source hash and the cold pack, which every write of a session changes
// together. The pack is in both so that a session whose manifest entry
// is damaged still leaves its pack (unpackStored): a pack never holds a
// dead digest.
//
// Layout: the format byte; uvarint CacheVersion; SessionID packed; Cwd as
// a uvarint-length-prefixed string; SourceHash and LineageFingerprint
// packed; varint CacheBytes; uint32 DataStamp; uvarint Doc; uvarint Pack; FirstTs and
// LastTs each as a presence byte and, when present, float64 bits; the
// CRC-32C of the record's bbolt key (uint32). A packed string is a
// uvarint head and its bytes: head 2n+2 for n bytes as they are, 1 for a
// 64-digit lowercase hex string as its 32 bytes, 3 for a lowercase UUID
// as its 16 bytes (packedForm).

func encodeRecord(r *Record) ([]byte, error) {
	key := recordKey(r.Branches.Mode(), r.Path)
	f := r.factsOf()
	b := make([]byte, 0, 96+len(f.sessionID)+len(f.cwd)+2*packedMax)
	b = append(b, recordFormat)
	b = binary.AppendUvarint(b, uint64(r.CacheVersion))
	b = appendPacked(b, f.sessionID)
	b = appendString(b, f.cwd)
	b = appendPackedSum(b, r.SourceHash)
	b = appendPackedSum(b, f.lineageFingerprint)
	b = binary.AppendVarint(b, f.cacheBytes)
	b = binary.LittleEndian.AppendUint32(b, r.DataStamp)
	b = binary.AppendUvarint(b, uint64(r.Doc))
	b = binary.AppendUvarint(b, r.Pack)
	for _, f := range []Stamp{f.firstTs, f.lastTs} {
		t, ok := f.Value()
		if !ok {
			b = append(b, 0)
			continue
		}
		b = binary.LittleEndian.AppendUint64(append(b, 1), math.Float64bits(t))
	}
	b = binary.LittleEndian.AppendUint32(b, keySum(key))
	return blocksum.Seal(b)
}

// keySum is what a record keeps of its key: a value under another key is
// not this session's record (the key itself is 24 bytes a record).
func keySum(key []byte) uint32 {
	return crc32.Checksum(key, crc32.MakeTable(crc32.Castagnoli))
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

// build reads which build of a session a value names, as a record and
// its manifest entry both store it: a uint32 data stamp, a uvarint doc
// (a uint32) and a uvarint cold pack.
func (d *recordReader) build() (stamp, doc uint32, pack uint64) {
	if v := d.bytes(4); v != nil {
		stamp = binary.LittleEndian.Uint32(v)
	}
	if n := d.uvarint(); n <= math.MaxUint32 {
		doc = uint32(n)
	} else {
		d.ok = false
	}
	return stamp, doc, d.uvarint()
}

// field returns the next length-prefixed field, in place.
func (d *recordReader) field() []byte { return d.bytes(d.uvarint()) }

// decodeRecord decodes the stored record under key alone: the session's
// own part (decode), which names the build it belongs to (doc, data
// stamp, source hash).
func decodeRecord(key, sealed []byte) (*Record, error) {
	return (*recordArena)(nil).decode(key, sealed)
}

// storedBuild is the build of its session the stored record under key
// names (its doc and data stamp), read in place: what a check of a
// session's build compares, without a record's allocations.
func storedBuild(key, sealed []byte) (doc, stamp uint32, ok bool) {
	var t tail
	if t.read(key, sealed) != nil {
		return 0, 0, false
	}
	return t.doc, t.stamp, true
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
	// factSlab holds the facts of whole records decoded from the manifest
	// and the records, and those complete gives partial records.
	factSlab []sessionFacts
	// held counts the bytes of the slabs and chunks allocated for
	// partial records; hold, when set, is told each time it grows by
	// holdStep (Index.holdRecords), and told is what it was told last.
	held, told int64
	hold       func(held int64)
	// keyed: the partial records go to a gateTable, not a map by path.
	keyed bool
	// scratch, when set, is the one slot decode fills, and its strings
	// are cut from the value itself, not copied: a record valid only
	// while the value is (inside its transaction), which complete reads
	// a few fields of.
	scratch *recordSlot
	// policyNums remembers the numbers of the policy fingerprints read
	// (recordArena.policyNum).
	policyNums map[uint64]policyNum
	// cwds, when set, holds the one copy of each working directory the
	// whole records share (cwd).
	cwds map[string]string
	// alone: each record, string and timestamp is allocated by itself,
	// for records that outlive the others decoded with them (patchLoaded:
	// a slab and a text chunk kept alive by one record a patch was some
	// 100 KB).
	alone bool
}

// recordSlot is a record with room for the values its pointers point to,
// and, for a scratch slot, for the strings its packed fields expand to.
type recordSlot struct {
	Record
	facts sessionFacts
	text  [packedMax]byte
}

const (
	arenaTextChunk = 64 << 10
	// arenaSlabBytes is the size of a slab of records: whole pages, since
	// the runtime rounds a large allocation up to them (128 records of 280
	// bytes were 35,840 bytes in a 40,960-byte span, an eighth wasted).
	arenaSlabBytes = 64 << 10
)

// perSlab is how many values of size fit a slab.
func perSlab(size uintptr) int { return int(arenaSlabBytes / size) }

// slot returns a zero record slot: from the arena's slab, or allocated
// alone for a nil arena.
func (a *recordArena) slot() *recordSlot {
	if a == nil || a.alone {
		return new(recordSlot)
	}
	if a.scratch != nil {
		*a.scratch = recordSlot{}
		return a.scratch
	}
	s, _ := fromSlab(&a.slots)
	return s
}

// fromSlab returns the next zero value of *slab, a slab of them, making a
// new slab when it is used up (fresh reports that).
func fromSlab[T any](slab *[]T) (v *T, fresh bool) {
	if len(*slab) == 0 {
		var zero T
		*slab, fresh = make([]T, perSlab(unsafe.Sizeof(zero))), true
	}
	v, *slab = &(*slab)[0], (*slab)[1:]
	return v, fresh
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
	if a.alone {
		return string(b)
	}
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

// gate returns a zero record for a manifest entry or a whole record: it
// needs no slot's room for expanded strings.
func (a *recordArena) gate() *Record {
	if a == nil || a.alone {
		return new(Record)
	}
	r, fresh := fromSlab(&a.gates)
	if fresh {
		per := unsafe.Sizeof(Record{})
		if !a.keyed {
			per += mapEntryBytes // a map by path will hold each
		}
		a.grow(int64(len(a.gates)+1) * int64(per))
	}
	return r
}

// facts returns zero session facts for a whole record: from the arena's
// slab, or allocated alone for a nil arena.
func (a *recordArena) facts() *sessionFacts {
	if a == nil || a.alone {
		return new(sessionFacts)
	}
	f, _ := fromSlab(&a.factSlab)
	return f
}

// decode decodes a stored record (the session's own part, see
// encodeRecord): a Record with the fields of the stored record only, its
// branch mode taken from the key. Its tier, path, policy, identity,
// counts, placement and reasons are in the manifest entry (decodeFull
// joins the two); its doc, data stamp and source hash say which build of
// the session it belongs to.
func (a *recordArena) decode(key, sealed []byte) (*Record, error) {
	var t tail
	if err := t.read(key, sealed); err != nil {
		return nil, err
	}
	slot := a.slot()
	r := &slot.Record
	r.CacheVersion = indexfile.CacheVersion
	r.Branches = t.mode
	r.facts = t.factsIn(&slot.facts, a.packedString(t.sessionID, slot.text[:0:packedMax]), a.str(t.cwd))
	r.SourceHash = t.sourceHash
	r.DataStamp, r.Doc, r.Pack = t.stamp, t.doc, t.pack
	return r, nil
}

// tail is a stored record read in place: its fields are valid only while
// the sealed value is.
type tail struct {
	mode                BranchMode
	sessionID           packedField
	sourceHash, lineage Sum
	cwd                 []byte
	cacheBytes          int64
	stamp               uint32
	doc                 uint32
	pack                uint64
	// first and last are the timestamps (0: none).
	first, last Stamp
}

// factsIn fills f with the session facts t holds, its id and working
// directory as the caller's arena spells them, and returns f.
func (t *tail) factsIn(f *sessionFacts, sessionID, cwd string) *sessionFacts {
	*f = sessionFacts{sessionID: sessionID, cwd: cwd, lineageFingerprint: t.lineage,
		cacheBytes: t.cacheBytes, firstTs: t.first, lastTs: t.last}
	return f
}

// read checks and reads the stored record under key.
func (t *tail) read(key, sealed []byte) error {
	recordBytesDecoded.Add(int64(len(sealed)))
	b, err := blocksum.Unseal(sealed)
	if err != nil {
		return err
	}
	d := recordReader{b: b, ok: true}
	if f := d.bytes(1); f == nil || f[0] != recordFormat {
		return errRecordShape
	}
	version := d.uvarint()
	t.sessionID = d.packed()
	t.cwd = d.field()
	t.sourceHash = d.packed().sum(&d)
	t.lineage = d.packed().sum(&d)
	t.cacheBytes = d.varint()
	t.stamp, t.doc, t.pack = d.build()
	t.first = readTime(&d)
	t.last = readTime(&d)
	sum := d.bytes(4)
	if !d.ok || d.pos != len(d.b) {
		return errRecordShape
	}
	if version != indexfile.CacheVersion {
		return fmt.Errorf("record of cache version %d", version)
	}
	// The value names the key it was written under (a checksum of it,
	// sealed with the rest): a value under another key is not this
	// session's record.
	i := bytes.IndexByte(key, 0)
	if binary.LittleEndian.Uint32(sum) != keySum(key) || i <= 0 {
		return fmt.Errorf("record key %q does not match the key it was written under", key)
	}
	if t.mode = BranchModeOf(lineage.Mode(key[:i])); t.mode == 0 {
		return fmt.Errorf("record key %q of no branch mode", key)
	}
	return nil
}

// readTime reads a presence byte and, when it is 1, the eight bytes of
// a float64.
func readTime(d *recordReader) Stamp {
	p := d.bytes(1)
	switch {
	case p == nil:
	case p[0] == 1:
		if b := d.bytes(8); b != nil {
			return stampAt(math.Float64frombits(binary.LittleEndian.Uint64(b)))
		}
	case p[0] != 0:
		d.ok = false
	}
	return 0
}

// decodeFull decodes the whole record of a session: its manifest entry
// (gate, decodeGate) joined with its stored record (sealed). The two are
// written together; when they do not name the same build of the session
// (doc, data stamp, source hash), the record does not decode and is
// rebuilt.
func (a *recordArena) decodeFull(mode lineage.Mode, key, gate, sealed []byte) (*Record, error) {
	return a.decodeFullAs(mode, key, gate, sealed, true)
}

// decodeFullAs is decodeFull; without withPath the record's Path is left
// empty, as decodeGateAs leaves it.
func (a *recordArena) decodeFullAs(mode lineage.Mode, key, gate, sealed []byte, withPath bool) (*Record, error) {
	var t tail
	if err := t.read(key, sealed); err != nil {
		return nil, err
	}
	r, err := a.decodeGateAs(mode, key, gate, withPath)
	if err != nil {
		return nil, fmt.Errorf("manifest entry of record %q: %w", key, err)
	}
	if t.doc != r.Doc || t.stamp != r.DataStamp || t.pack != r.Pack || t.sourceHash != r.SourceHash {
		return nil, fmt.Errorf("record %q does not match its manifest entry", key)
	}
	r.Branches = t.mode
	r.facts = t.factsIn(a.facts(), a.sessionID(t.sessionID), a.cwd(t.cwd))
	r.partial = false
	return r, nil
}

// sessionID is packedString for a whole record's session id: its own
// allocation when the arena shares working directories (a server's
// records), not the text chunks'. A server's record cuts its id from its
// path when the file is named for the session (Record.pointAt), and the
// copy is then garbage; in a chunk, the few ids of files named otherwise
// (subagent sessions, 3% at 100k) kept every chunk alive.
func (a *recordArena) sessionID(f packedField) string {
	if a != nil && a.cwds != nil && a.scratch == nil {
		a = nil // a nil arena allocates each string alone
	}
	return a.packedString(f, nil)
}

// maxSharedCwds bounds the working directories an arena shares: an
// archive of a directory a session would make a map as large as the
// copies it saves.
const maxSharedCwds = 1024

// cwd is str for a whole record's working directory, shared when the
// arena shares them (cwds): sessions run in a few directories, and a
// server holds every record (a copy each was 2-3 MB at 100k sessions).
func (a *recordArena) cwd(b []byte) string {
	if a == nil || a.cwds == nil || len(b) == 0 {
		return a.str(b)
	}
	if s, ok := a.cwds[string(b)]; ok {
		return s
	}
	if len(a.cwds) >= maxSharedCwds {
		return a.str(b)
	}
	// Its own allocation, not the text chunks': those then hold session
	// ids only, which Record.pointAt lets go of.
	s := string(b)
	a.cwds[s] = s
	return s
}

// eachRecord calls fn with the key of every record of mode in tx, in key
// order, and the whole record it decodes to (decodeFull), or why it does
// not. The key is valid only inside the transaction.
func eachRecord(tx *bolt.Tx, mode lineage.Mode, fn func(key []byte, r *Record, err error)) {
	eachRecordShared(tx, mode, true, fn)
}

// eachRecordShared is eachRecord, the records sharing their working
// directories (recordArena.cwds); without withPath their Paths are left
// empty (the caller finds them by key, gateTable). The records and the
// manifest hold the same keys in the same order: one cursor over each
// walks both.
func eachRecordShared(tx *bolt.Tx, mode lineage.Mode, withPath bool, fn func(key []byte, r *Record, err error)) {
	b := tx.Bucket(recordsBucket)
	if b == nil {
		return
	}
	prefix := []byte(string(mode) + "\x00")
	arena := recordArena{cwds: map[string]string{}}
	var gates *bolt.Cursor
	var gk, gv []byte
	if mb := tx.Bucket(manifestBucket); mb != nil {
		gates = mb.Cursor()
		gk, gv = gates.Seek(prefix)
	}
	c := b.Cursor()
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		for gk != nil && bytes.Compare(gk, k) < 0 {
			gk, gv = gates.Next()
		}
		var gate []byte
		if bytes.Equal(gk, k) {
			gate = gv
		}
		r, err := arena.decodeFullAs(mode, k, gate, v, withPath)
		fn(k, r, err)
	}
}

// eachStored calls fn with the key of every stored record of mode in tx
// and its own part (decode: doc, data stamp, ...), or why it does not
// decode; the record is valid only until fn returns.
func eachStored(tx *bolt.Tx, mode lineage.Mode, fn func(key []byte, r *Record, err error)) {
	b := tx.Bucket(recordsBucket)
	if b == nil {
		return
	}
	prefix := []byte(string(mode) + "\x00")
	var slot recordSlot
	arena := recordArena{scratch: &slot}
	c := b.Cursor()
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		r, err := arena.decode(k, v)
		fn(k, r, err)
	}
}

// Packed string heads (appendPacked); any even head 2n+2 is n bytes as
// they are.
const (
	packedHex  = 1 // 64 lowercase hex digits (a SHA-256) as 32 bytes
	packedUUID = 3 // a lowercase 8-4-4-4-12 UUID as 16 bytes
	packedMax  = 64
)

// uuidDashes are where a UUID's dashes are.
var uuidDashes = [...]int{8, 13, 18, 23}

// packedForm is the head s packs under: packedHex, packedUUID, or 0 when
// it is stored as it is. Only lowercase hex packs, so that it expands
// to the same string.
func packedForm(s string) byte {
	switch {
	case len(s) == 64 && lowerHex(s):
		return packedHex
	case len(s) == 36 && s[8] == '-' && s[13] == '-' && s[18] == '-' && s[23] == '-' &&
		lowerHex(s[:8]+s[9:13]+s[14:18]+s[19:23]+s[24:]):
		return packedUUID
	}
	return 0
}

func lowerHex(s string) bool {
	for i := range len(s) {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// appendPacked appends s packed: the session id, source hash and lineage
// fingerprint are a UUID and two SHA-256s in hex (136 bytes a record),
// which pack to 64.
func appendPacked(b []byte, s string) []byte {
	switch packedForm(s) {
	case packedHex:
		return appendUnhex(append(b, packedHex), s)
	case packedUUID:
		b = append(b, packedUUID)
		from := 0
		for _, dash := range uuidDashes {
			b = appendUnhex(b, s[from:dash])
			from = dash + 1
		}
		return appendUnhex(b, s[from:])
	}
	return append(binary.AppendUvarint(b, 2*uint64(len(s))+2), s...)
}

// appendUnhex appends the bytes of s, an even number of lowercase hex
// digits (packedForm checked them).
func appendUnhex(b []byte, s string) []byte {
	b, _ = hex.AppendDecode(b, []byte(s))
	return b
}

// packedField is a packed string read in place.
type packedField struct {
	head byte
	raw  []byte
}

// packed reads a packed string.
func (d *recordReader) packed() packedField {
	head := d.uvarint()
	switch {
	case head == packedHex:
		return packedField{packedHex, d.bytes(32)}
	case head == packedUUID:
		return packedField{packedUUID, d.bytes(16)}
	case head >= 2 && head%2 == 0:
		return packedField{0, d.bytes((head - 2) / 2)}
	}
	d.ok = false
	return packedField{}
}

// expand writes the string f packs to buf (packedMax bytes) and returns
// its length; only for a packed head.
func (f packedField) expand(buf []byte) int {
	if f.head == packedHex {
		return hex.Encode(buf, f.raw)
	}
	n, from := 0, 0
	for _, dash := range uuidDashes {
		k := (dash - n) / 2 // the bytes of the digits before the dash
		n += hex.Encode(buf[n:], f.raw[from:from+k])
		from += k
		buf[n] = '-'
		n++
	}
	return n + hex.Encode(buf[n:], f.raw[from:])
}

// sum is the Sum f packs: a packed hex string, or "" for none; any
// other string is not a record's (d stops).
func (f packedField) sum(d *recordReader) Sum {
	switch {
	case f.head == packedHex:
		return sumFrom(f.raw)
	case f.head != 0 || len(f.raw) != 0:
		d.ok = false
	}
	return Sum{}
}

// appendPackedSum appends s packed as appendPacked packs its hex string.
func appendPackedSum(b []byte, s Sum) []byte {
	if s.IsZero() {
		return binary.AppendUvarint(b, 2) // "" as it is
	}
	return append(append(b, packedHex), s.b[:]...)
}

// packedString is the string f packs: as str makes it, the expanded form
// of a packed one in buf when the arena is scratch (buf has room for
// packedMax bytes and outlives the record).
func (a *recordArena) packedString(f packedField, buf []byte) string {
	if f.head == 0 {
		return a.str(f.raw)
	}
	var local [packedMax]byte
	n := f.expand(local[:])
	switch {
	case a == nil || (a.scratch != nil && cap(buf) < n):
		return string(local[:n])
	case a.scratch != nil:
		buf = append(buf[:0], local[:n]...)
		return unsafe.String(&buf[0], n)
	}
	return a.chunkString(&a.text, local[:n])
}
