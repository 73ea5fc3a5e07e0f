package jsjson

import (
	"math"
	"strconv"
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
type Value struct {
	kind Kind
	// s is the decoded text of a String (WTF-8: lone surrogates are kept as
	// their 3-byte encodings) or the literal of a Number.
	s string
	// m holds array items (with empty keys) or object members in JavaScript
	// property order.
	m []Member
}

// Member is one object property, or one array item with an empty Key.
type Member struct {
	Key   string
	Value Value
}

// Kind returns the JSON type of v.
func (v Value) Kind() Kind {
	if v.kind == stringEscaped {
		return String
	}
	return v.kind
}

// Exists reports whether v is present (not Absent).
func (v Value) Exists() bool { return v.kind != Absent }

// IsObject reports whether v is a JSON object.
func (v Value) IsObject() bool { return v.kind == Object }

// IsArray reports whether v is a JSON array.
func (v Value) IsArray() bool { return v.kind == Array }

// IsNull reports whether v is JSON null.
func (v Value) IsNull() bool { return v.kind == Null }

// Get returns the member key of an object, or the Absent value.
func (v Value) Get(key string) Value {
	if v.kind != Object {
		return Value{}
	}
	for i := range v.m {
		if v.m[i].Key == key {
			return v.m[i].Value
		}
	}
	return Value{}
}

// Has reports whether an object has the key (with any value, null included).
func (v Value) Has(key string) bool { return v.Get(key).kind != Absent }

// Members returns the properties of an object in JavaScript order, or nil.
// The slice must not be modified.
func (v Value) Members() []Member {
	if v.kind != Object {
		return nil
	}
	return v.m
}

// Len returns the number of items of an array or members of an object.
func (v Value) Len() int {
	if v.kind == Array || v.kind == Object {
		return len(v.m)
	}
	return 0
}

// Index returns item i of an array, or Absent when out of range.
func (v Value) Index(i int) Value {
	if v.kind != Array || i < 0 || i >= len(v.m) {
		return Value{}
	}
	return v.m[i].Value
}

// Str returns the text of a string value. A string with escapes is decoded
// on every call (into WTF-8: lone surrogates keep their 3-byte form).
func (v Value) Str() (string, bool) {
	switch v.kind {
	case String:
		return v.s, true
	case stringEscaped:
		return unescape(v.s), true
	}
	return "", false
}

// AppendStr appends the text of a string value to dst (nothing for any
// other kind): Str without a string of its own.
func (v Value) AppendStr(dst []byte) []byte {
	switch v.kind {
	case String:
		return append(dst, v.s...)
	case stringEscaped:
		return appendUnescaped(dst, v.s)
	}
	return dst
}

// SizeHint is the byte length of a string's literal body: about the size
// of its text (escapes shrink it, invalid bytes grow it); 0 for other
// kinds.
func (v Value) SizeHint() int {
	if v.kind == String || v.kind == stringEscaped {
		return len(v.s)
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
	switch v.kind {
	case String:
		return v.s == s
	case stringEscaped:
		return unescape(v.s) == s
	}
	return false
}

// Literal returns the source literal of a number.
func (v Value) Literal() string {
	if v.kind != Number {
		return ""
	}
	return v.s
}

// Float returns the value of a number as JavaScript sees it. A literal too
// large for float64 is ±Inf, as in JavaScript.
func (v Value) Float() (float64, bool) {
	if v.kind != Number {
		return 0, false
	}
	f, err := strconv.ParseFloat(v.s, 64)
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
	switch v.kind {
	case True:
		return true, true
	case False:
		return false, true
	}
	return false, false
}

// Truthy reports whether JavaScript would treat v as true in a condition.
func (v Value) Truthy() bool {
	switch v.kind {
	case True, Array, Object:
		return true
	case String:
		return v.s != ""
	case stringEscaped:
		return true // an escape is at least one character
	case Number:
		f, _ := v.Float()
		return f != 0 && !math.IsNaN(f)
	}
	return false
}

// MakeString returns a string value.
func MakeString(s string) Value { return Value{kind: String, s: s} }

// MakeNumber returns a number value formatted as JavaScript would print f.
func MakeNumber(f float64) Value { return Value{kind: Number, s: FormatNumber(f)} }

// MakeBool returns true or false.
func MakeBool(b bool) Value {
	if b {
		return Value{kind: True}
	}
	return Value{kind: False}
}

// MakeNull returns null.
func MakeNull() Value { return Value{kind: Null} }

// MakeArray returns an array of the items.
func MakeArray(items ...Value) Value {
	m := make([]Member, len(items))
	for i, it := range items {
		m[i].Value = it
	}
	return Value{kind: Array, m: m}
}

// MakeObject returns an object with the members in the given order. It does
// not reorder index-like keys or merge duplicates: build it as JavaScript
// would see it.
func MakeObject(members ...Member) Value {
	return Value{kind: Object, m: members}
}

// Items returns the items of an array (each with an empty Key), or nil.
// The slice must not be modified.
func (v Value) Items() []Member {
	if v.kind != Array {
		return nil
	}
	return v.m
}
