package analyzer

import (
	"sort"
	"sync/atomic"
	"unicode"
	"unicode/utf8"
	"unsafe"

	"golang.org/x/text/unicode/norm"
)

//go:generate go test -run ^TestUnicodeDelta$ -update-delta

// Types of the generated tables in unicode_delta.go.
type (
	wordRange struct {
		lo, hi rune
		word   bool
	}
	lowerEntry struct {
		r     rune
		lower string
	}
	caseTypeRange struct {
		lo, hi rune
		t      caseType
	}
	decompEntry struct {
		r rune
		d string
	}
	cccEntry struct {
		r   rune
		ccc uint8
	}
	composeEntry struct {
		a, b, c rune
	}
	runeRange struct {
		lo, hi rune
	}
)

// caseType is a code point's role in the Final_Sigma context of the Unicode
// lowercase algorithm, as ICU (and so JavaScript) evaluates it: a code point
// that is Case_Ignorable is skipped even when it is also Cased.
type caseType uint8

const (
	caseNone      caseType = iota // stops the context scan
	caseCased                     // a cased letter: the context is found
	caseIgnorable                 // skipped
)

// ASCII byte classes.
const (
	clsWord  = 1 << iota // [A-Za-z0-9_]
	clsUpper             // [A-Z]
	clsHigh              // >= 0x80: not ASCII
)

var asciiClass = func() (t [256]uint8) {
	for c := 0; c < 256; c++ {
		switch {
		case c >= 0x80:
			t[c] = clsHigh
		case c >= 'A' && c <= 'Z':
			t[c] = clsWord | clsUpper
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '_':
			t[c] = clsWord
		}
	}
	return t
}()

// Base rules: what Go's own tables say. TestUnicodeDelta records where
// JavaScript differs from them, in unicode_delta.go.

// baseLower is the context-free lowercase of r other than U+03A3: the simple
// mapping, except for U+0130 whose full mapping has two code points.
func baseLower(r rune) string {
	if r == 0x130 {
		return "i\u0307"
	}
	return string(unicode.ToLower(r))
}

func baseIsWord(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r)
}

// wordBreakIgnorable are the code points with Word_Break MidLetter,
// MidNumLet or Single_Quote (UAX #29), which are Case_Ignorable besides the
// Mn, Me, Cf, Lm and Sk categories. Go's unicode package has no Word_Break
// property.
var wordBreakIgnorable = []rune{0x27, 0x2e, 0x3a, 0xb7, 0x387, 0x55f, 0x5f4, 0x2018, 0x2019, 0x2024, 0x2027, 0xfe13, 0xfe52, 0xfe55, 0xff07, 0xff0e, 0xff1a}

func baseCaseType(r rune) caseType {
	for _, w := range wordBreakIgnorable {
		if r == w {
			return caseIgnorable
		}
	}
	if unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf, unicode.Lm, unicode.Sk) {
		return caseIgnorable
	}
	if unicode.In(r, unicode.Lu, unicode.Ll, unicode.Lt, unicode.Other_Lowercase, unicode.Other_Uppercase) {
		return caseCased
	}
	return caseNone
}

// Delta lookups. Each table is guarded by a bitmap of 64-code-point blocks
// so that the common case (no override) costs one bit test.

type blockSet [(unicode.MaxRune + 1) / 64 / 64]uint64

func (b *blockSet) add(lo, hi rune) {
	for blk := lo >> 6; blk <= hi>>6; blk++ {
		b[blk>>6] |= 1 << (blk & 63)
	}
}

func (b *blockSet) has(r rune) bool {
	blk := uint32(r) >> 6
	return blk < uint32(len(b))*64 && b[blk>>6]&(1<<(blk&63)) != 0
}

var (
	propBlocks blockSet // runes with a deltaWord, deltaLower or deltaCaseType entry
	normBlocks blockSet // runes in deltaNormTrigger
)

func init() {
	for _, w := range deltaWord {
		propBlocks.add(w.lo, w.hi)
	}
	for _, l := range deltaLower {
		propBlocks.add(l.r, l.r)
	}
	for _, c := range deltaCaseType {
		propBlocks.add(c.lo, c.hi)
	}
	for _, t := range deltaNormTrigger {
		normBlocks.add(t.lo, t.hi)
	}
}

func lookupDeltaWord(r rune) (word, ok bool) {
	i := sort.Search(len(deltaWord), func(i int) bool { return deltaWord[i].hi >= r })
	if i < len(deltaWord) && deltaWord[i].lo <= r {
		return deltaWord[i].word, true
	}
	return false, false
}

func lookupDeltaLower(r rune) (string, bool) {
	i := sort.Search(len(deltaLower), func(i int) bool { return deltaLower[i].r >= r })
	if i < len(deltaLower) && deltaLower[i].r == r {
		return deltaLower[i].lower, true
	}
	return "", false
}

