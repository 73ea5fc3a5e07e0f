package jsjson

import (
	"math"
	"strconv"
	"unsafe"
)

// Kind is the JSON type of a Value.
type Kind uint8

// The kinds of Value. The zero Value has kind Absent: a key that is not
// there, which JavaScript reads as undefined.
const (
	Absent Kind = iota
	Null
	False
	True
	Number
	String
	Array
	Object

	// stringEscaped is a String whose s still holds the literal's escapes
	// (or invalid UTF-8); Kind reports it as String.
	stringEscaped
)

var kindNames = [...]string{"absent", "null", "false", "true", "number", "string", "array", "object"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// Value is one parsed JSON value. It is small and copied by value; arrays and
// objects share their backing slices.
//
// It is two words: a pointer and a length with the kind in its top byte.
// A file's values are mostly object members, so the size of a Member
// (a key and a Value: 32 bytes, where a kind, a string and a slice took
// 64) is what parsing allocates and copies, what the collector scans and
// what Get walks through.
type Value struct {
	// p points at the bytes of the text of a String (WTF-8: lone
	// surrogates are kept as their 3-byte encodings) or the literal of a
	// Number, or at the first of the items (with empty keys) of an Array
	// or members of an Object, in JavaScript property order. It is nil
	// when the length is 0, except for an empty array or object that
	// was made from a non-nil slice.
	p unsafe.Pointer
	// n is the length in bytes or members, with the Kind in its top byte.
	n uint64
}

const (
	kindShift = 56
	lenMask   = 1<<kindShift - 1
)

// k returns v's kind, stringEscaped included.
func (v Value) k() Kind { return Kind(v.n >> kindShift) }

// length is the length of v's text or of its items.
func (v Value) length() int { return int(v.n & lenMask) }

// text returns the text of a String or Number as stored.
func (v Value) text() string { return unsafe.String((*byte)(v.p), v.length()) }

// items returns the members of an Array or Object.
func (v Value) items() []Member { return unsafe.Slice((*Member)(v.p), v.length()) }

// strValue makes a String, stringEscaped or Number value of s.
func strValue(k Kind, s string) Value {
	return Value{p: unsafe.Pointer(unsafe.StringData(s)), n: uint64(k)<<kindShift | uint64(len(s))}
}

// listValue makes an Array or Object of m. A nil m stays nil for Items
// and Members, an empty non-nil one stays empty and non-nil.
func listValue(k Kind, m []Member) Value {
	return Value{p: unsafe.Pointer(unsafe.SliceData(m)), n: uint64(k)<<kindShift | uint64(len(m))}
}

// Member is one object property, or one array item with an empty Key.
type Member struct {
	Key   string
	Value Value
}

// Kind returns the JSON type of v.
func (v Value) Kind() Kind {
	if v.k() == stringEscaped {
		return String
	}
	return v.k()
}

// Exists reports whether v is present (not Absent).
func (v Value) Exists() bool { return v.k() != Absent }

// IsObject reports whether v is a JSON object.
func (v Value) IsObject() bool { return v.k() == Object }

// IsArray reports whether v is a JSON array.
func (v Value) IsArray() bool { return v.k() == Array }

// IsNull reports whether v is JSON null.
func (v Value) IsNull() bool { return v.k() == Null }

// Get returns the member key of an object, or the Absent value.
func (v Value) Get(key string) Value {
	if v.k() != Object {
		return Value{}
	}
	m := v.items()
	for i := range m {
		if m[i].Key == key {
			return m[i].Value
		}
	}
	return Value{}
}

// Has reports whether an object has the key (with any value, null included).
func (v Value) Has(key string) bool { return v.Get(key).k() != Absent }

// Members returns the properties of an object in JavaScript order, or nil.
// The slice must not be modified.
func (v Value) Members() []Member {
	if v.k() != Object {
		return nil
	}
	return v.items()
}

// Len returns the number of items of an array or members of an object.
func (v Value) Len() int {
	if v.k() == Array || v.k() == Object {
		return v.length()
	}
	return 0
}

// Index returns item i of an array, or Absent when out of range.
func (v Value) Index(i int) Value {
	if v.k() != Array || i < 0 || i >= v.length() {
		return Value{}
	}
	return v.items()[i].Value
}

// Str returns the text of a string value. A string with escapes is decoded
// on every call (into WTF-8: lone surrogates keep their 3-byte form).
func (v Value) Str() (string, bool) {
	switch v.k() {
	case String:
		return v.text(), true
	case stringEscaped:
		return unescape(v.text()), true
	}
	return "", false
}

// AppendStr appends the text of a string value to dst (nothing for any
// other kind): Str without a string of its own.
func (v Value) AppendStr(dst []byte) []byte {
	switch v.k() {
	case String:
		return append(dst, v.text()...)
	case stringEscaped:
		return appendUnescaped(dst, v.text())
	}
	return dst
}

// SizeHint is the byte length of a string's literal body: about the size
// of its text (escapes shrink it, invalid bytes grow it); 0 for other
// kinds.
func (v Value) SizeHint() int {
	if v.k() == String || v.k() == stringEscaped {
		return len(v.text())
	}
	return 0
}

// StrOr returns the text of a string value, or def for any other kind.
func (v Value) StrOr(def string) string {
	if s, ok := v.Str(); ok {
		return s
	}
	return def
}

// StrIs reports whether v is a string equal to s, without decoding escapes
// when the literal has none.
func (v Value) StrIs(s string) bool {
	switch v.k() {
	case String:
		return v.text() == s
	case stringEscaped:
		return unescape(v.text()) == s
	}
	return false
}

// Literal returns the source literal of a number.
func (v Value) Literal() string {
	if v.k() != Number {
		return ""
	}
	return v.text()
}

// Float returns the value of a number as JavaScript sees it. A literal too
// large for float64 is ±Inf, as in JavaScript.
func (v Value) Float() (float64, bool) {
	if v.k() != Number {
		return 0, false
	}
	f, err := strconv.ParseFloat(v.text(), 64)
	if err != nil {
		// ParseFloat reports range errors with ±Inf or 0, which is what
		// JavaScript produces as well; the grammar was checked by the parser.
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return f, true
		}
		return math.NaN(), true
	}
	return f, true
}

