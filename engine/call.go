package engine

import (
	"context"
	"encoding/json"
)

// Call dispatches a follow or next token (or any call with a known ref)
// unchanged: memory.recall, memory.expand or memory.sessions. The result is
// a *RecallPage, *ExpandResult or *SessionsResult. A request the engine
// cannot take (unknown ref, bad arguments) is answered by a result whose
// error says so, as every domain failure is.
func (e *Engine) Call(ctx context.Context, call FabricCall) (any, error) {
	args := []byte(call.Args)
	switch call.Ref {
	case "memory.recall":
		req, eo := DecodeRecall(args)
		if eo != nil {
			return failurePage(eo), nil
		}
		return e.Recall(ctx, req)
	case "memory.expand":
		req, eo := DecodeExpand(args)
		if eo != nil {
			return expandFailure("", eo), nil
		}
		return e.Expand(ctx, req)
	case "memory.sessions":
		req, eo := DecodeSessions(args)
		if eo != nil {
			return &SessionsResult{Sessions: []SessionRow{}, Coverage: failureCoverage(eo.Code), Error: eo}, nil
		}
		return e.Sessions(ctx, req)
	}
	return &CallError{Error: &ErrorObject{Code: "unknown_ref",
		Message: "memidx answers memory.recall, memory.expand and memory.sessions, not " + quote(call.Ref)}}, nil
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
	return decode[RecallRequest](b, recallAliases)
}

// DecodeExpand parses memory.expand arguments.
func DecodeExpand(b []byte) (ExpandRequest, *ErrorObject) {
	return decode[ExpandRequest](b, expandAliases)
}

// DecodeSessions parses memory.sessions arguments.
func DecodeSessions(b []byte) (SessionsRequest, *ErrorObject) {
	return decode[SessionsRequest](b, sessionsAliases)
}

func decode[T any](b []byte, aliases map[string]string) (T, *ErrorObject) {
	var r T
	if err := decodeStrict(b, &r, aliases); err != nil {
		return r, &ErrorObject{Code: err.Code, Message: err.Message}
	}
	return r, nil
}
