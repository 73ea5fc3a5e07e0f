package jsjson

import (
	"math"
	"math/bits"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Stringify returns v encoded as JSON.stringify(v) would encode it. An
// Absent value encodes as nothing, like undefined at the top level; Absent
// members of objects are skipped and Absent array items become null.
func Stringify(v Value) string {
	return string(AppendValue(nil, v))
}

// AppendValue appends the JSON.stringify encoding of v to dst.
func AppendValue(dst []byte, v Value) []byte {
	w := limited{b: dst, max: math.MaxInt}
	w.value(v)
	return w.b
}

// AppendNumber appends f as JSON.stringify writes a number: JavaScript's
// shortest round-trip form, and null for NaN and infinities.
func AppendNumber(dst []byte, f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(dst, "null"...)
	}
	return append(dst, FormatNumber(f)...)
}

// FormatNumber formats f as JavaScript's Number.prototype.toString does
// (radix 10): the shortest digits that round-trip, in plain notation for
// exponents from -7 to 20 and in exponential notation outside.
func FormatNumber(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case f == 0:
		return "0" // also -0
	}
	var sign string
	if f < 0 {
		sign = "-"
		f = -f
	}
	// Shortest digits and exponent: d.ddde±x.
	e := strconv.FormatFloat(f, 'e', -1, 64)
	mant, exp, _ := strings.Cut(e, "e")
	digits := strings.Replace(mant, ".", "", 1)
	x, _ := strconv.Atoi(exp)
	k := len(digits)
	n := x + 1 // the decimal point sits after n digits
	var b strings.Builder
	b.WriteString(sign)
	switch {
	case k <= n && n <= 21:
		b.WriteString(digits)
		b.WriteString(strings.Repeat("0", n-k))
	case 0 < n && n <= 21:
		b.WriteString(digits[:n])
		b.WriteByte('.')
		b.WriteString(digits[n:])
	case -6 < n && n <= 0:
		b.WriteString("0.")
		b.WriteString(strings.Repeat("0", -n))
		b.WriteString(digits)
	default:
		b.WriteByte(digits[0])
		if k > 1 {
			b.WriteByte('.')
			b.WriteString(digits[1:])
		}
		b.WriteByte('e')
		if n-1 >= 0 {
			b.WriteByte('+')
		}
		b.WriteString(strconv.Itoa(n - 1))
	}
	return b.String()
}

const hexDigits = "0123456789abcdef"

// AppendString appends s as a JSON string literal the way JSON.stringify
// quotes it: only ", \ and control characters are escaped (with the short
// forms \b \f \n \r \t), no HTML escaping, U+2028/U+2029 verbatim, and lone
// surrogates (WTF-8 in s) as \udXXX. Invalid UTF-8 bytes are written as
// U+FFFD, as a JavaScript host would have decoded them.
func AppendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		// Eight plain ASCII bytes at a time, then straight to the first
		// byte that needs a look.
		for i+8 <= len(s) {
			if m := special8Mask(load8(s[i:])); m != 0 {
				i += bits.TrailingZeros64(m) >> 3
				break
			}
			i += 8
		}
		if i >= len(s) {
			break
		}
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			dst = append(dst, s[start:i]...)
			switch c {
			case '"':
				dst = append(dst, '\\', '"')
			case '\\':
				dst = append(dst, '\\', '\\')
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		if sur, ok := surrogateAt(s, i); ok {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', hexDigits[sur>>12], hexDigits[sur>>8&0xF], hexDigits[sur>>4&0xF], hexDigits[sur&0xF])
			i += 3
			start = i
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, "\uFFFD"...)
			i++
			start = i
			continue
		}
		i += n
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// surrogateAt reports whether s holds the WTF-8 encoding of a lone
// surrogate (U+D800..U+DFFF) at i, and which.
func surrogateAt(s string, i int) (uint16, bool) {
	if i+2 < len(s) && s[i] == 0xED && s[i+1] >= 0xA0 && s[i+1] <= 0xBF && s[i+2] >= 0x80 && s[i+2] <= 0xBF {
		return 0xD000 | uint16(s[i+1]&0x3F)<<6 | uint16(s[i+2]&0x3F), true
	}
	return 0, false
}

// UTF16Len returns the length of s in UTF-16 code units, which is what
// JavaScript's String.prototype.length reports: characters outside the
// Basic Multilingual Plane count 2, everything else 1 (a lone surrogate in
// WTF-8 and each invalid byte, decoded as U+FFFD, count 1).
func UTF16Len(s string) int {
	n := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			n++
			i++
			continue
		}
		if _, ok := surrogateAt(s, i); ok {
			n++
			i += 3
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
		i += size
	}
	return n
}

// StringifiedLen returns the UTF-16 length of the JSON.stringify encoding of
// a string, without building it.
func StringifiedLen(s string) int {
	n := 2
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\' || c == '\b' || c == '\f' || c == '\n' || c == '\r' || c == '\t':
				n += 2
			case c < 0x20:
				n += 6
			default:
				n++
			}
			i++
			continue
		}
		if _, ok := surrogateAt(s, i); ok {
			n += 6
			i += 3
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
		i += size
	}
	return n
}

