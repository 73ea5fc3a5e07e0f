package engine

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"sort"
	"strings"
	"sync"

	"github.com/memidx/memidx/internal/coverage"
)

// Range is an inclusive range of entry indices.
type Range struct {
	First int `json:"first"`
	Last  int `json:"last"`
}

// RecallContext (memidx's extension of the wire format) asks each entry
// hit for the entries around it: a question's hit shows its answer.
type RecallContext struct {
	// Next is how many of the entries that follow a hit (on the branch
	// read) it carries as snippets, 0 to MaxContextNext.
	Next int `json:"next"`
}

// MaxContextNext bounds RecallContext.Next.
const MaxContextNext = 3

// check refuses a context outside its bounds.
func (c *RecallContext) check() *ErrorObject {
	if c.Next < 0 || c.Next > MaxContextNext {
		return badRequest("context.next must be 0 to %d, not %d", MaxContextNext, c.Next)
	}
	return nil
}

// check refuses a range that is not 0 <= first <= last in safe integers.
func (r *Range) check() *ErrorObject {
	if r.First < 0 || r.First > r.Last || !safeInt(float64(r.First)) || !safeInt(float64(r.Last)) {
		return &ErrorObject{Code: coverage.IndexOutOfBounds, Message: "Entry range requires safe integers with 0 <= first <= last."}
	}
	return nil
}

// within refuses a range that reaches past a session of n entries.
func (r *Range) within(n int) *ErrorObject {
	if r.Last >= n {
		return &ErrorObject{Code: coverage.IndexOutOfBounds,
			Message:    fmt.Sprintf("Entry range %d..%d is outside the session's %d entries.", r.First, r.Last, n),
			EntryCount: &n}
	}
	return nil
}

// recallArgs is memory.recall's argument object as the wire spells it:
// optional fields are pointers, so that absent and given differ (a given
// empty tool filter matches nothing; pageSize is a JavaScript number). The
// engine works on it; RecallRequest is its Go face.
type recallArgs struct {
	Query      *string    `json:"query,omitempty"`
	QueryMode  QueryMode  `json:"queryMode,omitempty"`
	QueryMatch QueryMatch `json:"queryMatch,omitempty"`
	// ExpectedSourceHash and ExpectedLineageFingerprint bind a
	// single-session call to the exact source and lineage it was issued
	// for; a change answers stale_pointer.
	ExpectedSourceHash         string   `json:"expectedSourceHash,omitempty"`
	ExpectedLineageFingerprint string   `json:"expectedLineageFingerprint,omitempty"`
	Branches                   Branches `json:"branches,omitempty"`
	Scope                      Scope    `json:"scope,omitempty"`
	Offset                     *float64 `json:"offset,omitempty"`
	PageSize                   *float64 `json:"pageSize,omitempty"`
	SnippetChars               *float64 `json:"snippetChars,omitempty"`
	Role                       *string  `json:"role,omitempty"`
	Tool                       *string  `json:"tool,omitempty"`
	Ref                        *string  `json:"ref,omitempty"`
	Provider                   *string  `json:"provider,omitempty"`
	Action                     *string  `json:"action,omitempty"`
	Outcome                    *string  `json:"outcome,omitempty"`
	Since                      *float64 `json:"since,omitempty"`
	Until                      *float64 `json:"until,omitempty"`
	EntryRange                 *Range   `json:"entryRange,omitempty"`
	// Context is memidx's extension: neighbours of each entry hit.
	Context *RecallContext `json:"context,omitempty"`
	// Live may only repeat the host's live session (Options.Live); any
	// other value is refused with invalid_request. A request never sets it.
	Live *StaticLive `json:"live,omitempty"`
}

