package coldvocab

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"math"
	"slices"
	"strings"

	"github.com/memidx/memidx/internal/blocksum"
	"github.com/memidx/memidx/internal/termtab"
)

// The compact address form, which a stored digest keeps (see Stored); a
// whole digest keeps the termtab form that cacheBytes and the cap count.
// At 100k sessions of ~20 entries the termtab form was ~670 B a session:
// 8 B of offsets for every key, and a key (and a posting list) for every
// entry id and operation address, which are mostly unique per entry. The
// compact form is read by one linear scan, cheaper than a termtab's setup
// for the tens of keys a session has:
//
//	magic "AC1\x00"
//	uvarint entries, keys, keyBytes, idBytes, opBytes
//	keys:  per structural key, in byte order: uvarint shared prefix
//	       length, uvarint suffix length, suffix, uvarint payload length,
//	       payload (the termtab form's posting list, unchanged)
//	ids:   per entry: the entry id as a column value (see appendColumn;
//	       empty: none)
//	ops:   per entry: the operation address, likewise
//	times: tsRaw then 8 bytes an entry (float64 bits), or tsDelta then
//	       per entry uvarint 0 for none, else zigzag(ms − previous ms)+1
//	       (taken only when every timestamp is an integral number of ms
//	       that round-trips exactly)
var compactMagic = []byte("AC1\x00")

const (
	tsRaw   = 0
	tsDelta = 1
)

// Addresses reads a digest's address table in either form, in place.
type Addresses struct {
	tt      termtab.Table
	b       blocksum.Bytes
	compact bool
	bad     bool // a compact table whose header does not read
	entries int
	nkeys   int
	keys    int // start of each section
	ids     int
	ops     int
	times   int
}

// openAddresses opens either form; only the compact form's header is read.
func openAddresses(b blocksum.Bytes) (Addresses, error) {
	if m, ok := b.Slice(0, len(compactMagic)); !ok || !bytes.Equal(m, compactMagic) {
		t, err := termtab.Open(b)
		return Addresses{tt: t}, err
	}
	a := Addresses{b: b, compact: true}
	// The header is the magic and five uvarints: 54 bytes at most.
	hdr, ok := b.Slice(0, min(b.Len(), len(compactMagic)+5*binary.MaxVarintLen64))
	if !ok {
		return Addresses{}, ErrCorrupt
	}
	r := reader{b: hdr, pos: len(compactMagic), ok: true}
	var v [5]int
	for i := range v {
		u := r.uvarint()
		if u > uint64(b.Len()) {
			return Addresses{}, ErrCorrupt
		}
		v[i] = int(u)
	}
	a.entries, a.nkeys = v[0], v[1]
	kb, ib, ob := v[2], v[3], v[4]
	a.keys = r.pos
	a.ids = a.keys + kb
	a.ops = a.ids + ib
	a.times = a.ops + ob
	if !r.ok || kb < 0 || ib < 0 || ob < 0 || a.times < a.keys || a.times >= b.Len() || a.entries > b.Len() {
		return Addresses{}, ErrCorrupt
	}
	return a, nil
}

// Err reports damage that a read met.
func (a Addresses) Err() error {
	if a.compact {
		return a.b.Err()
	}
	return a.tt.Err()
}

// eachKey calls f with each structural key and its payload in order
// until f returns false; the slices alias the table only for the call's
// duration (the key is rebuilt in a buffer).
func (a Addresses) eachKey(f func(key, payload []byte) bool) {
	sec, ok := a.b.Slice(a.keys, a.ids)
	if !ok {
		return
	}
	r := reader{b: sec, ok: true}
	var key []byte
	for i := 0; i < a.nkeys && r.ok; i++ {
		shared, n := r.int(), r.int()
		suffix := r.next(n)
		p := r.next(r.int())
		if !r.ok || shared > len(key) {
			return
		}
		key = append(key[:shared], suffix...)
		if !f(key, p) {
			return
		}
	}
}

