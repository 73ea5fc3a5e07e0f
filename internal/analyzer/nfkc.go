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
//
// Most of a real text is inert (ASCII, or starters that NFKC keeps and that
// combine with nothing before them, see runeInert), and an inert code point
// starts a normalization segment: NFKC(a+b) = NFKC(a)+NFKC(b) when b starts
// with one. So only the stretches around non-inert code points, from the
// inert code point before them to the next inert one, are handed to the
// normalizer; the rest is copied (or, when nothing changes, not even that).
func appendNormalized(dst []byte, s string) ([]byte, bool) {
	out := dst
	changed := false
	emitted := 0 // with changed: s[:emitted] is in out
	prev := 0    // start of the last inert code point before i, or 0
	for i := 0; i < len(s); {
		if s[i] < utf8.RuneSelf {
			// ASCII is inert; skip it eight bytes at a time.
			j := i + 1
			for j+8 <= len(s) && load64(s, j)&high8 == 0 {
				j += 8
			}
			for j < len(s) && s[j] < utf8.RuneSelf {
				j++
			}
			prev, i = j-1, j
			continue
		}
		if size := inertAt(s, i); size > 0 {
			prev = i
			i += size
			continue
		}
		q := prev // the stretch starts at the inert code point before i (or 0)
		j := segmentEnd(s, i)
		seg := s[q:j]
		if !changed {
			if !exactOnly(seg) && norm.NFKC.QuickSpanString(seg) == len(seg) {
				i = j
				continue
			}
			if free := cap(out) - len(out); free < len(s) {
				// Room for the usual case, where NFKC changes little.
				out = append(make([]byte, 0, len(out)+len(s)+len(s)/8+16), out...)
			}
			out = append(out, s[:q]...)
			changed = true
		} else {
			out = append(out, s[emitted:q]...)
		}
		out = appendSegment(out, seg)
		emitted = j
		i = j
	}
	if !changed {
		return dst, false
	}
	return append(out, s[emitted:]...), true
}

// inertAt returns the size of the code point at s[i] if it is inert, else 0.
func inertAt(s string, i int) int {
	c := s[i]
	if c < utf8.RuneSelf {
		return 1
	}
	r, size := utf8.DecodeRuneInString(s[i:])
	if r == utf8.RuneError && size == 1 {
		return 0 // invalid: the exact path decides
	}
	rc, ok := classCached(r)
	if !ok {
		rc = runeClass(r)
	}
	if rc&runeInert != 0 {
		return size
	}
	return 0
}

// segmentEnd returns where the stretch of non-inert code points starting at
// s[i] ends: at an inert code point, after which at least 16 bytes are
// inert (shorter inert gaps are taken into the stretch, to normalize dense
// text in few calls), or at the end of s.
func segmentEnd(s string, i int) int {
	j := i
	for j < len(s) {
		if size := inertAt(s, j); size == 0 {
			_, n := utf8.DecodeRuneInString(s[j:])
			j += n
			continue
		}
		k := j
		for k < len(s) && k-j < 16 {
			size := inertAt(s, k)
			if size == 0 {
				break
			}
			k += size
		}
		if k >= len(s) || k-j >= 16 {
			return j
		}
		j = k
	}
	return len(s)
}

// appendSegment appends the NFKC form of seg, a stretch that starts and
// ends at normalization segment boundaries.
func appendSegment(out []byte, seg string) []byte {
	if exactOnly(seg) {
		return append(out, slowNFKC(seg)...)
	}
	start := len(out)
	out = norm.NFKC.AppendString(out, seg)
	if bytes.Count(out[start:], []byte(cgj)) != strings.Count(seg, cgj) {
		// x/text inserted a COMBINING GRAPHEME JOINER to keep the text
		// stream-safe (UAX #15 §13); JavaScript does not.
		out = append(out[:start], slowNFKC(seg)...)
	}
	return out
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

// load64 returns the eight bytes of s from i as a little-endian integer.
func load64(s string, i int) uint64 {
	s = s[i : i+8]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

func isASCII(s string) bool {
	i := 0
	// Four words per test: one branch per 32 bytes, as text is mostly
	// ASCII and whole chunks are checked.
	for ; i+32 <= len(s); i += 32 {
		if (load64(s, i)|load64(s, i+8)|load64(s, i+16)|load64(s, i+24))&high8 != 0 {
			return false
		}
	}
	for ; i+8 <= len(s); i += 8 {
		if load64(s, i)&high8 != 0 {
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
	rs := decompose(s)
	cccs := make([]uint8, len(rs))
	for i, r := range rs {
		cccs[i] = combiningClass(r)
	}
	orderNonStarters(rs, cccs)
	return encodeRunes(composeCanonical(rs, cccs), len(s)+8)
}

// decompose is step 1 of slowNFKC: the full compatibility decomposition of
// s as runes, an invalid byte kept as invalidByte.
func decompose(s string) []rune {
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
	return rs
}

// orderNonStarters is step 2 of slowNFKC, the canonical ordering: a stable
// sort by combining class of every run of non-starters in rs, whose
// classes cccs holds and keeps in step.
func orderNonStarters(rs []rune, cccs []uint8) {
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
			sortRun(rs[i:j], cccs[i:j])
		}
		i = j
	}
}

// sortRun sorts one run of non-starters stably by combining class.
func sortRun(rs []rune, cccs []uint8) {
	idx := make([]int, len(rs))
	for k := range idx {
		idx[k] = k
	}
	sort.SliceStable(idx, func(a, b int) bool { return cccs[idx[a]] < cccs[idx[b]] })
	run := make([]rune, len(rs))
	runCCC := make([]uint8, len(rs))
	for k, x := range idx {
		run[k], runCCC[k] = rs[x], cccs[x]
	}
	copy(rs, run)
	copy(cccs, runCCC)
}

// composeCanonical is step 3 of slowNFKC, the canonical composition of
// rs (in canonical order, with classes cccs), done in place: it returns
// rs's prefix that holds the result.
func composeCanonical(rs []rune, cccs []uint8) []rune {
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
	return out
}

// encodeRunes is rs as UTF-8, an invalidByte back as the byte it stands
// for; size is the capacity to start from.
func encodeRunes(rs []rune, size int) string {
	b := make([]byte, 0, size)
	for _, r := range rs {
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
