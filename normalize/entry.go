package normalize

import (
	"github.com/memidx/memidx/jsjson"
)

// Entry is one normalized record: what recall ranks, expand returns and walk
// visits. Strings are copies; an Entry does not pin the source buffer.
type Entry struct {
	// Index is the dense 0-based position among the emitted entries of the
	// selection (children included). It is only meaningful together with
	// the branch mode, lineage fingerprint and source hash it was read
	// under; EntryID and OperationAddress are the stable addresses.
	Index int `json:"index"`
	// Record is the index of the source record (getEntries() order).
	Record int `json:"-"`
	// Line is the physical line of the source record.
	Line int `json:"-"`

	EntryID  *string `json:"entryId"`
	ParentID *string `json:"parentId"`
	// Type is the record type ("message", "compaction", "branch_summary",
	// "custom_message") or the child type ("fabric_operation",
	// "fabric_branch_fact").
	Type string  `json:"type"`
	Role *string `json:"role"`
	// Tool is the first tool call's name of an assistant message, the
	// result's tool of a toolResult, "bash" for a bashExecution, and so on.
	Tool *string `json:"tool"`
	// Tools lists every tool an assistant message calls, in order, when it
	// calls more than one; the tool filter matches any of them.
	Tools    []string `json:"tools,omitempty"`
	Ref      *string  `json:"ref"`
	Provider *string  `json:"provider"`
	Action   *string  `json:"action"`
	// Outcome is "succeeded", "failed", "aborted" or "timed_out", from
	// typed fields only.
	Outcome *string `json:"outcome"`
	// Timestamp is in epoch milliseconds.
	Timestamp *float64 `json:"timestamp"`
	IsError   bool     `json:"isError"`
	Text      string   `json:"text"`
	// Truncated is true when Text was cut at MaxEntryChars.
	Truncated    bool     `json:"truncated"`
	FilesTouched []string `json:"filesTouched,omitempty"`
	ToolCallID   *string  `json:"toolCallId,omitempty"`

	// Fabric child records.
	ParentEntryID    *string      `json:"parentEntryId,omitempty"`
	OperationAddress *string      `json:"operationAddress,omitempty"`
	FactAddress      *string      `json:"factAddress,omitempty"`
	CarrierEntryID   *string      `json:"carrierEntryId,omitempty"`
	CarrierParentID  *string      `json:"carrierParentId,omitempty"`
	CarrierFromID    *string      `json:"carrierFromId,omitempty"`
	Operation        jsjson.Value `json:"-"`
	BranchFact       jsjson.Value `json:"-"`
}

// Outcomes.
const (
	Succeeded = "succeeded"
	Failed    = "failed"
	Aborted   = "aborted"
	TimedOut  = "timed_out"
)

// ValidOutcome reports whether s is one of the four outcomes.
func ValidOutcome(s string) bool {
	switch s {
	case Succeeded, Failed, Aborted, TimedOut:
		return true
	}
	return false
}

// Roles a normalized entry can have beyond OMP's message roles.
const (
	RoleCompaction          = "compaction"
	RoleBranchSummary       = "branchSummary"
	RoleCustom              = "custom"
	RoleFabricOperation     = "fabricOperation"
	RoleFabricRun           = "fabricRun"
	RoleFabricPhase         = "fabricPhase"
	RoleBranchUser          = "branchUser"
	RoleBranchCustomMessage = "branchCustomMessage"
)

func str(s string) *string { return &s }

// optStr returns nil for "" and a pointer to a copy otherwise.
func optStr(s string) *string {
	if s == "" {
		return nil
	}
	return str(s)
}

// Get returns *p or "".
func Get(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}