// payload returns the posting list of a structural key.
func (a Addresses) payload(key string) []byte {
	if !a.compact {
		if i, ok := a.tt.Find(key); ok {
			return a.tt.Payload(i)
		}
		return nil
	}
	// One pass, no callback: a filter query asks this of every cold
	// digest, and the key is rebuilt in a buffer that stays on the stack.
	sec, ok := a.b.Slice(a.keys, a.ids)
	if !ok {
		return nil
	}
	r := reader{b: sec, ok: true}
	var buf [96]byte
	k := buf[:0]
	for i := 0; i < a.nkeys && r.ok; i++ {
		shared, n := r.int(), r.int()
		suffix := r.next(n)
		p := r.next(r.int())
		if !r.ok || shared > len(k) {
			return nil
		}
		k = append(k[:shared], suffix...)
		// Compared in place (strings.Compare would copy k).
		if string(k) == key {
			return p
		}
		if string(k) > key {
			return nil // keys are in order: none after this one matches
		}
	}
	return nil
}

// StructuralKeys returns the structural keys (those that start with a NUL
// byte), in order, as the lexicon lists them.
func (a Addresses) StructuralKeys() [][]byte {
	var out [][]byte
	if !a.compact {
		lo, hi := a.tt.Prefix("\x00")
		for i := lo; i < hi; i++ {
			out = append(out, a.tt.Term(i))
		}
		return out
	}
	a.eachKey(func(k, _ []byte) bool {
		if len(k) > 0 && k[0] == 0 {
			out = append(out, bytes.Clone(k))
		}
		return true
	})
	return out
}

// hasColumn reports whether an entry's value in the column at [lo, hi)
// is v.
func (a Addresses) hasColumn(lo, hi int, v string) bool {
	sec, ok := a.b.Slice(lo, hi)
	if !ok || v == "" {
		return false
	}
	packed, isHex := packHex(nil, v)
	r := reader{b: sec, ok: true}
	for i := 0; i < a.entries && r.ok; i++ {
		h := r.uvarint()
		s := r.next(int(min(h>>1, uint64(len(sec)+1))))
		if r.ok && (h&1 == 1 && isHex && string(s) == string(packed) || h&1 == 0 && string(s) == v) {
			return true
		}
	}
	return false
}

// packHex appends the bytes that v, an even-length lowercase hex string,
// spells; false for any other v (kept as it is: only the canonical
// spelling round-trips). OMP's entry ids are 8 hex digits: 4 bytes.
func packHex[T string | []byte](b []byte, v T) ([]byte, bool) {
	if len(v)%2 != 0 {
		return b, false
	}
	for i := 0; i < len(v); i += 2 {
		hi, ok1 := hexDigit(v[i])
		lo, ok2 := hexDigit(v[i+1])
		if !ok1 || !ok2 {
			return b, false
		}
		b = append(b, hi<<4|lo)
	}
	return b, true
}

func hexDigit(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	}
	return 0, false
}

// HasEntryID reports whether an entry has this id.
func (a Addresses) HasEntryID(id string) bool {
	if !a.compact {
		return a.tt.Has(keyEntryID + id)
	}
	return a.hasColumn(a.ids, a.ops, id)
}

// deltaTimes reports whether the table is compact with delta timestamps.
func (a Addresses) deltaTimes() bool {
	if !a.compact {
		return false
	}
	form, ok := a.b.Slice(a.times, a.times+1)
	return ok && form[0] == tsDelta
}

