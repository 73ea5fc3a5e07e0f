package analyzer

import (
	"unicode/utf8"
)

// Lower returns s lowercased exactly as JavaScript's
// String.prototype.toLowerCase does (the root locale of the Unicode
// lowercase algorithm): full mappings, so U+0130 'İ' becomes "i\u0307", and
// the Final_Sigma rule, so 'Σ' becomes 'ς' at the end of a word and 'σ'
// elsewhere, with the whole of s as the context. Invalid UTF-8 bytes become
// U+FFFD, one per byte. Lower returns s itself when nothing changes.
func Lower(s string) string {
	i := 0
	for ; i < len(s); i++ {
		c := asciiClass[s[i]]
		if c&(clsUpper|clsHigh) != 0 {
			break
		}
	}
	if i == len(s) {
		return s
	}
	if !needsLower(s[i:]) {
		return s
	}
	buf := make([]byte, 0, len(s)+len(s)/8)
	buf = append(buf, s[:i]...)
	return string(appendLower(buf, s, i))
}

// needsLower reports whether Lower would change s.
func needsLower(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if asciiClass[c]&clsUpper != 0 {
				return true
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			return true
		}
		if runeClass(r)&runeChanges != 0 {
			return true
		}
		i += size
	}
	return false
}

// appendLower appends Lower(ctx[from:]) to dst, with all of ctx as the
// Final_Sigma context.
func appendLower(dst []byte, ctx string, from int) []byte {
	for i := from; i < len(ctx); {
		c := ctx[i]
		if c < utf8.RuneSelf {
			if asciiClass[c]&clsUpper != 0 {
				c += 'a' - 'A'
			}
			dst = append(dst, c)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(ctx[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = utf8.AppendRune(dst, utf8.RuneError)
		case r == 0x3a3:
			if isFinalSigma(ctx, i, i+size) {
				dst = utf8.AppendRune(dst, 0x3c2)
			} else {
				dst = utf8.AppendRune(dst, 0x3c3)
			}
		default:
			dst = appendLowerRune(dst, r)
		}
		i += size
	}
	return dst
}

// isFinalSigma evaluates the Final_Sigma condition for the sigma at
// ctx[start:end]: it is preceded by a cased letter and not followed by one,
// skipping case-ignorable code points in both directions (as ICU does: a
// code point that is both cased and case-ignorable is skipped).
func isFinalSigma(ctx string, start, end int) bool {
	return casedBefore(ctx[:start]) && !casedAfter(ctx[end:])
}

func casedBefore(s string) bool {
	for len(s) > 0 {
		r, size := utf8.DecodeLastRuneInString(s)
		switch caseTypeOf(r) {
		case caseCased:
			return true
		case caseNone:
			return false
		}
		s = s[:len(s)-size]
	}
	return false
}

func casedAfter(s string) bool {
	for len(s) > 0 {
		r, size := utf8.DecodeRuneInString(s)
		switch caseTypeOf(r) {
		case caseCased:
			return true
		case caseNone:
			return false
		}
		s = s[size:]
	}
	return false
}
