package analyzer

import "unicode/utf8"

// IsWordRune reports whether r is a token character: a letter (\p{L}), a
// number (\p{N}) or '_', in Unicode as JavaScript knows it. A token is a
// maximal run of them (after NFKC), so a string holding any other
// character spans tokens.
func IsWordRune(r rune) bool {
	if r < 0 || r > utf8.MaxRune || (r >= 0xd800 && r <= 0xdfff) {
		return false
	}
	return runeClass(r)&runeWord != 0
}
