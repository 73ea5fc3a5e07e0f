package coverage

import (
	"slices"
	"sort"
)

// Index and normalization reasons. The first group is the reference's; the
// second is memidx's own, for cases the reference passes over in silence.
const (
	SourceUnavailable          = "source_unavailable"
	SourceChangedDuringIndex   = "source_changed_during_index"
	LineageChangedDuringIndex  = "lineage_changed_during_index"
	InvalidParentGraph         = "invalid_parent_graph"
	MaxEntryChars              = "max_entry_chars"
	DuplicateEntryID           = "duplicate_entry_id"
	DuplicateOperationAddress  = "duplicate_operation_address"
	DuplicateBranchFactAddress = "duplicate_branch_fact_address"
	MaxFilesTouched            = "max_files_touched"
	MaxColdVocabularyBytes     = "max_cold_vocabulary_bytes"
	MaxColdCacheBytes          = "max_cold_cache_bytes"
	MaxSyncSessions            = "max_sync_sessions"
	MaxSyncSourceBytes         = "max_sync_source_bytes"
	CacheCleanupBudget         = "cache_cleanup_budget"
	IndexError                 = "index_error"

	// MalformedLine: a line (or a value spanning lines) was dropped because
	// it is not JSON; its text is not indexed.
	MalformedLine = "malformed_line"
	// TornTail: the file ends inside a JSON value, usually a writer that is
	// still appending; the tail is not indexed yet.
	TornTail = "torn_tail"
	// NullRecord: a line holds JSON null, which makes OMP refuse the file;
	// memidx skips it.
	NullRecord = "null_record"
	// InvalidHeader: the first record is not a session header with a string
	// id, so OMP refuses to open the file. memidx still reads the records.
	InvalidHeader = "invalid_header"
	// HostRefusesFile: a record makes OMP's loader throw (a message record
	// without a message object, a usage object without cost); memidx reads
	// on, but the host would not open this file.
	HostRefusesFile = "host_refuses_file"
	// MissingParent: the active path stops at a parentId that names no
	// record, so earlier turns may be missing from it.
	MissingParent = "missing_parent"
	// LineageUnresolved: records exist but the leaf has no usable id, so the
	// active branch is empty.
	LineageUnresolved = "lineage_unresolved"
	// UnknownVersion: the header's version is newer than memidx knows; the
	// file is read best-effort.
	UnknownVersion = "unknown_version"
)

// Query reasons.
const (
	CandidateEntryBudget                  = "candidate_entry_budget"
	CandidateDigestBudget                 = "candidate_digest_budget"
	CandidateItemBudget                   = "candidate_item_budget"
	ColdStructuralFilterRequiresHydration = "cold_structural_filter_requires_hydration"
	ColdAllTermsRequiresHydration         = "cold_all_terms_requires_hydration"
	ColdPhraseRequiresHydration           = "cold_phrase_requires_hydration"
	// ColdRegexRequiresHydration: a regex that can match across a token
	// boundary (punctuation, spaces) is matched against cold vocabularies
	// one term at a time; a cold session its vocabulary cannot rule out is
	// a candidate to follow, not an answer.
	ColdRegexRequiresHydration = "cold_regex_requires_hydration"
	// MaxStemScan (memidx's): a natural query's stems met the budget of
	// archive terms their forms are looked up among; past it a stem
	// found only itself in the sessions the lexicon answers for.
	MaxStemScan           = "max_stem_scan"
	RegexMaxHaystackTerms = "regex_max_haystack_terms"
	RegexMaxHaystackBytes = "regex_max_haystack_bytes"
	InvalidRegex          = "invalid_regex"
	RegexPatternTooLarge  = "regex_pattern_too_large"
	RegexTimeout          = "regex_timeout"
)

// Error codes carried in an answer's error object.
const (
	StalePointer             = "stale_pointer"
	IndexOutOfBounds         = "index_out_of_bounds"
	AmbiguousSession         = "ambiguous_session"
	SessionNotFound          = "session_not_found"
	TextOffsetOutOfBounds    = "text_offset_out_of_bounds"
	AddressNotFound          = "address_not_found"
	AmbiguousAddress         = "ambiguous_address"
	InvalidScope             = "invalid_scope"
	InvalidRequest           = "invalid_request"
	NotASession              = "not_a_session"
	ProjectSessionDirMissing = "project_session_dir_missing"
	// IndexForeignFile: the index file is not memidx's; coverage.error
	// names it.
	IndexForeignFile = "index_foreign_file"
	// UnknownRef: tools.call with a ref memidx does not answer.
	UnknownRef = "unknown_ref"
	// AgentDirMissing (memidx's): the OMP agent directory an engine needs
	// does not exist; the message names it.
	AgentDirMissing = "agent_dir_missing"

	// ActionNotFound: no visible catalog action has the ref or bare name.
	ActionNotFound = "action_not_found"
	// AmbiguousAction: a bare name that more than one provider exposes;
	// the message lists the qualified refs.
	AmbiguousAction = "ambiguous_action"
	// DescriptorChanged: the pinned descriptor hash is not the current
	// one; the message names the ref and both hashes.
	DescriptorChanged = "descriptor_changed"
	// ActionQuarantined: the action is registered but quarantined.
	ActionQuarantined = "action_quarantined"
)

// Error is the structured error of an answer: a stable code and a message
// for people.
type Error struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// Is reports whether target names e's code: any error with an
// ErrorCode() string method (engine.ErrStalePointer and its kin), or
// another *Error with the same code.
func (e *Error) Is(target error) bool {
	switch t := target.(type) {
	case interface{ ErrorCode() string }:
		return t.ErrorCode() == e.Code
	case *Error:
		return t != nil && t.Code == e.Code
	}
	return false
}

// Set is a sorted set of reasons. The zero value is empty and complete.
type Set struct {
	reasons []string
}

// Add records reason r once. A Set is a value: Add never writes to an
// array a copy of s may share, so copies stay independent.
func (s *Set) Add(r string) {
	i := sort.SearchStrings(s.reasons, r)
	if i < len(s.reasons) && s.reasons[i] == r {
		return
	}
	s.reasons = slices.Insert(slices.Clip(s.reasons), i, r)
}

// Merge adds every reason of o.
func (s *Set) Merge(o Set) {
	for _, r := range o.reasons {
		s.Add(r)
	}
}

// Has reports whether r is recorded.
func (s Set) Has(r string) bool {
	i := sort.SearchStrings(s.reasons, r)
	return i < len(s.reasons) && s.reasons[i] == r
}

// Complete reports whether no reason is recorded.
func (s Set) Complete() bool { return len(s.reasons) == 0 }

// Reasons returns the sorted reasons; never nil, so it encodes as [].
func (s Set) Reasons() []string {
	out := make([]string, len(s.reasons))
	copy(out, s.reasons)
	return out
}

// Of builds a set from reasons.
func Of(reasons ...string) Set {
	var s Set
	for _, r := range reasons {
		s.Add(r)
	}
	return s
}
