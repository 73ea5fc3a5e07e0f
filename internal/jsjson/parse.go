package jsjson

import (
	"encoding/binary"
	"math/bits"
	"sort"
	"strconv"
	"unicode/utf8"
	"unsafe"
)

// MaxDepth bounds nesting. JavaScript engines give up far earlier on some
// inputs (stack overflow); a deeper value is reported as a syntax error
// rather than risking unbounded recursion on hostile input.
const MaxDepth = 4096

// SyntaxError describes why a value could not be parsed.
type SyntaxError struct {
	// Offset is the byte offset of the problem in the input.
	Offset int
	// EOF is true when the input ended while the value was still
	// incomplete but otherwise valid so far: a writer may still be
	// appending to it.
	EOF bool
	Msg string
}

func (e *SyntaxError) Error() string {
	return "jsjson: " + e.Msg + " at offset " + strconv.Itoa(e.Offset)
}

// Parse parses data as exactly one JSON value surrounded by optional
// whitespace, like JSON.parse.
func Parse(data []byte) (Value, error) {
	v, end, err := ParseValue(data, 0)
	if err != nil {
		return Value{}, err
	}
	end = skipSpace(data, end)
	if end != len(data) {
		return Value{}, &SyntaxError{Offset: end, Msg: "unexpected data after value"}
	}
	return v, nil
}

// ParseValue skips whitespace at pos and parses one JSON value. It returns
// the value and the offset just after it. Strings without escapes alias
// data.
func ParseValue(data []byte, pos int) (Value, int, error) {
	var ps Parser
	return ps.ParseValue(data, pos)
}

// Parser parses values one after another, reusing its working memory: the
// members of arrays and objects are collected on one stack and then copied
// into exact-size slices carved from shared chunks, so that a file of many
// small values costs a few large allocations instead of several small ones
// per object. The zero Parser is ready to use. Values it returns stay valid
// until Reset.
type Parser struct {
	stack []Member
	arena []Member
	chunk int // the size of the next chunk: small first, for one small value
	// used are the chunks carved before arena; free the full-size ones
	// Recycle kept for the values to come.
	used, free [][]Member
	// high is how far the stack grew during the current value: the
	// members popped from it are cleared once the value is complete, not
	// at every pop, so that nested values clear their shared slots once.
	high int
}

// ParseValue is the package's ParseValue using p's memory.
func (ps *Parser) ParseValue(data []byte, pos int) (Value, int, error) {
	p := parser{data: data, ps: ps}
	pos = skipSpace(data, pos)
	v, end := p.value(pos, 0)
	// The stack holds no value once parsing stopped: drop what it still
	// points at.
	clear(ps.stack[:max(ps.high, len(ps.stack))])
	ps.stack = ps.stack[:0]
	ps.high = 0
	if p.err != nil {
		return Value{}, end, p.err
	}
	return v, end, nil
}

// Reset lets p reuse the memory of every value it has returned: the caller
// promises that none of them (nor anything taken from them) is used again.
func (ps *Parser) Reset() {
	clear(ps.arena) // what was handed out; the rest is still zero
	ps.arena = ps.arena[:0]
	clear(ps.used)
	ps.used = ps.used[:0]
}

// maxFreeChunks bounds the chunks Recycle keeps: 256 KB of members, what
// a session of some 100 KB parses into; a larger one's rest is collected.
const maxFreeChunks = 16

// Recycle is Reset that also keeps the full-size chunks carved since
// (up to maxFreeChunks) for the values to come: a program that parses
// one file after another (a rebuild's worker) allocated its files' size
// again in members for each (1.8 of a 100k rebuild's 14 GB).
func (ps *Parser) Recycle() {
	for _, c := range ps.used {
		if cap(c) == arenaChunk && len(ps.free) < maxFreeChunks {
			clear(c)
			ps.free = append(ps.free, c[:0])
		}
	}
	ps.Reset()
	if len(ps.free) > 0 {
		ps.chunk = arenaChunk
	}
}

// arenaChunk is the number of members per shared chunk.
const arenaChunk = 512

