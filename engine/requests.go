package engine

import (
	"bytes"
	"encoding/json"
	"math"
)

// The requests below are the Go face of the wire's argument objects: plain
// Go types whose zero value means "the default". Their JSON form
// (MarshalJSON, UnmarshalJSON, DecodeRecall, …) is the wire's, field for
// field, and decoding it is strict: unknown fields, wrong types and numbers
// a field cannot hold (1.5 as an index) are refused with invalid_request,
// exactly as the reference refuses them.
//
// A request decoded from JSON remembers the JSON it came from, so that
// what the Go fields cannot say (a field given with its zero value, a
// number given as 7.9) is answered, and re-encoded, exactly as written as
// long as the Go field still holds what was decoded. A field the host
// changes is taken from the Go field.

// RecallRequest is memory.recall's argument object. The zero value browses
// the current session's entries, newest first.
type RecallRequest struct {
	// Query is the text to find; "" (or only spaces) browses.
	Query string
	// QueryMode is ModeLiteral, ModePhrase or ModeRegex; "" is literal.
	QueryMode QueryMode
	// QueryMatch is MatchAny or MatchAll, for a literal query only; "" is
	// any.
	QueryMatch QueryMatch
	// ExpectedSourceHash and ExpectedLineageFingerprint bind a
	// single-session call to the exact source and lineage it was issued
	// for; a change answers stale_pointer. "" binds nothing.
	ExpectedSourceHash         string
	ExpectedLineageFingerprint string
	// Branches is BranchesActive or BranchesAll; "" is active.
	Branches Branches
	// Scope is ScopeSession, ScopeProject, ScopeGlobal or
	// "session:<id-or-path>"; "" is the session scope.
	Scope Scope
	// Offset is how many ranked hits to skip; 0 (or less) starts at the
	// first.
	Offset int
	// PageSize is the number of hits per page: 0 (or less) is
	// DefaultPageSize and above MaxPageSize is MaxPageSize.
	PageSize int
	// SnippetChars bounds each snippet: 0 (or below MinSnippetChars) is
	// DefaultSnippetChars and above MaxSnippetChars is MaxSnippetChars.
	SnippetChars int
	// Role, Tool, Ref, Provider, Action and Outcome keep only the entries
	// with that value; "" does not filter.
	Role, Tool, Ref, Provider, Action, Outcome string
	// Since and Until keep the dated entries in the inclusive window, in
	// epoch milliseconds as every time of the API (EpochMs makes one of a
	// time.Time); nil is no bound. An entry without a timestamp is outside
	// every window.
	Since, Until *float64
	// EntryRange keeps a single session's entries in an inclusive range;
	// nil is every entry. It needs the scope session:<id-or-path>.
	EntryRange *Range
	// Context (memidx's extension) makes each entry hit carry the
	// snippets of the entries after it, and its follow expand them too;
	// nil is none.
	Context *RecallContext
	// Live may only repeat the host's live session (Options.Live); any
	// other value is refused with invalid_request. A request never needs
	// it.
	Live *StaticLive

	wire *recallArgs // the JSON this request was decoded from
}

// ExpandRequest is memory.expand's argument object. Session is required;
// without a selector (Indices, EntryIDs, OperationAddresses, EntryRange)
// the answer is the session's metadata only.
type ExpandRequest struct {
	// Session is a session id, a unique id prefix (MinSessionPrefix
	// characters or more) or a file path.
	Session string
	// ExpectedSourceHash and ExpectedLineageFingerprint bind the call to
	// the source and lineage it was issued for (see RecallRequest).
	ExpectedSourceHash         string
	ExpectedLineageFingerprint string
	// Branches is BranchesActive or BranchesAll; "" is active.
	Branches Branches
	// Indices, EntryIDs and OperationAddresses select entries exactly (at
	// most MaxExactSelectors in all); EntryRange an inclusive range.
	Indices            []int
	EntryIDs           []string
	OperationAddresses []string
	EntryRange         *Range
	// Before and After add up to MaxContext entries of context around a
	// selection of exactly one entry; 0 adds none.
	Before, After int
	// EntryOffset and TextOffset continue a selection (as next does): the
	// selected entry to start from and the UTF-16 offset in its text; 0 is
	// the start.
	EntryOffset, TextOffset int
	// MaxChars bounds the text of one response (1..MaxMaxChars); 0 is
	// DefaultMaxChars.
	MaxChars int
	// MaxEntries bounds the entries of one response (1..MaxMaxEntries); 0
	// is DefaultMaxEntries.
	MaxEntries int
	// Live may only repeat the host's live session (see RecallRequest).
	Live *StaticLive

	wire *expandArgs // the JSON this request was decoded from
}

