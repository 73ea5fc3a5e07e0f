package catalog

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/memidx/memidx/internal/coverage"
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
// one visible action has it. Several give [coverage.AmbiguousAction], listing
// their refs; none gives [coverage.ActionNotFound], or [coverage.ActionQuarantined]
// when the only match is quarantined.
//
// When pinnedHash is not empty it must equal the action's current
// descriptor hash (ignoring ASCII case); otherwise Describe returns
// [coverage.DescriptorChanged], "Fabric capability descriptor changed", with both
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
			Code: coverage.DescriptorChanged,
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
			Code:    coverage.AmbiguousAction,
			Message: "Capability name " + ref + " is ambiguous; use one of: " + strings.Join(vis, ", ") + ".",
		}
	case quar != nil:
		return nil, quarantined(quar.Ref)
	}
	return nil, notFound(ref)
}

func notFound(ref string) error {
	return &coverage.Error{
		Code:    coverage.ActionNotFound,
		Message: "Capability not found: " + ref + ". Use tools.search to find an action ref.",
	}
}

func quarantined(ref string) error {
	return &coverage.Error{Code: coverage.ActionQuarantined, Message: "Capability is quarantined: " + ref + "."}
}
