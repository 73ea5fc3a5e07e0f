package catalog

// Wire constants of the catalog object.
const (
	// Kind is the catalog object's kind.
	Kind = "omp-fabric.capability-catalog"
	// Version is the catalog object's version.
	Version = 1
	// RootKey is the key of the root head and the parentKey of every
	// provider head.
	RootKey = "capability:fabric"
	// RootName is the root head's name.
	RootName = "Fabric capabilities"
	// RootDescription is the root head's description. (The reference has a
	// "Committed …" wording for a committed capability view; memidx has no
	// committed views.)
	RootDescription = "Current registered provider and action metadata for navigation; not historical session evidence."
)

// Limits of [Catalog.Catalog].
const (
	DefaultCatalogLimit = 1000
	MaxCatalogLimit     = 1000
)

// ActionLimit is the coverage reason of a catalog whose limit cut actions.
const ActionLimit = "action_limit"

// Tree is the catalog object of tools.catalog. Its JSON encoding is the
// wire format; field names are the wire names.
type Tree struct {
	Kind      string         `json:"kind"`
	Version   int            `json:"version"`
	Root      RootHead       `json:"root"`
	Providers []ProviderHead `json:"providers"`
	// TotalActions counts every visible action; IndexedActions the ones
	// listed under Providers.
	TotalActions   int  `json:"totalActions"`
	IndexedActions int  `json:"indexedActions"`
	Complete       bool `json:"complete"`
	// Reasons is never nil: [] or ["action_limit"].
	Reasons []string `json:"reasons"`
}

// RootHead is the root of the capability tree.
type RootHead struct {
	Key            string `json:"key"`
	Name           string `json:"name"`
	Description    string `json:"description"`
	DescriptorHash string `json:"descriptorHash"`
}

// ProviderHead is one provider of the tree.
type ProviderHead struct {
	Key            string `json:"key"`
	ParentKey      string `json:"parentKey"`
	Name           string `json:"name"`
	Description    string `json:"description"`
	DescriptorHash string `json:"descriptorHash"`
	// Actions is never nil.
	Actions []ActionHead `json:"actions"`
}

// ActionHead is one action of the tree. Namespace and Effect are omitted
// from the JSON when empty.
type ActionHead struct {
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

// Catalog returns the capability tree: every provider by name (UTF-16 code
// unit order, as JavaScript sorts), each with its visible actions by ref.
//
// limit bounds the number of actions listed, taken over all visible actions
// in ref order (so a provider's actions may be listed only in part); 0 or
// less means [DefaultCatalogLimit] and more than [MaxCatalogLimit] means
// that maximum. When actions are cut, Complete is false and Reasons is
// ["action_limit"]. Every provider is listed even when the limit cut all of
// its actions, and descriptor hashes cover all visible actions whatever the
// limit.
func (c *Catalog) Catalog(limit int) Tree {
	if limit <= 0 {
		limit = DefaultCatalogLimit
	}
	limit = min(limit, MaxCatalogLimit)
	s := c.snapshot()
	t := Tree{
		Kind:         Kind,
		Version:      Version,
		Root:         s.root,
		Providers:    make([]ProviderHead, len(s.providers)),
		TotalActions: len(s.actions),
		Complete:     true,
		Reasons:      []string{},
	}
	// The limit keeps the first limit actions in global ref order.
	var cut func(*action) bool
	if len(s.actions) > limit {
		t.Complete = false
		t.Reasons = []string{ActionLimit}
		kept := make(map[*action]bool, limit)
		for _, v := range s.actions[:limit] {
			kept[v.a] = true
		}
		cut = func(a *action) bool { return !kept[a] }
	}
	for i, pv := range s.providers {
		h := pv.head
		h.Actions = make([]ActionHead, 0, len(pv.actions))
		for _, a := range pv.actions {
			if cut != nil && cut(a) {
				continue
			}
			h.Actions = append(h.Actions, a.head)
		}
		t.IndexedActions += len(h.Actions)
		t.Providers[i] = h
	}
	return t
}
