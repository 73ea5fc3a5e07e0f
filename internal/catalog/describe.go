package catalog

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/memidx/memidx/internal/coverage"
)

// Error codes of [Catalog.Describe] and [Catalog.SetQuarantined], carried in
// a [*coverage.Error].
const (
	// CodeActionNotFound: no visible action has the ref or bare name.
	CodeActionNotFound = "action_not_found"
	// CodeAmbiguousAction: a bare name that more than one provider exposes;
	// the message lists the qualified refs.
	CodeAmbiguousAction = "ambiguous_action"
	// CodeDescriptorChanged: the pinned descriptor hash is not the current
	// one; the message names the ref and both hashes.
	CodeDescriptorChanged = "descriptor_changed"
	// CodeActionQuarantined: the action is registered but quarantined.
	CodeActionQuarantined = "action_quarantined"
)

// Descriptor is the full descriptor of one action: its head and schemas.
type Descriptor struct {
	ActionHead
	InputSchema  json.RawMessage `json:"inputSchema,omitempty"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
}

// Describe returns the descriptor of the action ref names.
//
// ref is a qualified ref ("omp.grep") or a bare action name ("grep"). A
// qualified ref is looked up first; a bare name resolves only when exactly
// one visible action has it. Several give [CodeAmbiguousAction], listing
// their refs; none gives [CodeActionNotFound], or [CodeActionQuarantined]
// when the only match is quarantined.
//
// When pinnedHash is not empty it must equal the action's current
// descriptor hash (ignoring ASCII case); otherwise Describe returns
// [CodeDescriptorChanged], "Fabric capability descriptor changed", with both
// hashes, and no descriptor. Errors are [*coverage.Error] values.
func (c *Catalog) Describe(ref, pinnedHash string) (Descriptor, error) {
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return Descriptor{}, &coverage.Error{Code: coverage.InvalidRequest, Message: "Capability describe requires a ref."}
	}
	s := c.snapshot()
	a, err := s.resolve(ref)
	if err != nil {
		return Descriptor{}, err
	}
	if pinnedHash != "" && !strings.EqualFold(pinnedHash, a.head.DescriptorHash) {
		return Descriptor{}, &coverage.Error{
			Code: CodeDescriptorChanged,
			Message: "Fabric capability descriptor changed: " + a.Ref +
				" was pinned at " + pinnedHash + " and is now " + a.head.DescriptorHash + ".",
		}
	}
	return Descriptor{
		ActionHead:   a.head,
		InputSchema:  slices.Clone(a.InputSchema),
		OutputSchema: slices.Clone(a.OutputSchema),
	}, nil
}

func (s *snapshot) resolve(ref string) (*action, error) {
	if a, ok := s.byRef[ref]; ok {
		if a.Quarantined {
			return nil, quarantined(a.Ref)
		}
		return a, nil
	}
	var vis []string
	var quar *action
	for _, a := range s.byName[ref] {
		if a.Quarantined {
			quar = a
			continue
		}
		vis = append(vis, a.Ref)
	}
	switch {
	case len(vis) == 1:
		return s.byRef[vis[0]], nil
	case len(vis) > 1:
		return nil, &coverage.Error{
			Code:    CodeAmbiguousAction,
			Message: "Capability name " + ref + " is ambiguous; use one of: " + strings.Join(vis, ", ") + ".",
		}
	case quar != nil:
		return nil, quarantined(quar.Ref)
	}
	return nil, notFound(ref)
}

func notFound(ref string) error {
	return &coverage.Error{
		Code:    CodeActionNotFound,
		Message: "Capability not found: " + ref + ". Use tools.search to find an action ref.",
	}
}

func quarantined(ref string) error {
	return &coverage.Error{Code: CodeActionQuarantined, Message: "Capability is quarantined: " + ref + "."}
}