// take copies the members above base on the stack into an exact-size slice
// and pops them.
func (ps *Parser) take(base int) []Member {
	n := len(ps.stack) - base
	var out []Member
	if n > arenaChunk/4 {
		out = make([]Member, n)
	} else {
		if cap(ps.arena)-len(ps.arena) < n {
			if cap(ps.arena) > 0 {
				ps.used = append(ps.used, ps.arena)
			}
			if k := len(ps.free); k > 0 {
				ps.arena, ps.free = ps.free[k-1], ps.free[:k-1]
			} else {
				ps.chunk = min(max(2*ps.chunk, 16, n), arenaChunk)
				ps.arena = make([]Member, 0, ps.chunk)
			}
		}
		l := len(ps.arena)
		ps.arena = ps.arena[:l+n]
		out = ps.arena[l : l+n : l+n]
	}
	copy(out, ps.stack[base:])
	ps.high = max(ps.high, len(ps.stack))
	ps.stack = ps.stack[:base]
	return out
}

// SkipSpace returns the offset of the first byte at or after pos that is not
// JSON whitespace (space, tab, CR, LF).
func SkipSpace(data []byte, pos int) int { return skipSpace(data, pos) }

func skipSpace(data []byte, pos int) int {
	for pos < len(data) {
		switch data[pos] {
		case ' ', '\t', '\n', '\r':
			pos++
		default:
			return pos
		}
	}
	return pos
}

type parser struct {
	data []byte
	err  *SyntaxError
	ps   *Parser
}

func (p *parser) fail(pos int, msg string) {
	if p.err == nil {
		p.err = &SyntaxError{Offset: pos, Msg: msg}
	}
}

func (p *parser) eof(pos int) {
	if p.err == nil {
		p.err = &SyntaxError{Offset: pos, EOF: true, Msg: "unexpected end of input"}
	}
}

func (p *parser) value(pos, depth int) (Value, int) {
	d := p.data
	if pos >= len(d) {
		p.eof(pos)
		return Value{}, pos
	}
	switch c := d[pos]; {
	case c == '{':
		return p.object(pos, depth)
	case c == '[':
		return p.array(pos, depth)
	case c == '"':
		return p.str(pos)
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number(pos)
	case c == 't':
		return p.literal(pos, "true", True)
	case c == 'f':
		return p.literal(pos, "false", False)
	case c == 'n':
		return p.literal(pos, "null", Null)
	}
	p.fail(pos, "invalid character")
	return Value{}, pos
}

func (p *parser) literal(pos int, word string, k Kind) (Value, int) {
	d := p.data
	for i := 0; i < len(word); i++ {
		if pos+i >= len(d) {
			p.eof(pos + i)
			return Value{}, pos + i
		}
		if d[pos+i] != word[i] {
			p.fail(pos+i, "invalid literal")
			return Value{}, pos + i
		}
	}
	return Value{n: uint64(k) << kindShift}, pos + len(word)
}

func (p *parser) number(start int) (Value, int) {
	d := p.data
	pos := start
	if d[pos] == '-' {
		pos++
	}
	digits := func() int {
		n := 0
		for pos < len(d) && d[pos] >= '0' && d[pos] <= '9' {
			pos++
			n++
		}
		return n
	}
	if pos >= len(d) {
		p.eof(pos)
		return Value{}, pos
	}
	if d[pos] == '0' {
		pos++
	} else if digits() == 0 {
		p.fail(pos, "invalid number")
		return Value{}, pos
	}
	if pos < len(d) && d[pos] == '.' {
		pos++
		if digits() == 0 {
			if pos >= len(d) {
				p.eof(pos)
			} else {
				p.fail(pos, "invalid number")
			}
			return Value{}, pos
		}
	}
	if pos < len(d) && (d[pos] == 'e' || d[pos] == 'E') {
		pos++
		if pos < len(d) && (d[pos] == '+' || d[pos] == '-') {
			pos++
		}
		if digits() == 0 {
			if pos >= len(d) {
				p.eof(pos)
			} else {
				p.fail(pos, "invalid number")
			}
			return Value{}, pos
		}
	}
	return strValue(Number, bytesString(d[start:pos])), pos
}

