package engine

import (
	"slices"

	"github.com/memidx/memidx/internal/normalize"
)

// The closed value sets of a request's enum fields. Validation, the
// published JSON Schemas and the CLI's flags all read them from here, so
// a value cannot be accepted by one surface and unknown to another.

// roles is the closed set of roles an entry can have.
var roles = []string{
	"assistant", "bashExecution", "branchCustomMessage", "branchSummary",
	"branchUser", "compaction", "compactionSummary", "custom", "developer",
	"fabricOperation", "fabricPhase", "fabricRun", "fileMention",
	"pythonExecution", "toolResult", "user",
}

// Roles are the entry roles a recall may filter on, sorted.
func Roles() []string { return slices.Clone(roles) }

// Outcomes are the outcomes a recall may filter on.
func Outcomes() []string {
	return []string{normalize.Succeeded, normalize.Failed, normalize.Aborted, normalize.TimedOut}
}

// QueryModes are the values of a recall's queryMode; the first is the default.
func QueryModes() []QueryMode { return []QueryMode{ModeLiteral, ModeNatural, ModePhrase, ModeRegex} }

// QueryMatches are the values of a literal recall's queryMatch; the first is the default.
func QueryMatches() []QueryMatch { return []QueryMatch{MatchAny, MatchAll} }

// BranchModes are the values of a request's branches; the first is the default.
func BranchModes() []Branches { return []Branches{BranchesActive, BranchesAll} }

func validRole(r string) bool { return slices.Contains(roles, r) }
