package blocksum

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"math"
	"sync"
	"sync/atomic"
)

// BlockSize is the span of one checksum: small enough that verifying what
// a binary search touches costs little (20 ns a block here), large enough
// that the sums add under 1% to a value.
const BlockSize = 512

// ErrCorrupt reports stored bytes that do not match their checksums, or a
// sealed value whose shape is wrong.
var ErrCorrupt = errors.New("blocksum: stored bytes do not match their checksums")

// castagnoli is made at first use, not at start: building it is a fifth
// of a millisecond that a one-shot command then pays on the goroutine
// that first checks a block (one that runs beside the listing), not
// before main.
var castagnoli = sync.OnceValue(func() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) })

func blocks(n int) int { return (n + BlockSize - 1) / BlockSize }

// Overhead is how many bytes sealing adds to n bytes of data.
func Overhead(n int) int { return 4*blocks(n) + 4 }

// sum is the checksum of block i of data, seeded with i.
func sum(data []byte, i int) uint32 {
	return crc32.Update(uint32(i), castagnoli(), data[i*BlockSize:min(len(data), (i+1)*BlockSize)])
}

// Seal returns the sealed form of data, the parts joined: its length
// and block checksums, then the data itself. Passing the parts spares a
// caller joining a large value first (one copy of it, not two).
func Seal(parts ...[]byte) ([]byte, error) {
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	if uint64(n) > math.MaxUint32 {
		return nil, errors.New("blocksum: value over 4 GiB")
	}
	head := Overhead(n)
	out := make([]byte, head+n)
	binary.LittleEndian.PutUint32(out, uint32(n))
	at := head
	for _, p := range parts {
		at += copy(out[at:], p)
	}
	data := out[head:]
	for i := 0; i*BlockSize < n; i++ {
		binary.LittleEndian.PutUint32(out[4+4*i:], sum(data, i))
	}
	return out, nil
}

// split checks the shape of a sealed value (its length agrees with its
// size) and returns its data and sums. The length and sums lead, so that
// opening a value touches only its first page, which a reader of the
// value's head reads anyway.
func split(sealed []byte) (data, sums []byte, ok bool) {
	if len(sealed) < 4 {
		return nil, nil, false
	}
	n := int(binary.LittleEndian.Uint32(sealed))
	nb := blocks(n)
	if 4+4*nb+n != len(sealed) {
		return nil, nil, false
	}
	return sealed[4+4*nb:], sealed[4 : 4+4*nb], true
}

// Open checks the shape of a sealed value and returns its data, whose
// blocks are verified as they are read. It reads no data block.
func Open(sealed []byte) (Bytes, error) { return OpenSeen(sealed, nil) }

// Seen keeps which blocks of one stored value reads have verified, across
// the opens of it: a caller that knows the bytes are the same as at the
// last open (the same commit of the same file) need not verify them again.
// It holds no bytes. It is safe for concurrent use.
type Seen struct {
	mu   sync.Mutex
	bits []atomic.Uint64
}

// words returns the bits for a value of nw words of blocks; another
// shape starts afresh.
func (s *Seen) words(nw int) []atomic.Uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.bits) != nw {
		s.bits = make([]atomic.Uint64, nw)
	}
	return s.bits
}

// OpenSeen is Open with the verified blocks kept in seen (nil: kept with
// the returned Bytes only).
func OpenSeen(sealed []byte, seen *Seen) (Bytes, error) {
	data, sums, ok := split(sealed)
	if !ok {
		return Bytes{}, ErrCorrupt
	}
	g := &guard{data: data, sums: sums}
	switch nw := (len(sums)/4 + 63) / 64; {
	case seen != nil:
		g.seen = seen.words(nw)
	case nw <= len(g.small):
		g.seen = g.small[:nw]
	default:
		g.seen = make([]atomic.Uint64, nw)
	}
	return Bytes{b: data, g: g}, nil
}

