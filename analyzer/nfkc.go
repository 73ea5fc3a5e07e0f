package analyzer

import (
	"bytes"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Normalize returns s in Unicode Normalization Form KC exactly as
// JavaScript's s.normalize("NFKC") does. It is the text whose byte offsets
// the tokenizer reports (see EachSpan). Invalid UTF-8 bytes are kept as they
// are; they behave like U+FFFD (a starter that composes with nothing).
// Normalize returns s itself when s is already normalized.
//
// It uses golang.org/x/text/unicode/norm, corrected where x/text and
// JavaScript differ (see the package documentation): the code points
// Unicode added after x/text's tables (deltaDecomp, deltaCCC, deltaCompose),
// x/text's stream-safe limit, which inserts U+034F after 30 non-starters
// where JavaScript does not, and invalid UTF-8, after which x/text can stop
// normalizing. Text that needs a correction goes through a slower, exact
// implementation of the normalization algorithm (slowNFKC).
func Normalize(s string) string {
	if isASCII(s) {
		return s
	}
	return normalizeNonASCII(s)
}

// appendNormalized appends Normalize(s) to dst, for s that is not ASCII,
// and returns ok=false without appending when s is already normalized.
func appendNormalized(dst []byte, s string) ([]byte, bool) {
	if allInert(s) {
		return dst, false
	}
	if exactOnly(s) {
		if n := slowNFKC(s); n != s {
			return append(dst, n...), true
		}
		return dst, false
	}
	if norm.NFKC.QuickSpanString(s) == len(s) {
		return dst, false
	}
	out := norm.NFKC.AppendString(dst, s)
	if bytes.Count(out[len(dst):], []byte(cgj)) != strings.Count(s, cgj) {
		// x/text inserted a COMBINING GRAPHEME JOINER to keep the text
		// stream-safe (UAX #15 §13); JavaScript does not.
		return append(dst, slowNFKC(s)...), true
	}
	return out, true
}

// allInert reports whether every code point of s is ASCII or inert (see
// bmpInert): then s is normalized. It is a quicker quick check than
// x/text's for most text; false means "do not know".
func allInert(s string) bool {
	bmp := loadBMP()
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError || r >= 0x10000 || bmp[r]&bmpInert == 0 {
			return false
		}
		i += size
	}
	return true
}

// exactOnly reports whether s needs slowNFKC: it holds a code point whose
// normalization x/text does not know, or invalid UTF-8 (after an invalid
// byte that looks like the start of a truncated sequence, x/text can leave
// the rest of the text unnormalized).
func exactOnly(s string) bool {
	return hasNormDelta(s) || !utf8.ValidString(s)
}

func normalizeNonASCII(s string) string {
	if out, ok := appendNormalized(nil, s); ok {
		return string(out)
	}
	return s
}

const cgj = "\u034f"

func isASCII(s string) bool {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		w := uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
			uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
		if w&0x8080808080808080 != 0 {
			return false
		}
	}
	for ; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// hasNormDelta reports whether s contains a code point whose normalization