// plain marks the bytes a string scan can pass over without a look: not a
// quote, backslash or control character, and ASCII.
var plain = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// str parses a string starting at the opening quote. It only validates:
// escapes are decoded when the value is read (see Value.Str), so strings a
// caller never looks at cost one scan.
func (p *parser) str(start int) (Value, int) {
	d := p.data
	pos := start + 1
	esc := false
	for {
		pos = skipPlain(d, pos)
		if pos >= len(d) {
			p.eof(pos)
			return Value{}, pos
		}
		switch c := d[pos]; {
		case c == '"':
			k := String
			if esc {
				k = stringEscaped
			}
			return strValue(k, bytesString(d[start+1:pos])), pos + 1
		case c == '\\':
			esc = true
			if pos+1 >= len(d) {
				p.eof(pos + 1)
				return Value{}, pos + 1
			}
			switch d[pos+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				pos += 2
			case 'u':
				if _, ok := p.hex4(pos + 2); !ok {
					return Value{}, pos + 2
				}
				pos += 6
			default:
				p.fail(pos+1, "invalid escape")
				return Value{}, pos + 1
			}
		case c < 0x20:
			p.fail(pos, "control character in string")
			return Value{}, pos
		default:
			// Non-ASCII: replacement of invalid UTF-8 happens on read too.
			// A valid character is passed whole; only an invalid byte
			// makes the string one that is decoded on read.
			if r, n := utf8.DecodeRune(d[pos:]); r == utf8.RuneError && n == 1 {
				esc = true
				pos++
			} else {
				pos += n
			}
		}
	}
}

// skipPlain returns the first position at or after pos whose byte is not
// plain, or len(d). It jumps straight to that byte with special8Mask's
// lowest bit instead of finishing each eight-byte block byte by byte: in
// real sessions an escape comes every twenty bytes or so, so the byte loop
// after the block loop used to cost as much as the block loop itself.
func skipPlain(d []byte, pos int) int {
	for pos+8 <= len(d) {
		if m := special8Mask(binary.LittleEndian.Uint64(d[pos:])); m != 0 {
			return pos + bits.TrailingZeros64(m)>>3
		}
		pos += 8
	}
	for pos < len(d) && plain[d[pos]] {
		pos++
	}
	return pos
}

// special8 reports whether any of the eight bytes of x (little endian) is
// a quote, a backslash, a control character or non-ASCII.
func special8(x uint64) bool { return special8Mask(x) != 0 }

// special8Mask sets the high bit of each byte of x (little endian) that is
// a quote, a backslash, a control character or non-ASCII. It may set a
// false positive above a true one (a borrow carries upwards), never below
// one and never a false negative: its lowest set bit marks exactly the
// first byte that is not plain.
//
// A byte below 0x80 gets its high bit from v-1 only when v (the byte xor a
// quote or backslash) is 0, and from x-0x20 only when it is a control
// character; a byte of 0x80 or more is flagged by x itself, so the usual
// "&^ v" of the zero-byte test is not needed. A borrow starts only at a
// flagged byte.
func special8Mask(x uint64) uint64 {
	const lo, hi = 0x0101010101010101, 0x8080808080808080
	q := (x ^ (lo * '"')) - lo
	b := (x ^ (lo * '\\')) - lo
	c := x - lo*0x20
	return (q | b | c | x) & hi
}

