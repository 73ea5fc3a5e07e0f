package engine

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"sync/atomic"

	"github.com/memidx/memidx/internal/coverage"
	"github.com/memidx/memidx/internal/index"
)

// FabricCall is a copy-ready call: every hit's follow and every page's next.
// Dispatch it unchanged with Engine.Call.
type FabricCall struct {
	Ref  string          `json:"ref"`
	Args json.RawMessage `json:"args"`
}

// Coverage says whether an answer is authoritative (Complete) and, when it
// is not, why (Reasons, Error).
type Coverage struct {
	Complete bool `json:"complete"`
	// IndexedSessions of EligibleSessions (the scope's) had a current
	// record; StaleSessions had none, IncompleteSessions one whose own
	// coverage was incomplete.
	IndexedSessions    int `json:"indexedSessions"`
	EligibleSessions   int `json:"eligibleSessions"`
	StaleSessions      int `json:"staleSessions"`
	IncompleteSessions int `json:"incompleteSessions"`
	// Reasons are the coverage reason codes (see the spec's list).
	Reasons []string `json:"reasons"`
	// Error is the error the coverage explains: a regex that does not
	// compile or ran out of time, or an index file that is not memidx's.
	Error *ErrorObject `json:"error,omitempty"`
}

// failureCoverage is the coverage of a call that failed with code: never
// complete, and the code is its reason.
func failureCoverage(code string) Coverage {
	return Coverage{Reasons: []string{code}}
}

// indexCoverage is the index's coverage under engine's type.
func indexCoverage(ic index.Coverage) Coverage {
	return Coverage{Complete: ic.Complete, IndexedSessions: ic.IndexedSessions, EligibleSessions: ic.EligibleSessions,
		StaleSessions: ic.StaleSessions, IncompleteSessions: ic.IncompleteSessions, Reasons: ic.Reasons, Error: codedError(ic.Error)}
}

// ErrorObject is a domain failure: a stable code, a message and the facts
// that go with the code.
type ErrorObject struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	// Hint (memidx's extension) follows the reference's message with
	// what to do about the error; "" when there is nothing to add.
	Hint                       string   `json:"hint,omitempty"`
	SessionFile                string   `json:"sessionFile,omitempty"`
	ExpectedSourceHash         string   `json:"expectedSourceHash,omitempty"`
	ActualSourceHash           *string  `json:"actualSourceHash,omitempty"`
	ExpectedLineageFingerprint string   `json:"expectedLineageFingerprint,omitempty"`
	ActualLineageFingerprint   *string  `json:"actualLineageFingerprint,omitempty"`
	Session                    string   `json:"session,omitempty"`
	Candidates                 []string `json:"candidates,omitempty"`
	EntryCount                 *int     `json:"entryCount,omitempty"`
	AddressType                string   `json:"addressType,omitempty"`
	Address                    string   `json:"address,omitempty"`
	Matches                    *int     `json:"matches,omitempty"`
	TextLength                 *int     `json:"textLength,omitempty"`
}

func (e *ErrorObject) Error() string { return e.Code + ": " + e.Message }

// codedError is the error object of a lower layer's coded error, or nil.
func codedError(ce *coverage.Error) *ErrorObject {
	if ce == nil {
		return nil
	}
	return &ErrorObject{Code: ce.Code, Message: ce.Message}
}

// RecallPage is memory.recall's result.
type RecallPage struct {
	Total    int          `json:"total"`
	Hits     []Hit        `json:"hits"`
	Next     *FabricCall  `json:"next"`
	Coverage Coverage     `json:"coverage"`
	Error    *ErrorObject `json:"error,omitempty"`
	// QueryCoverage (memidx's extension) is the largest QueryCoverage of
	// the page's hits, 0 for a page without hits; nil for a regex query
	// or browsing. Under Config.WeakMatchBelow the page is a weak match.
	QueryCoverage *float64 `json:"queryCoverage,omitempty"`
	// WeakMatch (memidx's extension) is set when QueryCoverage is under
	// the configured weakMatchBelow: the page holds no evidence a host
	// should act on.
	WeakMatch bool `json:"weakMatch,omitempty"`
	// Notices, on an Engine's first answer, say what the user should
	// know about the setup (see Engine.Notices).
	Notices []Notice `json:"notices,omitempty"`

	// nextFor rebuilds next when the envelope drops hits.
	nextFor func(n int) *FabricCall
	// weakBelow is the configured weakMatchBelow.
	weakBelow float64
}