// Stamp identifies the content of sealed values without reading their
// data: a CRC-32C of their lengths and block sums, which change when any
// block does. A record that stores its tier data's stamp can tell that data
// of another version replaced it. ok is false for a value of the wrong
// shape.
func Stamp(sealed ...[]byte) (stamp uint32, ok bool) {
	for _, v := range sealed {
		_, sums, ok := split(v)
		if !ok {
			return 0, false
		}
		stamp = crc32.Update(stamp, castagnoli(), v[:4+len(sums)])
	}
	return stamp, true
}

// Unseal verifies a whole sealed value and returns its data.
func Unseal(sealed []byte) ([]byte, error) {
	data, sums, ok := split(sealed)
	if !ok {
		return nil, ErrCorrupt
	}
	for i := 0; i*BlockSize < len(data); i++ {
		if sum(data, i) != binary.LittleEndian.Uint32(sums[4*i:]) {
			return nil, ErrCorrupt
		}
	}
	return data, nil
}

// guard is the verification state of one sealed value, shared by every
// Bytes cut from it. It is safe for concurrent use.
type guard struct {
	data  []byte
	sums  []byte
	seen  []atomic.Uint64  // one bit per block verified good
	small [2]atomic.Uint64 // seen, for values of up to 128 blocks (64 KiB)
	bad   atomic.Bool
}

// check verifies the blocks under data[lo:hi] that no read verified yet.
func (g *guard) check(lo, hi int) bool {
	if lo >= hi {
		return true
	}
	for blk := lo / BlockSize; blk <= (hi-1)/BlockSize; blk++ {
		w, bit := blk>>6, uint64(1)<<(blk&63)
		if g.seen[w].Load()&bit != 0 {
			continue
		}
		if sum(g.data, blk) != binary.LittleEndian.Uint32(g.sums[4*blk:]) {
			g.bad.Store(true)
			return false
		}
		g.seen[w].Or(bit)
	}
	return true
}

// Bytes is a read-only view of sealed data (or of trusted bytes, which are
// never checked). Every read verifies the blocks it touches; a read that
// meets a damaged block fails, and Err then reports the damage. A Bytes
// aliases the stored value: it is valid as long as that is.
type Bytes struct {
	b   []byte
	off int    // b's offset in the guarded data
	g   *guard // nil for trusted bytes
}

// Trusted wraps bytes that need no checking (built in this process).
func Trusted(b []byte) Bytes { return Bytes{b: b} }

// Len returns the number of bytes.
func (b Bytes) Len() int { return len(b.b) }

// Slice returns b[lo:hi], verified, or false when the range is out of
// bounds or touches a damaged block.
func (b Bytes) Slice(lo, hi int) ([]byte, bool) {
	if lo < 0 || hi < lo || hi > len(b.b) {
		return nil, false
	}
	if b.g != nil && !b.g.check(b.off+lo, b.off+hi) {
		return nil, false
	}
	return b.b[lo:hi:hi], true
}

// Uint32 returns the little-endian uint32 at off, verified.
func (b Bytes) Uint32(off int) (uint32, bool) {
	s, ok := b.Slice(off, off+4)
	if !ok {
		return 0, false
	}
	return binary.LittleEndian.Uint32(s), true
}

// Uint64 returns the little-endian uint64 at off, verified.
func (b Bytes) Uint64(off int) (uint64, bool) {
	s, ok := b.Slice(off, off+8)
	if !ok {
		return 0, false
	}
	return binary.LittleEndian.Uint64(s), true
}

// Sub returns the view b[lo:hi] without reading it, or false when the
// range is out of bounds.
func (b Bytes) Sub(lo, hi int) (Bytes, bool) {
	if lo < 0 || hi < lo || hi > len(b.b) {
		return Bytes{}, false
	}
	return Bytes{b: b.b[lo:hi:hi], off: b.off + lo, g: b.g}, true
}

// Verify checks every block under b.
func (b Bytes) Verify() error {
	if _, ok := b.Slice(0, len(b.b)); !ok {
		return ErrCorrupt
	}
	return nil
}

// Err reports whether any read of the value (through any view of it) met
// a damaged block.
func (b Bytes) Err() error {
	if b.g != nil && b.g.bad.Load() {
		return ErrCorrupt
	}
	return nil
}
