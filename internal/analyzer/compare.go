package analyzer

import "unicode/utf8"

// CompareUTF16 compares a and b as JavaScript's < and > compare strings: by
// UTF-16 code units. It returns -1, 0 or +1. It differs from Go's byte order
// (strings.Compare, which is code point order) only where a supplementary
// character (U+10000 and up, a surrogate pair) meets one of U+E000..U+FFFF:
// JavaScript sorts the supplementary character first.
//
// Invalid UTF-8 bytes, which JavaScript strings cannot hold, sort after every
// code unit, by byte value, so the order stays total.
func CompareUTF16(a, b string) int {
	n := min(len(a), len(b))
	i := 0
	for i < n && a[i] == b[i] {
		i++
	}
	ca, cb := byteAt(a, i), byteAt(b, i) // -1 at the end
	if ca < utf8.RuneSelf && cb < utf8.RuneSelf {
		// ASCII or the end of a string: byte order is UTF-16 order (the
		// shared prefix ends on a code point boundary, since the next byte
		// of neither string continues a sequence).
		return cmpInt(ca, cb)
	}
	// Back up to a code point boundary of both strings: every byte that is
	// not a continuation byte starts a code point (an invalid byte is a
	// code point of its own), and so does the end of a string. From there
	// decode both in step; the shared prefix decodes the same, so this ends
	// within a few code points.
	j := i
	for j > 0 && (!runeStartAt(a, j) || !runeStartAt(b, j)) {
		j--
	}
	for {
		ka, sa := unitKey(a[j:])
		kb, _ := unitKey(b[j:])
		if ka != kb {
			return cmpInt(ka, kb)
		}
		if sa == 0 {
			return 0
		}
		j += sa // equal keys: the same code point or the same invalid byte
	}
}

func byteAt(s string, i int) int {
	if i < len(s) {
		return int(s[i])
	}
	return -1
}

func runeStartAt(s string, i int) bool {
	return i >= len(s) || utf8.RuneStart(s[i])
}

// unitKey returns a sort key for the first code point of s and its size in
// bytes (0 at the end of s). The key orders code points by their UTF-16
// code units: supplementary characters (high surrogate 0xD800..0xDBFF)
// before U+E000..U+FFFF; within either group, code point order is the
// code unit order. Invalid bytes come after everything; the end of s (key
// -1) before everything.
func unitKey(s string) (key, size int) {
	if len(s) == 0 {
		return -1, 0
	}
	r, size := utf8.DecodeRuneInString(s)
	switch {
	case r == utf8.RuneError && size == 1:
		return 0x200000 + int(s[0]), 1
	case r >= 0x10000: // surrogate pair: 0xD800 + ...
		return 0xd800 + int(r-0x10000), size
	case r >= 0xe000:
		return 0xd800 + 0x100000 + int(r-0xe000), size
	}
	return int(r), size
}

func cmpInt(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
