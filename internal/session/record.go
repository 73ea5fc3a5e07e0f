package session

import (
	"strconv"

	"github.com/memidx/memidx/internal/jsjson"
)

// ID is an entry id or parentId compared the way OMP's id map compares
// them: by JSON type and value, so 1 and "1" differ. Missing and null have
// the zero ID. "" (like 0 and false) is a key of OMP's id map (a leaf id ""
// resolves to its record) but behaves as "no id" for walking: Valid is
// false for it.
type ID struct {
	key string
}

// StringID is the ID of the JSON string s, as a host names a record.
func StringID(s string) ID { return ID{"s" + s} }

// idOf returns the ID of a JSON value. Objects and arrays are compared by
// reference in JavaScript, so they never equal another id: each gets a key
// unique to its record.
func idOf(v jsjson.Value, recordIndex int) ID {
	switch v.Kind() {
	case jsjson.String:
		s, _ := v.Str()
		return StringID(s)
	case jsjson.Number:
		f, _ := v.Float()
		return ID{"n" + jsjson.FormatNumber(f)}
	case jsjson.True:
		return ID{"t"}
	case jsjson.False:
		return ID{"f"}
	case jsjson.Array, jsjson.Object:
		return ID{"o" + strconv.Itoa(recordIndex)}
	}
	return ID{}
}

// syntheticID is the id memidx gives a v1 record (OMP invents a random one
// that no other reader can reproduce).
func syntheticID(recordIndex int) ID { return ID{"v" + strconv.Itoa(recordIndex)} }

// SyntheticID is the id the v1 migration gives record recordIndex.
func SyntheticID(recordIndex int) ID { return syntheticID(recordIndex) }

// Valid reports whether the id names something a walk can follow. OMP
// tests ids for JavaScript truthiness, so missing, null, "", 0 and false
// all end a walk.
func (id ID) Valid() bool {
	switch id.key {
	case "", "s", "n0", "f":
		return false
	}
	return true
}

// Present reports whether the id is a key of the id map (anything but
// missing or null, "" included).
func (id ID) Present() bool { return id.key != "" }

// Key is the comparable form of the id; equal keys are equal ids.
func (id ID) Key() string { return id.key }

// String returns the id if it is a JSON string.
func (id ID) String() (string, bool) {
	if len(id.key) > 0 && id.key[0] == 's' {
		return id.key[1:], true
	}
	return "", false
}

// Synthetic reports whether memidx assigned the id (v1 migration).
func (id ID) Synthetic() bool { return len(id.key) > 0 && id.key[0] == 'v' }

// Record is one parsed value after the header, in file order: what OMP's
// getEntries() returns, at the same index.
type Record struct {
	// Index is the position among the records (the header is not one).
	Index int
	// Line is the 1-based physical line on which the value starts.
	Line int
	// Offset and End are the byte offsets of the value in the file.
	Offset, End int64
	// Value is the parsed JSON value; usually an object, but OMP keeps
	// numbers, strings, arrays and {} as records too.
	Value jsjson.Value
	// Type is the string "type" field, or "".
	Type string
	// ID and Parent are the record's id and parentId after migration.
	ID, Parent ID
	// HasParentKey is false when the object has no parentId key at all.
	HasParentKey bool
}

// IDValue returns the record's id as JSON: null when it has none or when
// memidx invented it for a v1 file.
func (r *Record) IDValue() jsjson.Value {
	if r.ID.Synthetic() {
		return jsjson.MakeNull()
	}
	v := r.Value.Get("id")
	if !v.Exists() {
		return jsjson.MakeNull()
	}
	return v
}

// ParentValue returns the record's parentId as JSON, null when it has none
// or memidx invented it.
func (r *Record) ParentValue() jsjson.Value {
	if r.Parent.Synthetic() || r.ID.Synthetic() {
		return jsjson.MakeNull()
	}
	v := r.Value.Get("parentId")
	if !v.Exists() {
		return jsjson.MakeNull()
	}
	return v
}