// timestamps returns the entries' timestamps (NaN for none), and the
// number of entries.
func (a Addresses) timestamps() (raw blocksum.Bytes, dec []float64, n int) {
	if !a.compact {
		if i, ok := a.tt.Find(keyTimestamps); ok {
			if raw, ok = a.tt.PayloadView(i); ok {
				return raw, nil, raw.Len() / 8
			}
		}
		return blocksum.Bytes{}, nil, 0
	}
	form, ok := a.b.Slice(a.times, a.times+1)
	if !ok {
		return blocksum.Bytes{}, nil, 0
	}
	switch form[0] {
	case tsRaw:
		if raw, ok = a.b.Sub(a.times+1, a.b.Len()); ok && raw.Len() == 8*a.entries {
			return raw, nil, a.entries
		}
	case tsDelta:
		sec, ok := a.b.Slice(a.times+1, a.b.Len())
		if !ok {
			break
		}
		r := reader{b: sec, ok: true}
		dec = make([]float64, a.entries)
		prev := int64(0)
		for i := range dec {
			u := r.uvarint()
			if u == 0 {
				dec[i] = math.NaN()
				continue
			}
			prev += unzigzag(u - 1)
			dec[i] = float64(prev)
		}
		if r.ok {
			return blocksum.Bytes{}, dec, a.entries
		}
	}
	return blocksum.Bytes{}, nil, 0
}

// compactAddresses rewrites a termtab address table in the compact form;
// ok is false for a table it cannot express (a key of another kind, an
// entry with two ids), which then stays as it is. A builder compacts its
// own table (addressTable.compact) without writing this form first.
func compactAddresses(tt []byte) (out []byte, ok bool) {
	t, err := termtab.Open(blocksum.Trusted(tt))
	if err != nil || t.Verify() != nil {
		return nil, false
	}
	a := addressTable{keys: make([]string, t.Len()), payloads: make([][]byte, t.Len())}
	for i := range a.keys {
		a.keys[i], a.payloads[i] = string(t.Term(i)), t.Payload(i)
	}
	return a.compact()
}

// compact writes the table in the compact form, or ok false (as
// compactAddresses).
func (a addressTable) compact() (out []byte, ok bool) {
	ti, found := slices.BinarySearch(a.keys, keyTimestamps)
	if !found {
		return nil, false
	}
	ts := a.payloads[ti]
	n := len(ts) / 8
	if len(ts) != 8*n {
		return nil, false
	}
	// The columns alias the keys. "" is no value (a value is never
	// empty).
	ids, ops := make([]string, n), make([]string, n)
	var skeys []string
	var spays [][]byte
	var ents []uint32
	for i, k := range a.keys {
		p := a.payloads[i]
		var col []string
		switch {
		case len(k) > 0 && k[0] == 0:
			skeys, spays = append(skeys, k), append(spays, p)
			continue
		case k == keyTimestamps:
			continue
		case strings.HasPrefix(k, keyEntryID):
			col = ids
		case strings.HasPrefix(k, keyOperation):
			col = ops
		default:
			return nil, false
		}
		v := k[1:]
		var ok bool
		if ents, ok = postings(ents[:0], p, n); !ok || len(v) == 0 {
			return nil, false
		}
		for _, e := range ents {
			if col[e] != "" {
				return nil, false
			}
			col[e] = v
		}
	}
	return appendCompact(skeys, spays, ids, ops, ts), true
}

// appendCompact writes the compact form of the structural keys (in byte
// order, each with its posting list), the entries' ids and operation
// addresses, and their timestamps (8 bytes an entry).
func appendCompact(skeys []string, spays [][]byte, ids, ops []string, ts []byte) []byte {
	var keys []byte
	prev := ""
	for i, k := range skeys {
		p := spays[i]
		shared := commonPrefix(prev, k)
		keys = binary.AppendUvarint(keys, uint64(shared))
		keys = binary.AppendUvarint(keys, uint64(len(k)-shared))
		keys = append(keys, k[shared:]...)
		keys = binary.AppendUvarint(keys, uint64(len(p)))
		keys = append(keys, p...)
		prev = k
	}
	idb, opb := appendColumn(nil, ids), appendColumn(nil, ops)
	out := make([]byte, 0, len(compactMagic)+5*binary.MaxVarintLen64+len(keys)+len(idb)+len(opb)+1+len(ts))
	out = append(out, compactMagic...)
	for _, v := range []int{len(ids), len(skeys), len(keys), len(idb), len(opb)} {
		out = binary.AppendUvarint(out, uint64(v))
	}
	out = append(append(append(out, keys...), idb...), opb...)
	return appendTimes(out, ts)
}