// SessionsRequest is memory.sessions' argument object. The zero value lists
// the current session's scope from its newest session.
type SessionsRequest struct {
	// Scope is as RecallRequest's; "" is the session scope.
	Scope Scope
	// Branches is BranchesActive or BranchesAll; "" is active.
	Branches Branches
	// Limit is the number of rows per page, 1 up to the configuration's
	// maxSessions; 0 is maxSessions.
	Limit int
	// Offset is how many sessions to skip; 0 starts at the newest.
	Offset int
	// Live may only repeat the host's live session (see RecallRequest).
	Live *StaticLive

	wire *sessionsArgs // the JSON this request was decoded from
}

// args is the request as the engine takes it.
func (r RecallRequest) args() recallArgs {
	var o recallArgs
	if r.wire != nil {
		o = *r.wire
	}
	return recallArgs{
		Query: strArg(r.Query, o.Query), QueryMode: r.QueryMode, QueryMatch: r.QueryMatch,
		ExpectedSourceHash: r.ExpectedSourceHash, ExpectedLineageFingerprint: r.ExpectedLineageFingerprint,
		Branches: r.Branches, Scope: r.Scope,
		Offset: numArg(r.Offset, o.Offset), PageSize: numArg(r.PageSize, o.PageSize), SnippetChars: numArg(r.SnippetChars, o.SnippetChars),
		Role: strArg(r.Role, o.Role), Tool: strArg(r.Tool, o.Tool), Ref: strArg(r.Ref, o.Ref),
		Provider: strArg(r.Provider, o.Provider), Action: strArg(r.Action, o.Action), Outcome: strArg(r.Outcome, o.Outcome),
		Since: floatArg(r.Since), Until: floatArg(r.Until),
		EntryRange: r.EntryRange, Context: r.Context, Live: r.Live,
	}
}

func (a recallArgs) request() RecallRequest {
	w := a
	return RecallRequest{
		Query: str(a.Query), QueryMode: a.QueryMode, QueryMatch: a.QueryMatch,
		ExpectedSourceHash: a.ExpectedSourceHash, ExpectedLineageFingerprint: a.ExpectedLineageFingerprint,
		Branches: a.Branches, Scope: a.Scope,
		Offset: floorInt(a.Offset), PageSize: floorInt(a.PageSize), SnippetChars: floorInt(a.SnippetChars),
		Role: str(a.Role), Tool: str(a.Tool), Ref: str(a.Ref), Provider: str(a.Provider), Action: str(a.Action), Outcome: str(a.Outcome),
		Since: floatArg(a.Since), Until: floatArg(a.Until),
		EntryRange: a.EntryRange, Context: a.Context, Live: a.Live,
		wire: &w,
	}
}

// args is the request as the engine takes it.
func (r ExpandRequest) args() expandArgs {
	var o expandArgs
	if r.wire != nil {
		o = *r.wire
	}
	a := expandArgs{
		Session: r.Session, ExpectedSourceHash: r.ExpectedSourceHash, ExpectedLineageFingerprint: r.ExpectedLineageFingerprint,
		Branches: r.Branches, EntryIDs: r.EntryIDs, OperationAddresses: r.OperationAddresses, EntryRange: r.EntryRange,
		Before: intArg64(r.Before, o.Before), After: intArg64(r.After, o.After),
		EntryOffset: intArg64(r.EntryOffset, o.EntryOffset), TextOffset: intArg64(r.TextOffset, o.TextOffset),
		MaxChars: intArg64(r.MaxChars, o.MaxChars), MaxEntries: intArg64(r.MaxEntries, o.MaxEntries),
		Live: r.Live,
	}
	if r.Indices != nil {
		a.Indices = make([]int64, len(r.Indices))
		for i, n := range r.Indices {
			a.Indices[i] = int64(n)
		}
	}
	return a
}