// x/text does not know (all of them are outside U+0000..U+07FF).
func hasNormDelta(s string) bool {
	for i := 0; i < len(s); {
		if s[i] < 0xe0 {
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if normBlocks.has(r) && inDeltaNormTrigger(r) {
			return true
		}
		i += size
	}
	return false
}

func inDeltaNormTrigger(r rune) bool {
	i := sort.Search(len(deltaNormTrigger), func(i int) bool { return deltaNormTrigger[i].hi >= r })
	return i < len(deltaNormTrigger) && deltaNormTrigger[i].lo <= r
}

// invalidByte represents an invalid UTF-8 byte b in slowNFKC's rune buffer.
func invalidByte(b byte) rune { return -1 - rune(b) }

// slowNFKC is the normalization algorithm of UAX #15 (full compatibility
// decomposition, canonical ordering, canonical composition) over x/text's
// per-code-point data plus the delta tables, without a stream-safe limit.
// It is used only for the rare texts that need it.
func slowNFKC(s string) string {
	// 1. Decompose.
	rs := make([]rune, 0, len(s))
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			rs = append(rs, rune(c))
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		if r == utf8.RuneError && size == 1 {
			rs = append(rs, invalidByte(c))
			continue
		}
		if d, ok := lookupDeltaDecomp(r); ok {
			for _, x := range d {
				rs = append(rs, x)
			}
			continue
		}
		var b [utf8.UTFMax]byte
		enc := utf8.AppendRune(b[:0], r)
		if !norm.NFKD.IsNormal(enc) {
			for _, x := range string(norm.NFKD.Bytes(enc)) {
				rs = append(rs, x)
			}
			continue
		}
		rs = append(rs, r)
	}

	// 2. Canonical ordering: stable sort of every run of non-starters.
	cccs := make([]uint8, len(rs))
	for i, r := range rs {
		cccs[i] = combiningClass(r)
	}
	for i := 0; i < len(rs); {
		if cccs[i] == 0 {
			i++
			continue
		}
		j := i + 1
		for j < len(rs) && cccs[j] != 0 {
			j++
		}
		if j-i > 1 {
			idx := make([]int, j-i)
			for k := range idx {
				idx[k] = i + k
			}
			sort.SliceStable(idx, func(a, b int) bool { return cccs[idx[a]] < cccs[idx[b]] })
			run := make([]rune, j-i)
			runCCC := make([]uint8, j-i)
			for k, x := range idx {
				run[k], runCCC[k] = rs[x], cccs[x]
			}
			copy(rs[i:j], run)
			copy(cccs[i:j], runCCC)
		}
		i = j
	}

	// 3. Canonical composition.
	out := rs[:0]
	outCCC := cccs[:0]
	starter := -1 // index in out of the last starter; -1 before the first
	for i, r := range rs {
		cc := cccs[i]
		// r is blocked from the starter unless it follows it directly or
		// everything in between has a lower combining class. (out after
		// the starter holds only non-starters, in canonical order.)
		if starter >= 0 && (len(out)-1 == starter || outCCC[len(outCCC)-1] < cc) {
			if c, ok := compose(out[starter], r); ok {
				out[starter] = c
				continue
			}
		}
		if cc == 0 {
			starter = len(out)
		}
		out = append(out, r)
		outCCC = append(outCCC, cc)
	}

	b := make([]byte, 0, len(s)+8)
	for _, r := range out {
		if r < 0 {
			b = append(b, byte(-1-r))
			continue
		}
		b = utf8.AppendRune(b, r)
	}
	return string(b)
}

func lookupDeltaDecomp(r rune) (string, bool) {
	if !normBlocks.has(r) {
		return "", false
	}
	i := sort.Search(len(deltaDecomp), func(i int) bool { return deltaDecomp[i].r >= r })
	if i < len(deltaDecomp) && deltaDecomp[i].r == r {
		return deltaDecomp[i].d, true
	}
	return "", false
}

func combiningClass(r rune) uint8 {
	if r < 0x300 {
		return 0 // covers invalidByte's negative values too
	}
	if normBlocks.has(r) {
		i := sort.Search(len(deltaCCC), func(i int) bool { return deltaCCC[i].r >= r })
		if i < len(deltaCCC) && deltaCCC[i].r == r {
			return deltaCCC[i].ccc
		}
	}
	var b [utf8.UTFMax]byte
	return norm.NFD.Properties(utf8.AppendRune(b[:0], r)).CCC()
}

// compose returns the primary composite of the starter a and r, if any.
func compose(a, r rune) (rune, bool) {
	if a < 0 || r < 0 {
		return 0, false
	}
	if normBlocks.has(a) || normBlocks.has(r) {
		i, ok := slices.BinarySearchFunc(deltaCompose, [2]rune{a, r}, func(e composeEntry, k [2]rune) int {
			if e.a != k[0] {
				return int(e.a - k[0])
			}
			return int(e.b - k[1])
		})
		if ok {
			return deltaCompose[i].c, true
		}
	}
	// x/text exposes no composition lookup; normalizing the pair finds it.
	// The pair is a starter followed by a character that canonical ordering
	// placed after everything a was composed from, so NFC(a r) is a single
	// code point exactly when (a, r) has a primary composite.
	var b [2 * utf8.UTFMax]byte
	enc := utf8.AppendRune(utf8.AppendRune(b[:0], a), r)
	if norm.NFC.IsNormal(enc) {
		return 0, false
	}
	c := norm.NFC.Bytes(enc)
	if x, n := utf8.DecodeRune(c); n == len(c) {
		return x, true
	}
	return 0, false
}