// MarshalJSON writes the page as encoding/json writes its fields, but
// splices each hit's JSON in as Hit.MarshalJSON returns it: through the
// encoder, every hit (most of a page) was scanned a second time.
func (p RecallPage) MarshalJSON() ([]byte, error) { return p.AppendJSON(nil) }

// AppendJSON appends the page's JSON (MarshalJSON's bytes) to dst: a
// server writes it after its answer's head, into one buffer sized by the
// pages before (a page grown from a few KB by doubling, then copied after
// that head, was a sixth of a server's garbage a call).
func (p RecallPage) AppendJSON(dst []byte) ([]byte, error) {
	type rest struct {
		Next          *FabricCall  `json:"next"`
		Coverage      Coverage     `json:"coverage"`
		Error         *ErrorObject `json:"error,omitempty"`
		QueryCoverage *float64     `json:"queryCoverage,omitempty"`
		WeakMatch     bool         `json:"weakMatch,omitempty"`
		Notices       []Notice     `json:"notices,omitempty"`
	}
	tail, err := marshalAs(rest{p.Next, p.Coverage, p.Error, p.QueryCoverage, p.WeakMatch, p.Notices})
	if err != nil {
		return nil, err
	}
	e := &hitEncoder{buf: *bytes.NewBuffer(dst)}
	// Bounded by the envelope, which counts UTF-16 units: a page of
	// escaped or non-ASCII text may take more bytes, and grows the
	// buffer once.
	perHit := int(hitBytes.Load())
	e.buf.Grow(64 + len(tail) + min(len(p.Hits)*(perHit+perHit/8), MaxResponseChars))
	e.buf.WriteString(`{"total":`)
	e.buf.Write(strconv.AppendInt(e.buf.AvailableBuffer(), int64(p.Total), 10))
	e.buf.WriteString(`,"hits":`)
	if p.Hits == nil {
		e.buf.WriteString("null")
	} else {
		e.buf.WriteByte('[')
		for i, h := range p.Hits {
			if i > 0 {
				e.buf.WriteByte(',')
			}
			if err := e.encode(h); err != nil {
				return nil, err
			}
		}
		e.buf.WriteByte(']')
	}
	if len(p.Hits) > 0 {
		hitBytes.Store(int64((e.buf.Len() - len(dst)) / len(p.Hits)))
	}
	e.buf.WriteByte(',')
	e.buf.Write(tail[1:]) // tail without its '{'
	return e.buf.Bytes(), nil
}

// hitBytes is the mean length of the hits of the last page written with
// hits: what the next page's buffer holds for each of its own (the
// pages of one host are alike).
var hitBytes atomic.Int64

// setQueryCoverage sets the page's QueryCoverage from its hits', and
// WeakMatch.
func (p *RecallPage) setQueryCoverage() {
	best := 0.0
	for _, h := range p.Hits {
		var c *float64
		if h.Entry != nil {
			c = h.Entry.QueryCoverage
		} else if h.Session != nil {
			c = h.Session.QueryCoverage
		}
		if c != nil && *c > best {
			best = *c
		}
	}
	p.QueryCoverage = &best
	p.WeakMatch = best < p.weakBelow
}

// Hit is an entry hit or a cold session candidate; exactly one of Entry and
// Session is set.
type Hit struct {
	Entry   *EntryHit
	Session *SessionHit
}

