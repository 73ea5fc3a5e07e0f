package regexiso

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/memidx/memidx/internal/coverage"
)

// translate rewrites a pattern of the accepted dialect into Go syntax: it
// rejects the JavaScript constructs RE2 cannot express, naming them, and
// translates \u escapes and the classes [] and [^]. It is a scanner, not a
// parser: it tracks escapes, \Q…\E quotes and character classes, so that
// `\(?=` and `[(?=]` are not mistaken for lookahead, and leaves every other
// error to Go's parser.
func translate(p string) (string, *coverage.Error) {
	t := translator{p: p}
	t.out.Grow(len(p) + 8)
	// canRepeat: the last token can take a quantifier. quantified: the last
	// token was a quantifier, so a following + would make it possessive.
	canRepeat, quantified := false, false
	for t.i < len(p) {
		c := p[t.i]
		wasQuantified := quantified
		quantified = false
		switch c {
		case '\\':
			if err := t.escape(false); err != nil {
				return "", err
			}
			canRepeat = true
		case '[':
			if err := t.class(); err != nil {
				return "", err
			}
			canRepeat = true
		case '(':
			if err := t.group(); err != nil {
				return "", err
			}
			canRepeat = false
		case '|':
			t.copy(1)
			canRepeat = false
		case '*', '+', '?':
			switch {
			case wasQuantified && c == '+':
				return "", unsupported(t.quantAt, "possessive quantifier "+p[t.quantAt:t.i+1],
					"RE2 has no possessive quantifiers; drop the +")
			case wasQuantified && c == '?': // lazy
				t.copy(1)
			case canRepeat:
				t.quantAt = t.i
				t.copy(1)
				quantified = true
			default:
				t.copy(1) // Go reports the missing argument
			}
			canRepeat = false
		case '{':
			n := repeatLen(p[t.i:])
			if n == 0 { // a literal {, as Go reads it
				t.copy(1)
				canRepeat = true
				break
			}
			if canRepeat {
				t.quantAt = t.i
				quantified = true
			}
			t.copy(n)
			canRepeat = false
		default:
			t.copy(1)
			canRepeat = true
		}
	}
	return t.out.String(), nil
}

type translator struct {
	p       string
	i       int // next byte of p to read
	quantAt int // where the last quantifier starts, for messages
	out     strings.Builder
}

// copy copies the next n bytes of the pattern unchanged.
func (t *translator) copy(n int) {
	t.out.WriteString(t.p[t.i : t.i+n])
	t.i += n
}

// group handles a ( : it rejects lookaround, atomic groups and (?P=name).
func (t *translator) group() *coverage.Error {
	rest := t.p[t.i:]
	for _, g := range unsupportedGroups {
		if strings.HasPrefix(rest, g.prefix) {
			return unsupported(t.i, g.name, g.hint)
		}
	}
	if strings.HasPrefix(rest, "(?") {
		t.copy(2) // the ? is not a quantifier
	} else {
		t.copy(1)
	}
	return nil
}

var unsupportedGroups = []struct{ prefix, name, hint string }{
	{"(?=", "lookahead (?=…)", "RE2 has no lookaround"},
	{"(?!", "negative lookahead (?!…)", "RE2 has no lookaround"},
	{"(?<=", "lookbehind (?<=…)", "RE2 has no lookaround"},
	{"(?<!", "negative lookbehind (?<!…)", "RE2 has no lookaround"},
	{"(?>", "atomic group (?>…)", "RE2 has no atomic groups; a plain group (?:…) matches the same text"},
	{"(?P=", "named backreference (?P=name)", "RE2 has no backreferences"},
}

// class copies a character class, translating the escapes inside it.
func (t *translator) class() *coverage.Error {
	p := t.p
	// JavaScript's [] matches nothing and [^] matches any character; Go
	// would read that ] as a literal and keep looking for the end.
	switch {
	case strings.HasPrefix(p[t.i:], "[]"):
		t.out.WriteString(`[^\x00-\x{10FFFF}]`)
		t.i += 2
		return nil
	case strings.HasPrefix(p[t.i:], "[^]"):
		t.out.WriteString(`[\x00-\x{10FFFF}]`)
		t.i += 3
		return nil
	}
	t.copy(1)
	if t.i < len(p) && p[t.i] == '^' {
		t.copy(1)
	}
	for t.i < len(p) {
		switch p[t.i] {
		case ']':
			t.copy(1)
			return nil
		case '\\':
			if err := t.escape(true); err != nil {
				return err
			}
		case '[':
			// A POSIX class [:name:] nests, as Go's parser reads it.
			if end := strings.Index(p[t.i:], ":]"); strings.HasPrefix(p[t.i:], "[:") && end >= 2 {
				t.copy(end + 2)
			} else {
				t.copy(1)
			}
		default:
			t.copy(1)
		}
	}
	return nil // Go reports the missing ]
}