// postings appends to out a posting list of entries below n.
func postings(out []uint32, p []byte, n int) ([]uint32, bool) {
	c, k := binary.Uvarint(p)
	if k <= 0 || c > uint64(n) {
		return nil, false
	}
	p = p[k:]
	cur := uint64(0)
	for j := uint64(0); j < c; j++ {
		d, k := binary.Uvarint(p)
		if k <= 0 {
			return nil, false
		}
		p, cur = p[k:], cur+d
		if cur >= uint64(n) {
			return nil, false
		}
		out = append(out, uint32(cur))
	}
	return out, len(p) == 0
}

// appendColumn appends each entry's value: uvarint n<<1|1 and the n
// bytes of a value packHex takes, else uvarint len<<1 and the value.
func appendColumn(b []byte, col []string) []byte {
	var tmp []byte
	for _, v := range col {
		if p, ok := packHex(tmp[:0], v); ok && len(v) > 0 {
			b = binary.AppendUvarint(b, uint64(len(p))<<1|1)
			b, tmp = append(b, p...), p
			continue
		}
		b = binary.AppendUvarint(b, uint64(len(v))<<1)
		b = append(b, v...)
	}
	return b
}

// maxExactMs bounds the timestamps the delta form takes: every integer up
// to 2^53 is exact in a float64, and differences stay within int64.
const maxExactMs = 1 << 53

// appendTimes appends the timestamps (8 raw bytes each) in the delta form
// when each one round-trips through it exactly, else raw.
func appendTimes(b, raw []byte) []byte {
	start := len(b)
	b = append(b, tsDelta)
	prev := int64(0)
	for i := 0; i+8 <= len(raw); i += 8 {
		bits := binary.LittleEndian.Uint64(raw[i:])
		f := math.Float64frombits(bits)
		if math.IsNaN(f) {
			b = append(b, 0)
			continue
		}
		ms := int64(f)
		if f < -maxExactMs || f > maxExactMs || math.Float64bits(float64(ms)) != bits {
			return append(append(b[:start], tsRaw), raw...)
		}
		b = binary.AppendUvarint(b, zigzag(ms-prev)+1)
		prev = ms
	}
	return b
}

func zigzag(v int64) uint64   { return uint64(v<<1) ^ uint64(v>>63) }
func unzigzag(u uint64) int64 { return int64(u>>1) ^ -int64(u&1) }

func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// reader reads uvarints and byte runs of bytes already verified; ok
// turns false at the first that is not there.
type reader struct {
	b   []byte
	pos int
	ok  bool
}

func (r *reader) uvarint() uint64 {
	if !r.ok {
		return 0
	}
	x, n := binary.Uvarint(r.b[r.pos:])
	if n <= 0 {
		r.ok = false
		return 0
	}
	r.pos += n
	return x
}

// int reads a uvarint that must fit the table.
func (r *reader) int() int {
	u := r.uvarint()
	if u > uint64(len(r.b)) {
		r.ok = false
		return 0
	}
	return int(u)
}

func (r *reader) next(n int) []byte {
	if !r.ok || n < 0 || n > len(r.b)-r.pos {
		r.ok = false
		return nil
	}
	s := r.b[r.pos : r.pos+n]
	r.pos += n
	return s
}

// EachPacked calls fn with every id and operation address that the
// compact form keeps packed (as hex), spelled out: what a grep of the
// file's bytes would not find (index.Plaintext).
func (a Addresses) EachPacked(fn func(v string)) {
	if !a.compact {
		return
	}
	sec, ok := a.b.Slice(a.ids, a.times)
	if !ok {
		return
	}
	r := reader{b: sec, ok: true}
	for i := 0; i < 2*a.entries && r.ok; i++ {
		h := r.uvarint()
		if s := r.next(int(min(h>>1, uint64(len(sec)+1)))); r.ok && h&1 == 1 {
			fn(hex.EncodeToString(s))
		}
	}
}