// HitKind is the shape of a hit, its "kind" on the wire.
type HitKind string

// The two kinds of hit.
const (
	HitEntry   HitKind = "entry"
	HitSession HitKind = "session"
)

// Kind is HitEntry or HitSession, as the hit's Entry or Session is set.
func (h Hit) Kind() HitKind {
	if h.Entry != nil {
		return HitEntry
	}
	return HitSession
}

// Follow returns the hit's copy-ready call.
func (h Hit) Follow() FabricCall {
	if h.Entry != nil {
		return h.Entry.Follow
	}
	return h.Session.Follow
}

// MarshalJSON writes the hit's own shape.
func (h Hit) MarshalJSON() ([]byte, error) {
	v, err := h.wire()
	if err != nil {
		return nil, err
	}
	return json.Marshal(v)
}

// wire is the value whose JSON is the hit's.
func (h Hit) wire() (any, error) {
	if h.Entry != nil {
		return h.Entry.wire(), nil
	}
	if h.Session != nil {
		return h.Session.wire(), nil
	}
	return nil, fmt.Errorf("engine: empty hit")
}

// hitEncoder writes hits' JSON into its buffer, as Hit.MarshalJSON gives
// it (json.Marshal's escaping), with no slice a hit: a page marshaled
// each hit alone and copied it in, and the envelope did it once more to
// measure the hits (40 of a two-word call's 220 KB of garbage at 100k
// sessions, and a server collects its garbage by marking ~120 MB).
type hitEncoder struct {
	buf bytes.Buffer
	enc *json.Encoder
}

// encode appends h's JSON to the buffer.
func (e *hitEncoder) encode(h Hit) error {
	v, err := h.wire()
	if err != nil {
		return err
	}
	if e.enc == nil {
		e.enc = json.NewEncoder(&e.buf) // escapes HTML, as json.Marshal
	}
	if err := e.enc.Encode(v); err != nil {
		return err
	}
	e.buf.Truncate(e.buf.Len() - 1) // Encode's newline
	return nil
}

// UnmarshalJSON reads either shape by its kind.
func (h *Hit) UnmarshalJSON(b []byte) error {
	var k struct {
		Kind string `json:"kind"`
	}
	if err := json.Unmarshal(b, &k); err != nil {
		return err
	}
	switch k.Kind {
	case "entry":
		h.Entry = new(EntryHit)
		return json.Unmarshal(b, h.Entry)
	case "session":
		h.Session = new(SessionHit)
		return json.Unmarshal(b, h.Session)
	}
	return fmt.Errorf("engine: unknown hit kind %q", k.Kind)
}

// EntryHit is an exact entry of a hot (or resolved cold) session. Its
// JSON begins with "kind":"entry".
type EntryHit struct {
	SessionID string `json:"sessionId"`
	// Title (memidx's extension) is the session's title; Cwd (memidx's
	// extension) its project directory, in a global recall only. Both
	// are omitted when empty.
	Title            string   `json:"title,omitempty"`
	Cwd              string   `json:"cwd,omitempty"`
	Tier             string   `json:"tier"`
	Index            int      `json:"index"`
	EntryID          *string  `json:"entryId"`
	ParentID         *string  `json:"parentId"`
	OperationAddress *string  `json:"operationAddress"`
	Type             string   `json:"type"`
	Role             *string  `json:"role"`
	Tool             *string  `json:"tool"`
	Ref              *string  `json:"ref"`
	Provider         *string  `json:"provider"`
	Action           *string  `json:"action"`
	Timestamp        *float64 `json:"timestamp"`
	IsError          bool     `json:"isError"`
	Outcome          string   `json:"outcome,omitempty"`
	Score            float64  `json:"score"`
	// QueryCoverage (memidx's extension): the share of the query terms'
	// idf mass the entry holds (see RecallPage.QueryCoverage).
	QueryCoverage *float64 `json:"queryCoverage,omitempty"`
	Snippet       string   `json:"snippet"`
	Truncated     bool     `json:"truncated"`
	// Context (memidx's extension) holds the entries after the hit that
	// the request's context asked for.
	Context *HitContext `json:"context,omitempty"`
	Follow  FabricCall  `json:"follow"`
}