func lookupDeltaCaseType(r rune) (caseType, bool) {
	i := sort.Search(len(deltaCaseType), func(i int) bool { return deltaCaseType[i].hi >= r })
	if i < len(deltaCaseType) && deltaCaseType[i].lo <= r {
		return deltaCaseType[i].t, true
	}
	return caseNone, false
}

// isWordSlow reports whether r is in [\p{L}\p{N}_] (Unicode as JavaScript
// knows it).
func isWordSlow(r rune) bool {
	if propBlocks.has(r) {
		if w, ok := lookupDeltaWord(r); ok {
			return w
		}
	}
	return baseIsWord(r)
}

// lowerSimple returns the lowercase of r when it is a single rune, and
// multi=true for U+0130 (whose lowercase is "i\u0307"). U+03A3 is not
// handled here: its lowercase depends on the context.
func lowerSimple(r rune) (l rune, multi bool) {
	if r < utf8.RuneSelf {
		if 'A' <= r && r <= 'Z' {
			r += 'a' - 'A'
		}
		return r, false
	}
	if r == 0x130 {
		return 0, true
	}
	if propBlocks.has(r) {
		if s, ok := lookupDeltaLower(r); ok {
			if l, n := utf8.DecodeRuneInString(s); n == len(s) {
				return l, false
			}
			return 0, true
		}
	}
	return unicode.ToLower(r), false
}

// appendLowerRune appends the context-free lowercase of r.
func appendLowerRune(dst []byte, r rune) []byte {
	l, multi := lowerSimple(r)
	if !multi {
		return utf8.AppendRune(dst, l)
	}
	if r == 0x130 {
		return append(dst, "i\u0307"...)
	}
	s, _ := lookupDeltaLower(r)
	return append(dst, s...)
}

func caseTypeOf(r rune) caseType {
	if propBlocks.has(r) {
		if t, ok := lookupDeltaCaseType(r); ok {
			return t
		}
	}
	return baseCaseType(r)
}

// The class table: one byte of rune* bits per code point, built a page of
// 256 code points at a time on first use (text in a few scripts costs a few
// pages, some tens of microseconds each), so that classifying a rune is two
// loads.
const (
	runeWord    = 1 << iota // in [\p{L}\p{N}_]
	runeChanges             // lowercasing changes it (includes U+0130, U+03A3)
	runeInert               // NFKC leaves it alone and nothing before it combines with it
)

// classPages holds *[256]uint8 pages, read and written atomically. Its
// length is a power of two above (MaxRune+1)/256 so that indexing needs no
// bounds check.
var classPages [0x2000]unsafe.Pointer

// runeClass returns the rune* bits of r, a valid rune.
func runeClass(r rune) uint8 {
	if c, ok := classCached(r); ok {
		return c
	}
	return buildPage(r >> 8)[uint8(r)]
}

// classCached is runeClass when the page of r exists. It is small enough to
// be inlined in the scanning loops, which call runeClass when it fails.
func classCached(r rune) (uint8, bool) {
	p := atomic.LoadPointer(&classPages[uint32(r)>>8&0x1fff])
	if p == nil {
		return 0, false
	}
	return (*[256]uint8)(p)[uint8(r)], true
}

func buildPage(hi rune) *[256]uint8 {
	t := new([256]uint8)
	for lo := range rune(256) {
		r := hi<<8 | lo
		if r >= 0xd800 && r <= 0xdfff || r > unicode.MaxRune {
			continue
		}
		t[lo] = slowClass(r)
	}
	// Concurrent builders compute the same page; keep the first.
	atomic.CompareAndSwapPointer(&classPages[hi], nil, unsafe.Pointer(t))
	return (*[256]uint8)(atomic.LoadPointer(&classPages[hi]))
}

// slowClass computes the rune* bits of r.
func slowClass(r rune) uint8 {
	var c uint8
	if isWordSlow(r) {
		c |= runeWord
	}
	if l, multi := lowerSimple(r); multi || l != r || r == 0x3a3 {
		c |= runeChanges
	}
	if isInertSlow(r) {
		c |= runeInert
	}
	return c
}

// isInertSlow reports whether r is a starter that NFKC keeps and that
// combines with nothing before it, in JavaScript's Unicode: a text made of
// such code points only is NFKC-normalized.
func isInertSlow(r rune) bool {
	if normBlocks.has(r) && inDeltaNormTrigger(r) {
		return false
	}
	var b [utf8.UTFMax]byte
	enc := utf8.AppendRune(b[:0], r)
	// BoundaryBefore: a starter that combines with nothing before it.
	// QuickSpan: its NFKC quick check is Yes, so NFKC keeps it (precomposed
	// letters like 'é' included).
	return norm.NFKC.Properties(enc).BoundaryBefore() && norm.NFKC.QuickSpan(enc) == len(enc)
}