// expandArgs is memory.expand's argument object as the wire spells it
// (see recallArgs); ExpandRequest is its Go face.
type expandArgs struct {
	Session                    string   `json:"session"`
	ExpectedSourceHash         string   `json:"expectedSourceHash,omitempty"`
	ExpectedLineageFingerprint string   `json:"expectedLineageFingerprint,omitempty"`
	Branches                   Branches `json:"branches,omitempty"`
	Indices                    []int64  `json:"indices,omitempty"`
	EntryIDs                   []string `json:"entryIds,omitempty"`
	OperationAddresses         []string `json:"operationAddresses,omitempty"`
	EntryRange                 *Range   `json:"entryRange,omitempty"`
	Before                     *int64   `json:"before,omitempty"`
	After                      *int64   `json:"after,omitempty"`
	EntryOffset                *int64   `json:"entryOffset,omitempty"`
	TextOffset                 *int64   `json:"textOffset,omitempty"`
	MaxChars                   *int64   `json:"maxChars,omitempty"`
	MaxEntries                 *int64   `json:"maxEntries,omitempty"`
	// Live may only repeat the host's live session (see recallArgs).
	Live *StaticLive `json:"live,omitempty"`
}

// sessionsArgs is memory.sessions' argument object as the wire spells it
// (see recallArgs); SessionsRequest is its Go face.
type sessionsArgs struct {
	Scope    Scope    `json:"scope,omitempty"`
	Branches Branches `json:"branches,omitempty"`
	Limit    *int64   `json:"limit,omitempty"`
	Offset   *int64   `json:"offset,omitempty"`
	// Live may only repeat the host's live session (see recallArgs).
	Live *StaticLive `json:"live,omitempty"`
}

// Recall paging and snippet bounds, as the reference sets them.
const (
	DefaultPageSize     = 10
	MaxPageSize         = 50
	DefaultSnippetChars = 480
	MinSnippetChars     = 80
	MaxSnippetChars     = 2000
	MaxQueryChars       = 4096
	// MaxResponseChars bounds every response: JSON length in UTF-16 code
	// units, as a JavaScript host counts it.
	MaxResponseChars = 30000
)

// aliases are the snake_case spellings the reference also accepts.
var recallAliases = map[string]string{
	"q": "query", "page_size": "pageSize", "snippet_chars": "snippetChars",
	"query_mode": "queryMode", "query_match": "queryMatch", "entry_range": "entryRange",
}

var expandAliases = map[string]string{
	"entry_ids": "entryIds", "operation_addresses": "operationAddresses", "entry_range": "entryRange",
	"entry_offset": "entryOffset", "text_offset": "textOffset", "max_chars": "maxChars", "max_entries": "maxEntries",
}

var sessionsAliases = map[string]string{}

// decodeStrict decodes a JSON object into v, refusing unknown fields and
// wrong types with an invalid_request error that names the field. Aliases
// are renamed first; an alias given together with its canonical name is an
// error.
func decodeStrict(data []byte, v any, aliases map[string]string) *coverage.Error {
	return decodeStrictAs(data, v, aliases, true)
}

// decodeStrictAs is decodeStrict; direct decodes arguments given as they
// are (every name one of v's, no alias, no null, no object) without the
// strict decoder (tests compare the two).
func decodeStrictAs(data []byte, v any, aliases map[string]string, direct bool) *coverage.Error {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		data = []byte("{}")
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(data, &obj); err != nil {
		return invalid("the request must be a JSON object: %v", err)
	}
	// asGiven: data says what obj holds (no alias renamed, no null
	// dropped, no object argument), and is decoded as it is.
	asGiven := direct
	for alias, canon := range aliases {
		if raw, ok := obj[alias]; ok {
			if _, dup := obj[canon]; dup {
				return invalid("%q and %q are the same argument; give one", alias, canon)
			}
			obj[canon] = raw
			delete(obj, alias)
			asGiven = false
		}
	}
	// Drop explicit nulls: null means absent. Names must match exactly
	// (encoding/json alone would take "pagesize" for "pageSize").
	known := knownArgs(v)
	for k, raw := range obj {
		if !known[k] {
			return invalid("unknown argument %q; valid arguments: %s", k, fieldList(v))
		}
		if string(bytes.TrimSpace(raw)) == "null" {
			delete(obj, k)
			asGiven = false
			continue
		}
		if objectField(v, k) != nil {
			asGiven = false // its keys are checked by the decoder below
		}
		if eo := checkObjectArg(v, k, raw); eo != nil {
			return eo
		}
	}
	if asGiven {
		// Every name is one of v's, exactly, and re-encoding the object to
		// feed the strict decoder was most of a call's request garbage.
		// What decodes as given is what the strict decoder gives; an
		// error goes the strict way, which decodes a repeated key's last
		// value only and names the first bad argument by name order.
		if json.Unmarshal(data, v) == nil {
			return nil
		}
		reflect.ValueOf(v).Elem().SetZero()
	}
	norm, _ := json.Marshal(obj)
	dec := json.NewDecoder(bytes.NewReader(norm))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return typeErr(err, v)
	}
	return nil
}