// Bool returns the value of true or false.
func (v Value) Bool() (b, ok bool) {
	switch v.k() {
	case True:
		return true, true
	case False:
		return false, true
	}
	return false, false
}

// Truthy reports whether JavaScript would treat v as true in a condition.
func (v Value) Truthy() bool {
	switch v.k() {
	case True, Array, Object:
		return true
	case String:
		return v.text() != ""
	case stringEscaped:
		return true // an escape is at least one character
	case Number:
		f, _ := v.Float()
		return f != 0 && !math.IsNaN(f)
	}
	return false
}

// MakeString returns a string value.
func MakeString(s string) Value { return strValue(String, s) }

// MakeNumber returns a number value formatted as JavaScript would print f.
func MakeNumber(f float64) Value { return strValue(Number, FormatNumber(f)) }

// MakeBool returns true or false.
func MakeBool(b bool) Value {
	if b {
		return Value{n: uint64(True) << kindShift}
	}
	return Value{n: uint64(False) << kindShift}
}

// MakeNull returns null.
func MakeNull() Value { return Value{n: uint64(Null) << kindShift} }

// MakeArray returns an array of the items.
func MakeArray(items ...Value) Value {
	m := make([]Member, len(items))
	for i, it := range items {
		m[i].Value = it
	}
	return listValue(Array, m)
}

// MakeObject returns an object with the members in the given order. It does
// not reorder index-like keys or merge duplicates: build it as JavaScript
// would see it.
func MakeObject(members ...Member) Value {
	return listValue(Object, members)
}

// Items returns the items of an array (each with an empty Key), or nil.
// The slice must not be modified.
func (v Value) Items() []Member {
	if v.k() != Array {
		return nil
	}
	return v.items()
}