// StringifyPrefix returns the JSON.stringify encoding of v cut to at most
// maxBytes bytes (at a character boundary), and whether it was cut. It stops
// encoding once the limit is reached, so a huge value costs only its prefix.
func StringifyPrefix(v Value, maxBytes int) (string, bool) {
	w := limited{max: maxBytes}
	w.value(v)
	out := w.b
	cut := w.full
	if len(out) > maxBytes {
		out, cut = out[:maxBytes], true
	}
	// The encoding is valid UTF-8; only the cut can split a character.
	for cut && len(out) > 0 {
		if r, size := utf8.DecodeLastRune(out); r == utf8.RuneError && size <= 1 {
			out = out[:len(out)-1]
			continue
		}
		break
	}
	return string(out), cut
}

// limited encodes into b until it holds max bytes.
type limited struct {
	b    []byte
	max  int
	full bool
}

func (w *limited) room() bool {
	if len(w.b) >= w.max {
		w.full = true
	}
	return !w.full
}

func (w *limited) value(v Value) {
	if !w.room() {
		return
	}
	switch v.k() {
	case Absent:
	case Null:
		w.b = append(w.b, "null"...)
	case True:
		w.b = append(w.b, "true"...)
	case False:
		w.b = append(w.b, "false"...)
	case Number:
		f, _ := v.Float()
		w.b = AppendNumber(w.b, f)
	case String, stringEscaped:
		if v.k() == stringEscaped {
			// A literal already written as JSON.stringify writes it
			// is copied, not decoded and encoded again.
			raw := v.text()
			if n, ok := canonicalEscaped(raw); ok && w.max-len(w.b) >= n/6 {
				w.b = append(w.b, '"')
				w.b = append(w.b, raw...)
				w.b = append(w.b, '"')
				return
			}
		}
		s, _ := v.Str()
		// Encode a bounded prefix of a long string: each character takes
		// at most 6 bytes escaped, so 6*room input bytes are enough.
		if room := w.max - len(w.b); room < len(s)/6 {
			n := (room + 1) * 6
			w.full = true
			w.b = AppendString(w.b, s[:n])
			return
		}
		w.b = AppendString(w.b, s)
	case Array:
		w.b = append(w.b, '[')
		m := v.items()
		for i := range m {
			if !w.room() {
				return
			}
			if i > 0 {
				w.b = append(w.b, ',')
			}
			if m[i].Value.k() == Absent {
				w.b = append(w.b, "null"...)
				continue
			}
			w.value(m[i].Value)
		}
		w.b = append(w.b, ']')
	case Object:
		w.b = append(w.b, '{')
		first := true
		m := v.items()
		for i := range m {
			if !w.room() {
				return
			}
			if m[i].Value.k() == Absent {
				continue
			}
			if !first {
				w.b = append(w.b, ',')
			}
			first = false
			w.b = AppendString(w.b, m[i].Key)
			w.b = append(w.b, ':')
			w.value(m[i].Value)
		}
		w.b = append(w.b, '}')
	}
}

// IsTrimSpace reports the white space and line terminators JavaScript's
// String.prototype.trim removes: Unicode White_Space without U+0085, plus
// the byte order mark U+FEFF.
func IsTrimSpace(r rune) bool {
	switch {
	case r == '\t', r == '\n', r == '\v', r == '\f', r == '\r', r == ' ', r == 0xA0, r == 0xFEFF,
		r == 0x1680, r >= 0x2000 && r <= 0x200A, r == 0x2028, r == 0x2029, r == 0x202F, r == 0x205F, r == 0x3000:
		return true
	}
	return false
}

// canonicalEscaped reports whether the body of a string literal with
// escapes (as the parser checked it) is exactly what AppendString writes
// for its text, and returns the text's length. That holds when every
// escape is one AppendString writes (\" \\ \b \f \n \r \t, and \u00xx in
// lower-case hex for the other control characters) and every non-ASCII
// byte is valid UTF-8; it fails for \/, other \u escapes and invalid
// bytes. Tool-call arguments are such literals (their newlines and quotes
// escaped), and stringifying them again is part of every read.
func canonicalEscaped(raw string) (int, bool) {
	n := len(raw)
	for i := 0; ; {
		i = skipPlainString(raw, i)
		if i >= len(raw) {
			return n, true
		}
		if raw[i] != '\\' {
			r, size := utf8.DecodeRuneInString(raw[i:])
			if r == utf8.RuneError && size == 1 {
				return 0, false
			}
			i += size
			continue
		}
		switch raw[i+1] {
		case '"', '\\', 'b', 'f', 'n', 'r', 't':
			i += 2
			n--
		case 'u':
			if !controlEscape(raw[i+2 : i+6]) {
				return 0, false
			}
			i += 6
			n -= 5
		default:
			return 0, false
		}
	}
}

// controlEscape reports whether the four hex digits h are how
// AppendString writes a control character: 00xx in lower case, for one
// without a short escape.
func controlEscape(h string) bool {
	if h[0] != '0' || h[1] != '0' || (h[2] != '0' && h[2] != '1') {
		return false
	}
	lo := h[3]
	var c byte
	switch {
	case lo >= '0' && lo <= '9':
		c = lo - '0'
	case lo >= 'a' && lo <= 'f':
		c = lo - 'a' + 10
	default:
		return false
	}
	c |= (h[2] - '0') << 4
	switch c {
	case '\b', '\f', '\n', '\r', '\t':
		return false
	}
	return true
}