func (a expandArgs) request() ExpandRequest {
	w := a
	r := ExpandRequest{
		Session: a.Session, ExpectedSourceHash: a.ExpectedSourceHash, ExpectedLineageFingerprint: a.ExpectedLineageFingerprint,
		Branches: a.Branches, EntryIDs: a.EntryIDs, OperationAddresses: a.OperationAddresses, EntryRange: a.EntryRange,
		Before: int64Int(a.Before), After: int64Int(a.After), EntryOffset: int64Int(a.EntryOffset), TextOffset: int64Int(a.TextOffset),
		MaxChars: int64Int(a.MaxChars), MaxEntries: int64Int(a.MaxEntries), Live: a.Live,
		wire: &w,
	}
	if a.Indices != nil {
		r.Indices = make([]int, len(a.Indices))
		for i, n := range a.Indices {
			r.Indices[i] = int(n)
		}
	}
	return r
}

// args is the request as the engine takes it.
func (r SessionsRequest) args() sessionsArgs {
	var o sessionsArgs
	if r.wire != nil {
		o = *r.wire
	}
	return sessionsArgs{Scope: r.Scope, Branches: r.Branches,
		Limit: intArg64(r.Limit, o.Limit), Offset: intArg64(r.Offset, o.Offset), Live: r.Live}
}

func (a sessionsArgs) request() SessionsRequest {
	w := a
	return SessionsRequest{Scope: a.Scope, Branches: a.Branches,
		Limit: int64Int(a.Limit), Offset: int64Int(a.Offset), Live: a.Live, wire: &w}
}

// MarshalJSON writes the wire form.
func (r RecallRequest) MarshalJSON() ([]byte, error) { return marshalAs(r.args()) }

// MarshalJSON writes the wire form.
func (r ExpandRequest) MarshalJSON() ([]byte, error) { return marshalAs(r.args()) }

// MarshalJSON writes the wire form.
func (r SessionsRequest) MarshalJSON() ([]byte, error) { return marshalAs(r.args()) }

// marshalAs is the JSON of v for a MarshalJSON method: HTML characters
// unescaped, so that the encoder that called the method escapes them or
// not as it was told (as it does for a value without the method).
func marshalAs(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// UnmarshalJSON reads the wire form strictly (see DecodeRecall); its error
// is an *ErrorObject with the code invalid_request.
func (r *RecallRequest) UnmarshalJSON(b []byte) error {
	v, eo := DecodeRecall(b)
	if eo != nil {
		return eo
	}
	*r = v
	return nil
}

// UnmarshalJSON reads the wire form strictly (see DecodeExpand).
func (r *ExpandRequest) UnmarshalJSON(b []byte) error {
	v, eo := DecodeExpand(b)
	if eo != nil {
		return eo
	}
	*r = v
	return nil
}

// UnmarshalJSON reads the wire form strictly (see DecodeSessions).
func (r *SessionsRequest) UnmarshalJSON(b []byte) error {
	v, eo := DecodeSessions(b)
	if eo != nil {
		return eo
	}
	*r = v
	return nil
}

// strArg is the wire form of a string: what was decoded when it still
// says v, else v, with "" absent.
func strArg(v string, decoded *string) *string {
	if decoded != nil && *decoded == v {
		s := *decoded
		return &s
	}
	if v == "" {
		return nil
	}
	return &v
}

func str(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// numArg is the wire form of a JavaScript number argument (see strArg).
func numArg(v int, decoded *float64) *float64 {
	if decoded != nil && floorInt(decoded) == v {
		f := *decoded
		return &f
	}
	if v == 0 {
		return nil
	}
	f := float64(v)
	return &f
}

// floorInt is the int a number argument means: its floor, within int.
func floorInt(p *float64) int {
	if p == nil || math.IsNaN(*p) {
		return 0
	}
	f := math.Floor(*p)
	switch {
	case f >= math.MaxInt:
		return math.MaxInt
	case f <= math.MinInt:
		return math.MinInt
	}
	return int(f)
}

// intArg64 is the wire form of an integer argument (see strArg).
func intArg64(v int, decoded *int64) *int64 {
	if decoded != nil && int64Int(decoded) == v {
		n := *decoded
		return &n
	}
	if v == 0 {
		return nil
	}
	n := int64(v)
	return &n
}

func int64Int(p *int64) int {
	if p == nil {
		return 0
	}
	return int(*p)
}

// floatArg is a copy of a number argument: a request never shares its
// host's pointers.
func floatArg(p *float64) *float64 {
	if p == nil {
		return nil
	}
	f := *p
	return &f
}
