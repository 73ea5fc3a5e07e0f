package engine

import (
	"github.com/memidx/memidx/internal/coverage"
)

// ErrorCode is the stable code of a domain failure, as it stands in an
// answer's error object. Each code is also an error value, so that
//
//	errors.Is(page.Err(), engine.ErrStalePointer)
//
// tells a failure's kind whichever way it reached the caller: a result's
// error object (RecallPage.Err, ExpandResult.Err, …) or a Go error the
// engine returned (an *ErrorObject, or a coded error of its lower layers).
type ErrorCode string

// Error makes a code usable as a sentinel error.
func (c ErrorCode) Error() string { return string(c) }

// ErrorCode returns the code as a string; *coverage.Error's Is method
// matches on it.
func (c ErrorCode) ErrorCode() string { return string(c) }

// The error codes an answer can carry, each the wire's spelling as
// internal/coverage declares it: this is the one list on engine's face.
const (
	ErrStalePointer             ErrorCode = coverage.StalePointer
	ErrIndexOutOfBounds         ErrorCode = coverage.IndexOutOfBounds
	ErrAmbiguousSession         ErrorCode = coverage.AmbiguousSession
	ErrSessionNotFound          ErrorCode = coverage.SessionNotFound
	ErrTextOffsetOutOfBounds    ErrorCode = coverage.TextOffsetOutOfBounds
	ErrAddressNotFound          ErrorCode = coverage.AddressNotFound
	ErrAmbiguousAddress         ErrorCode = coverage.AmbiguousAddress
	ErrInvalidScope             ErrorCode = coverage.InvalidScope
	ErrInvalidRequest           ErrorCode = coverage.InvalidRequest
	ErrNotASession              ErrorCode = coverage.NotASession
	ErrSourceUnavailable        ErrorCode = coverage.SourceUnavailable
	ErrInvalidRegex             ErrorCode = coverage.InvalidRegex
	ErrRegexPatternTooLarge     ErrorCode = coverage.RegexPatternTooLarge
	ErrRegexTimeout             ErrorCode = coverage.RegexTimeout
	ErrProjectSessionDirMissing ErrorCode = coverage.ProjectSessionDirMissing
	ErrIndexForeignFile         ErrorCode = coverage.IndexForeignFile
	ErrUnknownRef               ErrorCode = coverage.UnknownRef
	// ErrAgentDirMissing is Open's error (an *ErrorObject) when the agent
	// directory it needs does not exist.
	ErrAgentDirMissing ErrorCode = coverage.AgentDirMissing
	// The catalog tools' codes (DescribeTool, SearchTools).
	ErrActionNotFound    ErrorCode = coverage.ActionNotFound
	ErrAmbiguousAction   ErrorCode = coverage.AmbiguousAction
	ErrDescriptorChanged ErrorCode = coverage.DescriptorChanged
	ErrActionQuarantined ErrorCode = coverage.ActionQuarantined
)

// Is reports whether target names this error's code: an ErrorCode, or
// another *ErrorObject with the same code.
func (e *ErrorObject) Is(target error) bool {
	switch t := target.(type) {
	case ErrorCode:
		return string(t) == e.Code
	case *ErrorObject:
		return t != nil && t.Code == e.Code
	}
	return false
}

// CodeOf returns the domain code of err (an *ErrorObject, a
// lower layer's coded error, wrapped or not), or "" when err
// is nil or an engine failure.
func CodeOf(err error) ErrorCode {
	if eo := DomainError(err); eo != nil {
		return ErrorCode(eo.Code)
	}
	return ""
}

// requestError is the error of a request that was answered without
// searching because the request itself is wrong: the page's own error, or
// the regex compile error the reference keeps in coverage.error.
func requestError(pageErr *ErrorObject, cov *ErrorObject) *ErrorObject {
	if pageErr != nil {
		return pageErr
	}
	if cov != nil && (cov.Code == coverage.InvalidRegex || cov.Code == coverage.RegexPatternTooLarge) {
		return cov
	}
	return nil
}

// Err is the page's request error, or nil when the request was answered
// (an incomplete answer, such as a regex timeout, is still an answer: see
// Coverage). An invalid regex counts: its message is in coverage.error on
// the wire, as the reference keeps it, and in the page's error.
func (p *RecallPage) Err() error {
	if eo := requestError(p.Error, p.Coverage.Error); eo != nil {
		return eo
	}
	return nil
}

// Err is the expansion's error, or nil.
func (r *ExpandResult) Err() error {
	if r.Error != nil {
		return r.Error
	}
	return nil
}

// Err is the listing's error, or nil.
func (r *SessionsResult) Err() error {
	if r.Error != nil {
		return r.Error
	}
	return nil
}

// Err is the walk's provider error, or nil.
func (r *WalkResult) Err() error {
	if r.Error != nil {
		return r.Error
	}
	return nil
}

// Err is the call's error.
func (r *CallError) Err() error {
	if r.Error != nil {
		return r.Error
	}
	return nil
}

// Failure is what every result of Call and of the tools methods
// (ToolCatalog, SearchTools, DescribeTool) has: its request error, or nil.
type Failure interface{ Err() error }

// QueryMode is how a recall reads its query.
type QueryMode string

// QueryMatch is whether a literal query needs any or all of its terms.
type QueryMatch string

// Branches is which entries of a session tree a call reads: the active
// branch (as OMP does) or every branch.
type Branches string

// Scope is which sessions a call covers: ScopeSession, ScopeProject,
// ScopeGlobal, or ScopeTargetPrefix followed by a session id or path.
type Scope string

// Query modes, matches, branch modes and scope kinds, as a request spells
// them.
const (
	ModeLiteral QueryMode = "literal"
	ModePhrase  QueryMode = "phrase"
	ModeRegex   QueryMode = "regex"
	// ModeNatural is memidx's extension: a question in natural language,
	// ranked without English stop words and with English stems beside
	// the canonical terms.
	ModeNatural QueryMode = "natural"

	MatchAny QueryMatch = "any"
	MatchAll QueryMatch = "all"

	BranchesActive Branches = "active"
	BranchesAll    Branches = "all"

	ScopeSession Scope = "session"
	ScopeProject Scope = "project"
	ScopeGlobal  Scope = "global"
	// ScopeTargetPrefix starts a single-session scope: "session:<id-or-path>".
	ScopeTargetPrefix Scope = "session:"
)

// ScopeOf is the single-session scope of a session id or path.
func ScopeOf(session string) Scope { return ScopeTargetPrefix + Scope(session) }
