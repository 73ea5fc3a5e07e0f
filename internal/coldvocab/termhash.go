package coldvocab

import (
	"encoding/binary"
	"math/bits"
	"unsafe"
)

// termHash hashes a term for a term set's table, as wyhash's short-input
// path does: most terms are under 16 bytes and hash from two loads and
// one 128-bit multiply, where maphash.String went through the runtime's
// generic hash (0.8 of a 100k rebuild's ~33 CPU-seconds). seed is the
// set's, random: terms come from files anyone may have written, and a
// table whose terms collide is only slower.
func termHash(s string, seed uint64) uint64 {
	const k0, k1 = 0xa0761d6478bd642f, 0xe7037ed1a0b428db
	b := unsafe.Slice(unsafe.StringData(s), len(s))
	n := len(b)
	seed ^= k0
	var x, y uint64
	switch {
	case n == 0:
	case n < 4:
		x = uint64(b[0])<<16 | uint64(b[n>>1])<<8 | uint64(b[n-1])
	case n <= 8:
		x, y = uint64(binary.LittleEndian.Uint32(b)), uint64(binary.LittleEndian.Uint32(b[n-4:]))
	case n <= 16:
		x, y = binary.LittleEndian.Uint64(b), binary.LittleEndian.Uint64(b[n-8:])
	default:
		for len(b) > 16 {
			seed = mix(binary.LittleEndian.Uint64(b)^k1, binary.LittleEndian.Uint64(b[8:])^seed)
			b = b[16:]
		}
		// The last 16 bytes, some hashed already: n > 16.
		tail := unsafe.Slice(unsafe.StringData(s), n)[n-16:]
		x, y = binary.LittleEndian.Uint64(tail), binary.LittleEndian.Uint64(tail[8:])
	}
	return mix(k1^uint64(n), mix(x^k1, y^seed))
}

func mix(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	return hi ^ lo
}