// HitContext is an entry hit's neighbours.
type HitContext struct {
	Next []ContextEntry `json:"next"`
}

// ContextEntry is a neighbour of an entry hit: where it is, and its
// snippet from its start.
type ContextEntry struct {
	Index     int     `json:"index"`
	EntryID   *string `json:"entryId"`
	Role      *string `json:"role"`
	Snippet   string  `json:"snippet"`
	Truncated bool    `json:"truncated"`
}

// SessionHit is a cold session candidate: session-level evidence only.
// Its JSON begins with "kind":"session".
type SessionHit struct {
	SessionID string `json:"sessionId"`
	// Title (memidx's extension) is the session's title, omitted when
	// empty.
	Title                    string   `json:"title,omitempty"`
	Tier                     string   `json:"tier"`
	Cwd                      string   `json:"cwd"`
	LastTimestamp            *float64 `json:"lastTimestamp"`
	Score                    float64  `json:"score"`
	MatchedTerms             int      `json:"matchedTerms"`
	MatchedStructuralEntries int      `json:"matchedStructuralEntries"`
	// QueryCoverage (memidx's extension): the share of the query terms'
	// idf mass the session's vocabulary holds.
	QueryCoverage *float64   `json:"queryCoverage,omitempty"`
	Follow        FabricCall `json:"follow"`
}

// Kind is HitEntry.
func (EntryHit) Kind() HitKind { return HitEntry }

// Kind is HitSession.
func (SessionHit) Kind() HitKind { return HitSession }

// The hits' fields without their methods, so that their wire forms can
// put the kind first and encode the rest as declared.
type (
	entryHitFields   EntryHit
	sessionHitFields SessionHit
)

// MarshalJSON writes the hit with "kind":"entry" first.
func (h EntryHit) MarshalJSON() ([]byte, error) { return json.Marshal((&h).wire()) }

// wire is the value whose JSON is the hit's: "kind" first, then its
// fields.
//
// It points into h rather than into a copy: a page's hits are encoded
// twice (measured against the envelope, then written), and each copy of
// a hit was some 250 bytes of a server's garbage.
func (h *EntryHit) wire() any {
	return struct {
		Kind HitKind `json:"kind"`
		*entryHitFields
	}{HitEntry, (*entryHitFields)(h)}
}

// MarshalJSON writes the hit with "kind":"session" first.
func (h SessionHit) MarshalJSON() ([]byte, error) { return json.Marshal((&h).wire()) }

// wire is the value whose JSON is the hit's (see EntryHit.wire).
func (h *SessionHit) wire() any {
	return struct {
		Kind HitKind `json:"kind"`
		*sessionHitFields
	}{HitSession, (*sessionHitFields)(h)}
}

// failurePage is a recall that failed for a domain reason.
func failurePage(eo *ErrorObject) *RecallPage {
	return &RecallPage{
		Hits:     []Hit{},
		Coverage: failureCoverage(eo.Code),
		Error:    eo,
	}
}

// coverageFrom merges the index coverage with the query's reasons.
func coverageFrom(ic index.Coverage, extra []string, qerr *ErrorObject) Coverage {
	var set coverage.Set
	for _, r := range ic.Reasons {
		set.Add(r)
	}
	for _, r := range extra {
		set.Add(r)
	}
	if qerr == nil {
		qerr = codedError(ic.Error) // the index's own (a foreign index file)
	}
	c := indexCoverage(ic)
	c.Error = qerr
	c.Reasons = set.Reasons()
	c.Complete = set.Complete() && ic.StaleSessions == 0 && ic.IncompleteSessions == 0 && qerr == nil
	return c
}
