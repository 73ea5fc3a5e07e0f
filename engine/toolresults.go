package engine

import (
	"encoding/json"

	"github.com/memidx/memidx/internal/catalog"
)

// ToolCatalogResult is tools.catalog's result. Its JSON is the catalog
// object.
type ToolCatalogResult struct {
	Catalog *ToolTree
	Error   *ErrorObject
}

// ToolSearchResult is tools.search's result. Its JSON is the array of
// hits, or {"error":…} when the search was refused.
type ToolSearchResult struct {
	Hits  []ToolHit
	Error *ErrorObject
}

// ToolDescribeResult is tools.describe's result. Its JSON is the
// descriptor, or {"error":…}.
type ToolDescribeResult struct {
	Descriptor *ToolDescriptor
	Error      *ErrorObject
}

// ToolTree is the capability tree of tools.catalog.
type ToolTree struct {
	Kind      string         `json:"kind"`
	Version   int            `json:"version"`
	Root      ToolRoot       `json:"root"`
	Providers []ToolProvider `json:"providers"`
	// TotalActions counts every visible action; IndexedActions the ones
	// listed under Providers.
	TotalActions   int  `json:"totalActions"`
	IndexedActions int  `json:"indexedActions"`
	Complete       bool `json:"complete"`
	// Reasons is never nil: [] or ["action_limit"].
	Reasons []string `json:"reasons"`
}

// ToolRoot is the root of the capability tree.
type ToolRoot struct {
	Key            string `json:"key"`
	Name           string `json:"name"`
	Description    string `json:"description"`
	DescriptorHash string `json:"descriptorHash"`
}

// ToolProvider is one provider of the tree with its listed actions.
type ToolProvider struct {
	Key            string `json:"key"`
	ParentKey      string `json:"parentKey"`
	Name           string `json:"name"`
	Description    string `json:"description"`
	DescriptorHash string `json:"descriptorHash"`
	// Actions is never nil.
	Actions []ToolAction `json:"actions"`
}

// ToolAction is the head of one action. Namespace and Effect are omitted
// from the JSON when empty.
type ToolAction struct {
	Key            string `json:"key"`
	ParentKey      string `json:"parentKey"`
	Ref            string `json:"ref"`
	Name           string `json:"name"`
	Description    string `json:"description"`
	DescriptorHash string `json:"descriptorHash"`
	Risk           string `json:"risk"`
	Namespace      string `json:"namespace,omitempty"`
	Effect         string `json:"effect,omitempty"`
}

// ToolDescriptor is one action's full descriptor: its head and schemas.
type ToolDescriptor struct {
	ToolAction
	InputSchema  json.RawMessage `json:"inputSchema,omitempty"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
}

// ToolHit is one ranked action of a search: its head, schemas and score.
type ToolHit struct {
	ToolAction
	InputSchema  json.RawMessage `json:"inputSchema,omitempty"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	Score        int             `json:"score"`
}

// Err is the request's error, or nil.
func (r *ToolCatalogResult) Err() error { return errOf(r.Error) }

// Err is the search's error, or nil.
func (r *ToolSearchResult) Err() error { return errOf(r.Error) }

// Err is the description's error, or nil.
func (r *ToolDescribeResult) Err() error { return errOf(r.Error) }

func errOf(eo *ErrorObject) error {
	if eo != nil {
		return eo
	}
	return nil
}

// MarshalJSON writes the catalog object, or the error.
func (r *ToolCatalogResult) MarshalJSON() ([]byte, error) {
	return toolJSON(r.Error, r.Catalog)
}

// MarshalJSON writes the hits, or the error.
func (r *ToolSearchResult) MarshalJSON() ([]byte, error) {
	return toolJSON(r.Error, r.Hits)
}

// MarshalJSON writes the descriptor, or the error.
func (r *ToolDescribeResult) MarshalJSON() ([]byte, error) {
	return toolJSON(r.Error, r.Descriptor)
}

// toolJSON writes the answer, or the error, as the wire has them: HTML
// characters unescaped.
func toolJSON(eo *ErrorObject, answer any) ([]byte, error) {
	if eo != nil {
		return marshalAs(&CallError{Error: eo})
	}
	return marshalAs(answer)
}

func toolTree(t catalog.Tree) *ToolTree {
	out := &ToolTree{
		Kind: t.Kind, Version: t.Version, Root: ToolRoot(t.Root),
		TotalActions: t.TotalActions, IndexedActions: t.IndexedActions,
		Complete: t.Complete, Reasons: t.Reasons,
	}
	if t.Providers != nil {
		out.Providers = make([]ToolProvider, len(t.Providers))
	}
	for i, p := range t.Providers {
		var actions []ToolAction
		if p.Actions != nil {
			actions = make([]ToolAction, len(p.Actions))
		}
		for j, a := range p.Actions {
			actions[j] = ToolAction(a)
		}
		out.Providers[i] = ToolProvider{
			Key: p.Key, ParentKey: p.ParentKey, Name: p.Name, Description: p.Description,
			DescriptorHash: p.DescriptorHash, Actions: actions,
		}
	}
	return out
}

func toolHits(hits []catalog.Hit) []ToolHit {
	if hits == nil {
		return nil
	}
	out := make([]ToolHit, len(hits))
	for i, h := range hits {
		out[i] = ToolHit{ToolAction: ToolAction(h.ActionHead), InputSchema: h.InputSchema, OutputSchema: h.OutputSchema, Score: h.Score}
	}
	return out
}

func toolDescriptor(d catalog.Descriptor) *ToolDescriptor {
	return &ToolDescriptor{ToolAction: ToolAction(d.ActionHead), InputSchema: d.InputSchema, OutputSchema: d.OutputSchema}
}