// load8 reads eight bytes of s, little endian; len(s) >= 8.
func load8(s string) uint64 {
	_ = s[7]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// skipPlainString is skipPlain on a literal's body, which holds no quote
// or control character: it stops at a backslash, non-ASCII or the end.
func skipPlainString(s string, pos int) int {
	for pos+8 <= len(s) {
		if m := special8Mask(load8(s[pos:])); m != 0 {
			return pos + bits.TrailingZeros64(m)>>3
		}
		pos += 8
	}
	for pos < len(s) && s[pos] < utf8.RuneSelf && s[pos] != '\\' {
		pos++
	}
	return pos
}

// unescape decodes the body of a string literal that has escapes or invalid
// UTF-8; the parser has already checked its syntax.
func unescape(raw string) string {
	buf := appendUnescaped(make([]byte, 0, len(raw)), raw)
	// buf is not used again: the string can own it.
	return bytesString(buf)
}

// appendUnescaped appends the decoded body of a string literal to buf.
func appendUnescaped(buf []byte, raw string) []byte {
	for i := 0; i < len(raw); {
		c := raw[i]
		switch {
		case c == '\\':
			buf, i = appendEscape(buf, raw, i)
		case c < utf8.RuneSelf:
			j := skipPlainString(raw, i+1)
			buf = append(buf, raw[i:j]...)
			i = j
		default:
			buf, i = appendNonASCII(buf, raw, i)
		}
	}
	return buf
}

// appendNonASCII appends the character at raw[i], a byte of 0x80 or more,
// and returns the index after it. The host decodes the file as UTF-8 with
// replacement before parsing: an invalid sequence is one U+FFFD per
// maximal invalid subpart.
func appendNonASCII(buf []byte, raw string, i int) ([]byte, int) {
	r, n := utf8.DecodeRuneInString(raw[i:])
	if r == utf8.RuneError && n == 1 {
		return append(buf, "\uFFFD"...), i + invalidLen([]byte(raw[i:min(i+4, len(raw))]))
	}
	return append(buf, raw[i:i+n]...), i + n
}

// appendEscape appends the decoding of the escape at raw[i] (a validated
// string literal's body) to buf and returns the index after it; a high
// surrogate followed by an escaped low one is one character.
func appendEscape(buf []byte, raw string, i int) ([]byte, int) {
	e := raw[i+1]
	i += 2
	switch e {
	case 'b':
		return append(buf, '\b'), i
	case 'f':
		return append(buf, '\f'), i
	case 'n':
		return append(buf, '\n'), i
	case 'r':
		return append(buf, '\r'), i
	case 't':
		return append(buf, '\t'), i
	case 'u':
		u, _ := parseHex4([]byte(raw[i : i+4]))
		i += 4
		if u >= 0xD800 && u < 0xDC00 && i+6 <= len(raw) && raw[i] == '\\' && raw[i+1] == 'u' {
			if lo, ok := parseHex4([]byte(raw[i+2 : i+6])); ok && lo >= 0xDC00 && lo < 0xE000 {
				return utf8.AppendRune(buf, 0x10000+(rune(u)-0xD800)<<10+(rune(lo)-0xDC00)), i + 6
			}
		}
		return appendWTF8(buf, rune(u)), i
	default: // " \ /
		return append(buf, e), i
	}
}

func (p *parser) hex4(pos int) (uint16, bool) {
	d := p.data
	for i := 0; i < 4; i++ {
		if pos+i >= len(d) {
			p.eof(pos + i)
			return 0, false
		}
		if !isHex(d[pos+i]) {
			p.fail(pos+i, "invalid unicode escape")
			return 0, false
		}
	}
	u, _ := parseHex4(d[pos : pos+4])
	return u, true
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

func parseHex4(b []byte) (uint16, bool) {
	var u uint16
	for _, c := range b {
		var v byte
		switch {
		case c >= '0' && c <= '9':
			v = c - '0'
		case c >= 'a' && c <= 'f':
			v = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			v = c - 'A' + 10
		default:
			return 0, false
		}
		u = u<<4 | uint16(v)
	}
	return u, true
}

// appendWTF8 appends r, writing a lone surrogate as its 3-byte generalized
// UTF-8 form so that it can be written back as \udXXX.
func appendWTF8(buf []byte, r rune) []byte {
	if r >= 0xD800 && r < 0xE000 {
		return append(buf, 0xED, byte(0x80|(r>>6)&0x3F), byte(0x80|r&0x3F))
	}
	return utf8.AppendRune(buf, r)
}

func (p *parser) array(start, depth int) (Value, int) {
	if depth >= MaxDepth {
		p.fail(start, "nesting too deep")
		return Value{}, start
	}
	d := p.data
	pos := skipSpace(d, start+1)
	if pos < len(d) && d[pos] == ']' {
		return listValue(Array, []Member{}), pos + 1
	}
	ps := p.ps
	base := len(ps.stack)
	for {
		v, end := p.value(pos, depth+1)
		if p.err != nil {
			return Value{}, end
		}
		ps.stack = append(ps.stack, Member{Value: v})
		pos = skipSpace(d, end)
		if pos >= len(d) {
			p.eof(pos)
			return Value{}, pos
		}
		switch d[pos] {
		case ',':
			pos = skipSpace(d, pos+1)
		case ']':
			return listValue(Array, ps.take(base)), pos + 1
		default:
			p.fail(pos, "expected , or ] in array")
			return Value{}, pos
		}
	}
}

func (p *parser) object(start, depth int) (Value, int) {
	if depth >= MaxDepth {
		p.fail(start, "nesting too deep")
		return Value{}, start
	}
	d := p.data
	pos := skipSpace(d, start+1)
	if pos < len(d) && d[pos] == '}' {
		return listValue(Object, []Member{}), pos + 1
	}
	var (
		index    map[string]int // only for large objects
		hasIndex bool
	)
	ps := p.ps
	base := len(ps.stack)
	for {
		key, end := p.memberKey(pos)
		if p.err != nil {
			return Value{}, end
		}
		v, end := p.value(skipSpace(d, end), depth+1)
		if p.err != nil {
			return Value{}, end
		}
		// A duplicate key keeps its first position and takes the last
		// value, as JavaScript property assignment does.
		members := ps.stack[base:]
		dup := -1
		if index != nil {
			if i, ok := index[key]; ok {
				dup = i
			}
		} else {
			for i := range members {
				if members[i].Key == key {
					dup = i
					break
				}
			}
		}
		if dup >= 0 {
			members[dup].Value = v
		} else {
			ps.stack = append(ps.stack, Member{Key: key, Value: v})
			members = ps.stack[base:]
			if index != nil {
				index[key] = len(members) - 1
			} else if len(members) > 16 {
				index = make(map[string]int, 32)
				for i := range members {
					index[members[i].Key] = i
				}
			}
			if !hasIndex && isArrayIndex(key) {
				hasIndex = true
			}
		}
		pos = skipSpace(d, end)
		if pos >= len(d) {
			p.eof(pos)
			return Value{}, pos
		}
		switch d[pos] {
		case ',':
			pos = skipSpace(d, pos+1)
		case '}':
			members := ps.take(base)
			if hasIndex {
				orderIndexKeys(members)
			}
			return listValue(Object, members), pos + 1
		default:
			p.fail(pos, "expected , or } in object")
			return Value{}, pos
		}
	}
}

// memberKey reads the key of an object member at pos and the colon after
// it, and returns the key and the position after the colon.
func (p *parser) memberKey(pos int) (string, int) {
	d := p.data
	if pos >= len(d) {
		p.eof(pos)
		return "", pos
	}
	if d[pos] != '"' {
		p.fail(pos, "expected string key in object")
		return "", pos
	}
	kv, end := p.str(pos)
	if p.err != nil {
		return "", end
	}
	var key string
	if kv.k() == String {
		key = internKey(kv.text())
	} else {
		key = unescape(kv.text())
	}
	pos = skipSpace(d, end)
	if pos >= len(d) {
		p.eof(pos)
		return "", pos
	}
	if d[pos] != ':' {
		p.fail(pos, "expected : after object key")
		return "", pos
	}
	return key, pos + 1
}

// isArrayIndex reports whether JavaScript treats key as an array index
// (a canonical decimal integer below 2^32-1), which it orders before every
// other key of an object.
func isArrayIndex(key string) bool {
	if key == "" || len(key) > 10 || (len(key) > 1 && key[0] == '0') {
		return false
	}
	var n uint64
	for i := 0; i < len(key); i++ {
		c := key[i]
		if c < '0' || c > '9' {
			return false
		}
		n = n*10 + uint64(c-'0')
	}
	return n < 1<<32-1
}

func orderIndexKeys(m []Member) {
	sort.SliceStable(m, func(i, j int) bool {
		ai, bi := isArrayIndex(m[i].Key), isArrayIndex(m[j].Key)
		if ai != bi {
			return ai
		}
		if !ai {
			return false
		}
		a, _ := strconv.ParseUint(m[i].Key, 10, 64)
		b, _ := strconv.ParseUint(m[j].Key, 10, 64)
		return a < b
	})
}

// bytesString returns b as a string without copying. The parser never
// writes to its input, and its callers promise not to either.
func bytesString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// invalidLen returns how many bytes at the start of b form one maximal
// invalid subpart, the unit the WHATWG UTF-8 decoder (TextDecoder, and so
// the host reading the file) replaces with one U+FFFD: a lead byte and the
// continuation bytes that were still valid for it. b must not start with a
// valid character.
func invalidLen(b []byte) int {
	lo, hi := byte(0x80), byte(0xBF)
	need := 0
	switch c := b[0]; {
	case c >= 0xC2 && c <= 0xDF:
		need = 1
	case c == 0xE0:
		need, lo = 2, 0xA0
	case c >= 0xE1 && c <= 0xEC, c == 0xEE, c == 0xEF:
		need = 2
	case c == 0xED:
		need, hi = 2, 0x9F
	case c == 0xF0:
		need, lo = 3, 0x90
	case c >= 0xF1 && c <= 0xF3:
		need = 3
	case c == 0xF4:
		need, hi = 3, 0x8F
	default:
		return 1
	}
	n := 1
	for ; n <= need && n < len(b); n++ {
		if b[n] < lo || b[n] > hi {
			break
		}
		lo, hi = 0x80, 0xBF
	}
	return n
}

// internKey returns the package's own copy of the keys OMP session records
// use most (measured on real sessions), and key itself otherwise. An
// interned key shares its bytes with the same literal in every package (the
// linker keeps one copy of each string constant), so that Value.Get's
// comparison finds equal pointers instead of reading key bytes back from
// the parsed file, and a key different in content but not in length is
// told apart without a cache miss into that file.
func internKey(key string) string {
	if len(key) >= internLongLen {
		return internLongKey(key)
	}
	switch key {
	case "type":
		return "type"
	case "content":
		return "content"
	case "message":
		return "message"
	case "role":
		return "role"
	case "output":
		return "output"
	case "input":
		return "input"
	case "text":
		return "text"
	case "id":
		return "id"
	case "api":
		return "api"
	case "model":
		return "model"
	case "usage":
		return "usage"
	case "cost":
		return "cost"
	case "total":
		return "total"
	case "name":
		return "name"
	case "isError":
		return "isError"
	case "path":
		return "path"
	case "command":
		return "command"
	case "details":
		return "details"
	case "oldText":
		return "oldText"
	case "newText":
		return "newText"
	case "diff":
		return "diff"
	case "limit":
		return "limit"
	case "offset":
		return "offset"
	case "timeout":
		return "timeout"
	case "modelId":
		return "modelId"
	case "cwd":
		return "cwd"
	case "summary":
		return "summary"
	case "fromId":
		return "fromId"
	case "version":
		return "version"
	case "title":
		return "title"
	}
	return key
}

// internLongLen is the length from which internKey leaves a key to
// internLongKey: one switch of every key was over 100 lines, and a map or
// a table to search was 2-3 times slower than a switch, which the compiler
// makes a jump on length and a few compares.
const internLongLen = 8

// internLongKey is internKey for keys of internLongLen bytes or more.
func internLongKey(key string) string {
	switch key {
	case "timestamp":
		return "timestamp"
	case "cacheRead":
		return "cacheRead"
	case "cacheWrite":
		return "cacheWrite"
	case "provider":
		return "provider"
	case "stopReason":
		return "stopReason"
	case "arguments":
		return "arguments"
	case "toolCallId":
		return "toolCallId"
	case "toolName":
		return "toolName"
	case "totalTokens":
		return "totalTokens"
	case "parentId":
		return "parentId"
	case "thinking":
		return "thinking"
	case "thinkingSignature":
		return "thinkingSignature"
	case "thinkingLevel":
		return "thinkingLevel"
	case "errorMessage":
		return "errorMessage"
	case "partialJson":
		return "partialJson"
	case "truncated":
		return "truncated"
	case "exitCode":
		return "exitCode"
	case "cancelled":
		return "cancelled"
	case "customType":
		return "customType"
	}
	return key
}