// escape handles the escape sequence at t.i.
func (t *translator) escape(inClass bool) *coverage.Error {
	p, i := t.p, t.i
	if i+1 >= len(p) {
		t.copy(1) // Go reports the trailing backslash
		return nil
	}
	switch c := p[i+1]; {
	case c >= '1' && c <= '9' && !inClass:
		j := i + 2
		for j < len(p) && isDigit(p[j]) {
			j++
		}
		return unsupported(i, "backreference "+p[i:j], "RE2 has no backreferences")
	case c == '0' && i+2 < len(p) && isDigit(p[i+2]):
		return unsupported(i, "octal escape "+p[i:i+3], `write \x{…} or \u{…}`)
	case c == 'k' && !inClass && i+2 < len(p) && p[i+2] == '<':
		name := p[i:]
		if end := strings.IndexByte(name, '>'); end >= 0 {
			name = name[:end+1]
		}
		return unsupported(i, "named backreference "+name, "RE2 has no backreferences")
	case c == 'u':
		return t.unicodeEscape()
	case c == 'p' || c == 'P':
		return t.property()
	case c == 'x' && i+2 < len(p) && p[i+2] == '{':
		t.copyThrough('}')
	case c == 'Q' && !inClass:
		// Go quotes everything up to \E (or the end) literally.
		if end := strings.Index(p[i+2:], `\E`); end >= 0 {
			t.copy(end + 4)
		} else {
			t.copy(len(p) - i)
		}
	default:
		_, n := utf8.DecodeRuneInString(p[i+1:])
		t.copy(1 + n)
	}
	return nil
}

// copyThrough copies up to and including the next b, or to the end.
func (t *translator) copyThrough(b byte) {
	if end := strings.IndexByte(t.p[t.i:], b); end >= 0 {
		t.copy(end + 1)
	} else {
		t.copy(len(t.p) - t.i)
	}
}

// property checks \p{…} and \P{…}: Go has no name=value spellings.
func (t *translator) property() *coverage.Error {
	p, i := t.p, t.i
	if i+2 >= len(p) || p[i+2] != '{' {
		n := 2
		if i+2 < len(p) {
			_, size := utf8.DecodeRuneInString(p[i+2:])
			n += size // Go's one-letter form, \pL
		}
		t.copy(n)
		return nil
	}
	end := strings.IndexByte(p[i:], '}')
	if end < 0 {
		t.copy(len(p) - i) // Go reports it
		return nil
	}
	whole, body := p[i:i+end+1], p[i+3:i+end]
	name, value, ok := strings.Cut(body, "=")
	if !ok {
		t.copy(end + 1)
		return nil
	}
	short := p[i:i+2] + "{" + value + "}"
	switch name {
	case "Script", "sc":
		return unsupported(i, "Unicode script property "+whole, "write "+short+", RE2 names scripts directly")
	case "Script_Extensions", "scx":
		return unsupported(i, "Unicode script extensions property "+whole,
			"RE2 has no script extensions; "+short+" matches the Script property")
	case "General_Category", "gc":
		return unsupported(i, "Unicode general category property "+whole, "write "+short)
	default:
		return unsupported(i, "Unicode property "+whole,
			"Go knows only general categories and scripts, such as \\p{Lu} or \\p{Greek}")
	}
}

// unicodeEscape translates \uHHHH and \u{H…} to Go's \x{H…}, joining a
// surrogate pair written as two \uHHHH escapes into one code point.
func (t *translator) unicodeEscape() *coverage.Error {
	r, n, ok := parseU(t.p[t.i:])
	if !ok {
		bad := t.p[t.i:]
		if len(bad) > 8 {
			bad = bad[:8] + "…"
		}
		return unsupported(t.i, `\u escape "`+bad+`"`, `write \uHHHH with four hex digits or \u{H…} up to 10FFFF`)
	}
	if n == 6 && r >= 0xD800 && r <= 0xDBFF { // a lead surrogate in \uHHHH form
		if lo, m, ok := parseU(t.p[t.i+n:]); ok && m == 6 && lo >= 0xDC00 && lo <= 0xDFFF {
			r = 0x10000 + (r-0xD800)<<10 + (lo - 0xDC00)
			n += m
		}
	}
	fmt.Fprintf(&t.out, `\x{%X}`, r)
	t.i += n
	return nil
}

// parseU reads \uHHHH or \u{H…} at the start of s, returning the code point
// and the bytes used.
func parseU(s string) (r rune, n int, ok bool) {
	if !strings.HasPrefix(s, `\u`) {
		return 0, 0, false
	}
	if strings.HasPrefix(s, `\u{`) {
		end := strings.IndexByte(s, '}')
		if end < 4 {
			return 0, 0, false
		}
		hex := s[3:end]
		v, err := strconv.ParseUint(hex, 16, 32)
		if err != nil || v > utf8.MaxRune {
			return 0, 0, false
		}
		return rune(v), end + 1, true
	}
	if len(s) < 6 {
		return 0, 0, false
	}
	hex := s[2:6]
	v, err := strconv.ParseUint(hex, 16, 32)
	if err != nil {
		return 0, 0, false
	}
	return rune(v), 6, true
}

// repeatLen returns the length of the counted repetition {n}, {n,} or {n,m}
// at the start of s, or 0 when s does not start with one (Go then reads the
// { as a literal).
func repeatLen(s string) int {
	i := 1
	digits := func() int {
		j := i
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		return i - j
	}
	if digits() == 0 {
		return 0
	}
	if i < len(s) && s[i] == ',' {
		i++
		digits()
	}
	if i < len(s) && s[i] == '}' {
		return i + 1
	}
	return 0
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func unsupported(at int, construct, hint string) *coverage.Error {
	return &coverage.Error{
		Code:    coverage.InvalidRegex,
		Message: fmt.Sprintf("%s at byte %d is not supported: %s.", construct, at, hint),
	}
}
