package analyzer

import (
	"math/bits"
	"unicode/utf8"
	"unsafe"
)

// The scanner finds the tokens of one text. It is built for ASCII-heavy
// text:
//
//   - The text is cut into chunks of about chunkSize bytes at "safe"
//     boundaries (an ASCII non-word byte followed by an ASCII byte), across
//     which neither a token nor an NFKC composition can reach, so each chunk
//     is normalized on its own (see appendNormalized), and only if it is
//     not ASCII. NFKC(text) is the concatenation of the normalized chunks.
//   - Within a chunk, 64-byte windows are classified eight bytes at a time
//     (SWAR) into bitmaps of ASCII word bytes, ASCII upper-case bytes and
//     non-ASCII bytes; ASCII tokens are then found with bit arithmetic,
//     without a branch per byte. Anything that touches a non-ASCII byte
//     goes through the rune-by-rune path.
type scanner struct {
	text     string // the whole input
	chunkEnd int    // end in text of the current chunk
	normOff  int    // offset in Normalize(text) of the current chunk

	s    string // the current chunk, normalized
	base int    // offset in s of the current window
	// Bitmaps of s[base:base+64], bit k for byte base+k; the bits of bytes
	// already consumed are cleared.
	word, upper, high uint64

	arena []byte // backing store of lowercased tokens; never written below len
	// reuse: the arena came from a Tokenizer and goes back to it, so it
	// grows without the chunk-sized cap of a one-off text.
	reuse bool
}

// chunkSize is a variable so that tests can make chunks tiny.
var chunkSize = 4096

// firstArena is the size of a text's first arena of lowercased tokens
// when the text is longer.
const firstArena = 256

func newScanner(text string) scanner {
	sc := scanner{text: text}
	sc.loadChunk()
	return sc
}

// loadChunk moves to the chunk that starts at sc.chunkEnd. It returns false
// at the end of the text.
func (sc *scanner) loadChunk() bool {
	start := sc.chunkEnd
	if start >= len(sc.text) {
		return false
	}
	sc.normOff += len(sc.s)
	end := safeBoundary(sc.text, start+chunkSize)
	chunk := sc.text[start:end]
	sc.chunkEnd = end
	if !isASCII(chunk) {
		if sc.reuse {
			// Into the arena, so that a Tokenizer reuses the bytes too;
			// keep makes them part of it and they are never written
			// again: tokens may share them.
			if n, ok := appendNormalized(sc.grow(len(chunk)+len(chunk)/8+16), chunk); ok {
				chunk = sc.keep(n)
			}
		} else if n, ok := appendNormalized(nil, chunk); ok {
			// n is never written again: tokens may share it.
			chunk = unsafe.String(unsafe.SliceData(n), len(n))
		}
	}
	sc.s = chunk
	sc.setWindow(0)
	return true
}

// safeBoundary returns the first position p >= from at which the text can
// be cut: text[p-1] is an ASCII byte that is not a word byte and text[p] is
// ASCII, or the end of the text. ASCII characters are starters that no
// composition takes as its second character, and a non-word byte ends any
// token.
func safeBoundary(text string, from int) int {
	if from >= len(text) {
		return len(text)
	}
	for p := max(from, 1); p < len(text); p++ {
		if text[p] < utf8.RuneSelf && asciiClass[text[p-1]]&(clsWord|clsHigh) == 0 {
			return p
		}
	}
	return len(text)
}

// setWindow classifies the 64 bytes of sc.s from pos.
func (sc *scanner) setWindow(pos int) {
	sc.base = pos
	s := sc.s
	if pos+64 <= len(s) {
		sc.word, sc.upper, sc.high = classify64(s[pos : pos+64])
		return
	}
	var word, upper, high uint64
	for k := 0; pos+k < len(s); k++ {
		c := asciiClass[s[pos+k]]
		word |= uint64(c&clsWord) << k
		upper |= uint64(c&clsUpper>>1) << k
		high |= uint64(c&clsHigh>>2) << k
	}
	sc.word, sc.upper, sc.high = word, upper, high
}

const (
	ones8 = 0x0101010101010101
	high8 = 0x8080808080808080
)

// inRange sets the high bit of every byte of y (all bytes < 0x80) that lies
// in [lo, hi].
func inRange(y uint64, lo, hi byte) uint64 {
	return (y + ones8*uint64(0x80-lo)) &^ (y + ones8*uint64(0x7f-hi)) & high8
}

// movemask gathers the high bits of the eight bytes of m into a byte.
func movemask(m uint64) uint64 {
	return ((m >> 7) * 0x0102040810204080) >> 56
}

