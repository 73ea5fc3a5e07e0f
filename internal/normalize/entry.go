package normalize

import (
	"strings"

	"github.com/memidx/memidx/internal/jsjson"
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
	// ArgsCuts lists, in Text order, the tool-call arguments whose display
	// in Text is cut at MaxArgsChars (none under FullToolArgs). Recall
	// shows Text; terms, phrases and patterns see IndexText, which puts the
	// rest back, so that nothing in the arguments is invisible to search.
	ArgsCuts []ArgsCut `json:"-"`
	// Truncated is true when the indexed text (Text, then the rests of
	// ArgsCuts) was cut at MaxEntryChars.
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

// ArgsCut is the part of one tool call's serialized arguments that the
// display form in Text leaves out: the reference shows MaxArgsChars scalars
// and "…", and the rest would be unsearchable without it.
type ArgsCut struct {
	// At is the byte offset in Text of the "…" that marks the cut.
	At int
	// Rest is the serialized arguments after the cut.
	Rest string
}

// IndexText is the text an entry is indexed under: text with the rest of
// every cut argument list put back at its cut, ahead of the "…". A word,
// phrase or pattern that spans a cut therefore matches as it does in the
// whole arguments. It is text itself when nothing was cut. Cuts out of
// order or past the text (damaged stored data) are ignored.
func IndexText(text string, cuts []ArgsCut) string {
	if len(cuts) == 0 {
		return text
	}
	n := len(text)
	for _, c := range cuts {
		n += len(c.Rest)
	}
	var b strings.Builder
	b.Grow(n)
	prev := 0
	for _, c := range cuts {
		if c.At < prev || c.At > len(text) {
			break
		}
		b.WriteString(text[prev:c.At])
		b.WriteString(c.Rest)
		prev = c.At
	}
	b.WriteString(text[prev:])
	return b.String()
}

// IndexText is the text e is indexed under (see the function IndexText).
func (e *Entry) IndexText() string { return IndexText(e.Text, e.ArgsCuts) }

// Bound cuts the indexed text of e to max Unicode scalars: Text first, as
// the reference bounds its hot text, then the argument rests in order with
// what Text leaves of the budget, so that a bounded entry never stores more
// than max scalars and still shows what the reference shows. It reports
// whether anything was cut (the caller adds max_entry_chars) and marks e
// Truncated then.
func (e *Entry) Bound(max int) bool {
	text, cut := TruncateScalars(e.Text, max)
	e.Text = text
	if len(e.ArgsCuts) > 0 {
		left := 0
		if !cut {
			left = max - CountScalars(text)
		}
		kept := e.ArgsCuts[:0]
		for _, c := range e.ArgsCuts {
			rest, ok := TruncateScalars(c.Rest, left)
			cut = cut || ok
			if rest == "" {
				continue
			}
			left -= CountScalars(rest)
			kept = append(kept, ArgsCut{At: c.At, Rest: rest})
		}
		e.ArgsCuts = kept
		if len(kept) == 0 {
			e.ArgsCuts = nil
		}
	}
	e.Truncated = e.Truncated || cut
	return cut
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
