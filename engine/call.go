package engine

import (
	"context"
	"encoding/json"
	"fmt"
)

// CallResult is the answer of Call: exactly one field is set, the one of
// the call's ref. Its JSON is that answer's own.
type CallResult struct {
	Recall   *RecallPage     // memory.recall
	Expand   *ExpandResult   // memory.expand
	Sessions *SessionsResult // memory.sessions
	Walk     *WalkPage       // memory.walk, memidx's extension
	// Unknown answers a ref memidx does not serve (unknown_ref).
	Unknown *CallError
}

// Value is the answer that is set, as its own type.
func (r *CallResult) Value() Failure {
	switch {
	case r.Recall != nil:
		return r.Recall
	case r.Expand != nil:
		return r.Expand
	case r.Sessions != nil:
		return r.Sessions
	case r.Walk != nil:
		return r.Walk
	case r.Unknown != nil:
		return r.Unknown
	}
	return nil
}

// Err is the answer's request error, or nil.
func (r *CallResult) Err() error {
	if v := r.Value(); v != nil {
		return v.Err()
	}
	return nil
}

// MarshalJSON writes the answer that is set.
func (r *CallResult) MarshalJSON() ([]byte, error) {
	v := r.Value()
	if v == nil {
		return nil, fmt.Errorf("engine: empty call result")
	}
	if m, ok := v.(json.Marshaler); ok {
		return m.MarshalJSON() // compact already: no second pass
	}
	return marshalAs(v)
}

// AppendJSON appends MarshalJSON's bytes to dst, written in place when
// the answer can (a recall page).
func (r *CallResult) AppendJSON(dst []byte) ([]byte, error) {
	if r.Recall != nil { // the answer Value gives first
		return r.Recall.AppendJSON(dst)
	}
	b, err := r.MarshalJSON()
	if err != nil {
		return nil, err
	}
	return append(dst, b...), nil
}

// Call dispatches a follow or next token (or any call with a known ref)
// unchanged: memory.recall, memory.expand, memory.sessions or memory.walk
// (memidx's extension: a page of WalkPage, for hosts that cannot run the
// spec's guest-local walk). A request the
// engine cannot take (unknown ref, bad arguments) is answered by a result
// whose error says so, as every domain failure is. The call's arguments are
// taken exactly as written: a token needs no Go round trip (to change one,
// see FabricCall.RecallArgs and ExpandArgs).
func (e *Engine) Call(ctx context.Context, call FabricCall) (*CallResult, error) {
	return guard(e, ctx, func(ctx context.Context) (*CallResult, error) { return e.call(ctx, call) })
}

func (e *Engine) call(ctx context.Context, call FabricCall) (*CallResult, error) {
	args := []byte(call.Args)
	var (
		res CallResult
		err error
	)
	switch call.Ref {
	case "memory.recall":
		var a recallArgs
		if eo := decodeArgs(args, &a, recallAliases); eo != nil {
			return &CallResult{Recall: failurePage(eo)}, nil
		}
		res.Recall, err = e.recall(ctx, a)
	case "memory.expand":
		var a expandArgs
		if eo := decodeArgs(args, &a, expandAliases); eo != nil {
			return &CallResult{Expand: expandFailure("", eo)}, nil
		}
		res.Expand, err = e.expandNoticed(ctx, a)
	case "memory.sessions":
		var a sessionsArgs
		if eo := decodeArgs(args, &a, sessionsAliases); eo != nil {
			return &CallResult{Sessions: &SessionsResult{Sessions: []SessionRow{}, Coverage: failureCoverage(eo.Code), Error: eo}}, nil
		}
		res.Sessions, err = e.sessions(ctx, a)
	case "memory.walk":
		r, eo := DecodeWalkPage(args)
		if eo != nil {
			return &CallResult{Walk: &WalkPage{Entries: []ExpandedEntry{}, Error: eo}}, nil
		}
		res.Walk, err = e.walkPage(ctx, r)
	default:
		res.Unknown = &CallError{Error: &ErrorObject{Code: string(ErrUnknownRef),
			Message: "memidx answers memory.recall, memory.expand, memory.sessions and memory.walk, not " + quote(call.Ref)}}
	}
	if err != nil {
		return nil, err
	}
	return &res, nil
}

// RecallArgs decodes a memory.recall call's arguments (a cold hit's follow,
// a recall page's next) into a request a host can change and pass to
// Recall. The bindings the call carries stay in it. A call of another ref,
// or arguments the engine would refuse to read, are an *ErrorObject
// (unknown_ref, invalid_request).
func (c FabricCall) RecallArgs() (RecallRequest, error) {
	if err := c.is("memory.recall"); err != nil {
		return RecallRequest{}, err
	}
	r, eo := DecodeRecall(c.Args)
	if eo != nil {
		return r, eo
	}
	return r, nil
}

// ExpandArgs decodes a memory.expand call's arguments (an entry hit's
// follow, an expansion's next), for instance to add Before and After
// context before passing it to Expand (see RecallArgs).
func (c FabricCall) ExpandArgs() (ExpandRequest, error) {
	if err := c.is("memory.expand"); err != nil {
		return ExpandRequest{}, err
	}
	r, eo := DecodeExpand(c.Args)
	if eo != nil {
		return r, eo
	}
	return r, nil
}

// SessionsArgs decodes a memory.sessions call's arguments (a listing's
// next); see RecallArgs.
func (c FabricCall) SessionsArgs() (SessionsRequest, error) {
	if err := c.is("memory.sessions"); err != nil {
		return SessionsRequest{}, err
	}
	r, eo := DecodeSessions(c.Args)
	if eo != nil {
		return r, eo
	}
	return r, nil
}

func (c FabricCall) is(ref string) error {
	if c.Ref != ref {
		return &ErrorObject{Code: string(ErrUnknownRef), Message: fmt.Sprintf("a %s call, not %s", ref, quote(c.Ref))}
	}
	return nil
}

// CallError is the result of a call with an unknown ref.
type CallError struct {
	Error *ErrorObject `json:"error"`
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// DecodeRecall, DecodeExpand and DecodeSessions parse a request object as
// the wire format defines it, refusing unknown fields and wrong types.
func DecodeRecall(b []byte) (RecallRequest, *ErrorObject) {
	var a recallArgs
	if eo := decodeArgs(b, &a, recallAliases); eo != nil {
		return RecallRequest{}, eo
	}
	return a.request(), nil
}

// DecodeExpand parses memory.expand arguments.
func DecodeExpand(b []byte) (ExpandRequest, *ErrorObject) {
	var a expandArgs
	if eo := decodeArgs(b, &a, expandAliases); eo != nil {
		return ExpandRequest{}, eo
	}
	return a.request(), nil
}

// DecodeSessions parses memory.sessions arguments.
func DecodeSessions(b []byte) (SessionsRequest, *ErrorObject) {
	var a sessionsArgs
	if eo := decodeArgs(b, &a, sessionsAliases); eo != nil {
		return SessionsRequest{}, eo
	}
	return a.request(), nil
}

func decodeArgs(b []byte, v any, aliases map[string]string) *ErrorObject {
	if err := decodeStrict(b, v, aliases); err != nil {
		return &ErrorObject{Code: err.Code, Message: err.Message}
	}
	return nil
}