// classify64 returns the word, upper and high bitmaps of the 64 bytes of b.
func classify64(b string) (word, upper, high uint64) {
	_ = b[63]
	for k := 0; k < 64; k += 8 {
		x := load64(b, k)
		h := x & high8
		y := x &^ high8
		w := inRange(y, '0', '9') | inRange(y|0x2020202020202020, 'a', 'z') | inRange(y, '_', '_')
		u := inRange(y, 'A', 'Z')
		notHigh := ^(h >> 7 * 0xff)
		word |= movemask(w&notHigh) << k
		upper |= movemask(u&notHigh) << k
		high |= movemask(h) << k
	}
	return word, upper, high
}

// next returns the next token and its offsets in Normalize(sc.text).
func (sc *scanner) next() (tok string, start, end int, ok bool) {
	for {
		cand := sc.word | sc.high
		if cand == 0 {
			if sc.base+64 < len(sc.s) {
				sc.setWindow(sc.base + 64)
				continue
			}
			if !sc.loadChunk() {
				return "", 0, 0, false
			}
			continue
		}
		tz := bits.TrailingZeros64(cand)
		p := sc.base + tz
		if sc.high>>tz&1 != 0 {
			// A non-ASCII byte: the rune-by-rune path.
			tok, start, end, ok := sc.slowNext(p)
			if ok {
				return tok, sc.normOff + start, sc.normOff + end, true
			}
			continue
		}
		// An ASCII word byte starts a token.
		n := bits.TrailingZeros64(^(sc.word >> tz))
		e := tz + n
		if e < 64 && sc.high>>e&1 == 0 {
			// The token ends in the window, at an ASCII byte or the end.
			mask := uint64(1)<<e - 1
			hasUpper := sc.upper&mask != 0
			sc.word &^= mask
			sc.upper &^= mask
			run := sc.s[p : p+n]
			if hasUpper {
				run = sc.lowerASCII(run)
			}
			return run, sc.normOff + p, sc.normOff + p + n, true
		}
		// The token reaches past the window or into non-ASCII text.
		tok, end := sc.runFrom(p)
		sc.setWindow(end)
		return tok, sc.normOff + p, sc.normOff + end, true
	}
}

// appendAll appends all the remaining tokens to dst. It is next with the
// common case, an ASCII token inside a window, inlined.
func (sc *scanner) appendAll(dst []string) []string {
	for {
		if cand := sc.word | sc.high; cand != 0 {
			tz := bits.TrailingZeros64(cand)
			n := bits.TrailingZeros64(^(sc.word >> tz))
			e := tz + n
			if n > 0 && e < 64 && (sc.high>>e)&1 == 0 {
				mask := uint64(1)<<e - 1
				p := sc.base + tz
				run := sc.s[p : p+n]
				if sc.upper&mask != 0 {
					run = sc.lowerASCII(run)
				}
				sc.word &^= mask
				sc.upper &^= mask
				dst = append(dst, run)
				continue
			}
		}
		tok, _, _, ok := sc.next()
		if !ok {
			return dst
		}
		dst = append(dst, tok)
	}
}

// appendSpans is appendAll for a Tokenizer's spans: the same tokens, each
// as its place in the text or the arena. The fast path is written out in
// both on purpose: as a method of its own it does not inline (cost 167
// against a budget of 80), and the call per token cost about 5% on
// transcript text (BenchmarkTokens/ascii-transcript).
func (sc *scanner) appendSpans(dst []Span) []Span {
	for {
		if cand := sc.word | sc.high; cand != 0 {
			tz := bits.TrailingZeros64(cand)
			n := bits.TrailingZeros64(^(sc.word >> tz))
			e := tz + n
			if n > 0 && e < 64 && (sc.high>>e)&1 == 0 {
				mask := uint64(1)<<e - 1
				p := sc.base + tz
				run := sc.s[p : p+n]
				if sc.upper&mask != 0 {
					run = sc.lowerASCII(run)
				}
				sc.word &^= mask
				sc.upper &^= mask
				dst = append(dst, sc.span(run))
				continue
			}
		}
		tok, _, _, ok := sc.next()
		if !ok {
			return dst
		}
		dst = append(dst, sc.span(tok))
	}
}

// span returns the Span of tok, which lies in the text or in the arena.
func (sc *scanner) span(tok string) Span {
	p := uintptr(unsafe.Pointer(unsafe.StringData(tok)))
	if off := p - uintptr(unsafe.Pointer(unsafe.StringData(sc.text))); off < uintptr(len(sc.text)) {
		return Span{int(off), int(off) + len(tok)}
	}
	off := int(p-uintptr(unsafe.Pointer(unsafe.SliceData(sc.arena)))) + len(sc.text)
	return Span{off, off + len(tok)}
}