// typeErr is the invalid_request error for what decoding the arguments
// into v met.
func typeErr(err error, v any) *coverage.Error {
	msg := err.Error()
	if strings.HasPrefix(msg, "json: unknown field ") {
		return invalid("unknown argument %s; valid arguments: %s", strings.TrimPrefix(msg, "json: unknown field "), fieldList(v))
	}
	var te *json.UnmarshalTypeError
	if ok := asTypeError(err, &te); ok {
		return invalid("argument %q must be of type %s, not %s", te.Field, jsType(te.Type), te.Value)
	}
	return invalid("%v", err)
}

// checkObjectArg names an unknown key inside an object argument (context,
// entryRange) with its path and the keys that object takes.
func checkObjectArg(v any, name string, raw json.RawMessage) *coverage.Error {
	ft := objectField(v, name)
	if ft == nil {
		return nil
	}
	var inner map[string]json.RawMessage
	if json.Unmarshal(raw, &inner) != nil {
		return nil // not an object: the decoder says what it is
	}
	zero := reflect.New(ft).Interface()
	valid := knownArgs(zero)
	for k := range inner {
		if !valid[k] {
			return invalid("unknown argument %q; valid arguments of %s: %s", name+"."+k, name, fieldList(zero))
		}
	}
	return nil
}

func asTypeError(err error, te **json.UnmarshalTypeError) bool {
	t, ok := err.(*json.UnmarshalTypeError)
	if ok {
		*te = t
	}
	return ok
}

// jsType is the JSON type that an argument of Go type t takes.
func jsType(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "string" // named ones too: queryMode, scope, branches
	case reflect.Float32, reflect.Float64, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "number"
	case reflect.Bool:
		return "boolean"
	case reflect.Slice, reflect.Array:
		return "array"
	}
	return "object"
}

// knownArgs is the set of v's argument names (tagNames), made once a
// type: a server decodes a request's arguments every call, and the set
// was a twentieth of a rare term's garbage. It must not be changed.
func knownArgs(v any) map[string]bool {
	t := reflect.TypeOf(v)
	if m, ok := knownArgSets.Load(t); ok {
		return m.(map[string]bool)
	}
	known := map[string]bool{}
	for _, n := range tagNames(v) {
		known[n] = true
	}
	m, _ := knownArgSets.LoadOrStore(t, known)
	return m.(map[string]bool)
}

// knownArgSets holds knownArgs by type (the few argument structs).
var knownArgSets sync.Map

func fieldList(v any) string {
	names := tagNames(v)
	sort.Strings(names)
	return strings.Join(names, ", ")
}

func invalid(format string, a ...any) *coverage.Error {
	return &coverage.Error{Code: coverage.InvalidRequest, Message: fmt.Sprintf(format, a...)}
}

// intArg floors a number argument, or returns def when it is absent or
// below min; above max it is capped (the reference's rule for pageSize and
// snippetChars).
func intArg(v *float64, def, min, max int) int {
	if v == nil || math.IsNaN(*v) || *v < float64(min) {
		return def
	}
	f := math.Floor(*v)
	if f > float64(max) {
		return max
	}
	return int(f)
}

// safeInt reports whether f is a JavaScript safe integer.
func safeInt(f float64) bool {
	return f == math.Trunc(f) && math.Abs(f) <= 1<<53-1
}