// slowNext skips the non-word runes from p, which starts a non-ASCII rune,
// up to a word rune (whose token it returns) or an ASCII byte (where the
// window restarts). Offsets are in sc.s.
func (sc *scanner) slowNext(p int) (tok string, start, end int, ok bool) {
	s := sc.s
	i := p
	for i < len(s) && s[i] >= utf8.RuneSelf {
		r, size := utf8.DecodeRuneInString(s[i:])
		rc, ok := classCached(r)
		if !ok {
			rc = runeClass(r)
		}
		if r != utf8.RuneError && rc&runeWord != 0 {
			tok, end := sc.runFrom(i)
			sc.setWindow(end)
			return tok, i, end, true
		}
		i += size
	}
	sc.setWindow(i)
	return "", 0, 0, false
}

// runFrom scans the token that starts at s[start], a word character, and
// returns it lowercased, with its end.
func (sc *scanner) runFrom(start int) (tok string, end int) {
	s := sc.s
	i := start
	var flags uint8 // clsUpper: has ASCII upper case; clsHigh: lowering changes a non-ASCII rune
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			cls := asciiClass[c]
			if cls&clsWord == 0 {
				break
			}
			flags |= cls
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError {
			break // U+FFFD or an invalid byte: not a letter
		}
		rc, ok := classCached(r)
		if !ok {
			rc = runeClass(r)
		}
		if rc&runeWord == 0 {
			break
		}
		if rc&runeChanges != 0 {
			flags |= clsHigh
		}
		i += size
	}
	run := s[start:i]
	switch {
	case flags&clsHigh != 0:
		tok = sc.keep(appendLower(sc.grow(len(run)+len(run)/2+4), run, 0))
	case flags&clsUpper != 0:
		tok = sc.lowerASCII(run)
	default:
		tok = run
	}
	return tok, i
}

var lowerTable = func() (t [256]byte) {
	for c := range t {
		t[c] = byte(c)
		if 'A' <= c && c <= 'Z' {
			t[c] += 'a' - 'A'
		}
	}
	return t
}()

func (sc *scanner) lowerASCII(run string) string {
	b := sc.grow(len(run))[:len(run)]
	for i := range b {
		b[i] = lowerTable[run[i]]
	}
	return sc.keep(b)
}

// grow returns the unused tail of the arena, with room for at least n
// bytes, as an empty slice to append to.
func (sc *scanner) grow(n int) []byte {
	if cap(sc.arena)-len(sc.arena) < n {
		if sc.reuse {
			sc.regrow(n)
		} else {
			// Enough for the rest of a short text, else twice the last
			// arena, from a small first one up to a chunk's worth: most
			// text has few tokens to lowercase, and sizing the first arena
			// by the text allocated about as many bytes as the text itself.
			rest := len(sc.text) - sc.chunkEnd + len(sc.s) - sc.base
			size := min(rest+8, max(2*cap(sc.arena), firstArena), chunkSize)
			sc.arena = make([]byte, 0, max(size, n))
		}
	}
	return sc.arena[len(sc.arena):]
}

// regrow replaces a Tokenizer's arena with one at least twice as large
// that holds a copy of its bytes, so that every byte of the text's tokens
// outside the text is in the one arena (as Spans need) and the next text
// has room. Strings into the old arena stay valid; the current chunk, if
// it is in the old arena, moves to the new one.
func (sc *scanner) regrow(n int) {
	old := sc.arena
	arena := make([]byte, len(old), max(2*cap(old), firstArena, len(old)+n))
	copy(arena, old)
	if off, ok := offsetIn(old, sc.s); ok {
		sc.s = unsafe.String(&arena[off], len(sc.s))
	}
	sc.arena = arena
}

// offsetIn returns the offset of s in b when s lies in b[:len(b)].
func offsetIn(b []byte, s string) (int, bool) {
	if len(s) == 0 || len(b) == 0 {
		return 0, false
	}
	off := uintptr(unsafe.Pointer(unsafe.StringData(s))) - uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	if off >= uintptr(len(b)) {
		return 0, false
	}
	return int(off), true
}

// keep turns b, which grow returned and which was appended to, into a token
// string. If the appends outgrew the arena, b is a fresh array of its own.
func (sc *scanner) keep(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if rest := sc.arena[len(sc.arena):cap(sc.arena)]; len(rest) > 0 && &rest[0] == &b[0] {
		sc.arena = sc.arena[:len(sc.arena)+len(b)]
	} else if sc.reuse {
		// A Tokenizer keeps all the bytes of a text's tokens in its one
		// arena.
		return sc.keep(append(sc.grow(len(b)), b...))
	}
	// The bytes of b are never written again: the arena only appends past
	// its length, and a b that outgrew it is referenced only by the token.
	return unsafe.String(&b[0], len(b))
}
