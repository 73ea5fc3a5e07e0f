package engine

import (
	"encoding/json"
	"sync"

	"github.com/memidx/memidx/internal/catalog"
)

// Catalog is a capability catalog: the providers and actions that
// tools.catalog, tools.search and tools.describe answer from
// (Options.Catalog, Engine.Catalog). The zero value is an empty catalog;
// DefaultCatalog and LoadCatalog make filled ones. It is safe for
// concurrent use (a host may Register and Unregister providers while the
// engine serves) and must not be copied after first use.
type Catalog struct {
	once sync.Once
	c    *catalog.Catalog
}

// CatalogProvider is a named group of actions (Catalog.Register).
type CatalogProvider struct {
	// Name is the provider's name; required, without ".".
	Name        string
	Description string
	Actions     []CatalogAction
}

// CatalogAction is one action of a CatalogProvider.
type CatalogAction struct {
	// Ref is "<provider>.<name>"; left empty, Register fills it in.
	Ref string
	// Provider is the provider's name; left empty, Register fills it in.
	Provider string
	// Name is the action's name within its provider; required.
	Name string
	// Description is the free text shown in the catalog and searched.
	Description string
	// InputSchema and OutputSchema are JSON Schema documents (an object
	// or a boolean); nil or JSON null means none.
	InputSchema  json.RawMessage
	OutputSchema json.RawMessage
	// Risk says what the action may do ("read", "write", "execute");
	// required.
	Risk string
	// Namespace and Effect are optional free-form labels.
	Namespace string
	Effect    string
	// Quarantined hides the action from the catalog, search and describe.
	Quarantined bool
}

// ErrInvalidCatalog is wrapped by every error of Register and LoadCatalog
// that rejects a provider or an action.
var ErrInvalidCatalog = catalog.ErrInvalid

// DefaultCatalog is a new catalog holding only memidx's own memory
// provider: the one an engine serves when Options.Catalog is nil. A host
// adds its providers to it with Register.
func DefaultCatalog() *Catalog { return &Catalog{c: catalog.Default()} }

// LoadCatalog reads a catalog file (the format memidx serve --catalog
// takes). A malformed file is an error that names the offending member.
func LoadCatalog(path string) (*Catalog, error) {
	c, err := catalog.Load(path)
	if err != nil {
		return nil, err
	}
	return &Catalog{c: c}, nil
}

// MemoryCatalogProvider is memidx's own provider (memory.recall,
// memory.expand, memory.sessions), for a host that builds its catalog from
// its own providers and this one.
func MemoryCatalogProvider() CatalogProvider { return providerOf(catalog.MemoryProvider()) }

// Register adds p, or replaces the provider of the same name with it. An
// invalid p is refused with an error wrapping ErrInvalidCatalog and leaves
// the catalog unchanged.
func (c *Catalog) Register(p CatalogProvider) error {
	cp := catalog.Provider{Name: p.Name, Description: p.Description, Actions: make([]catalog.Action, len(p.Actions))}
	for i, a := range p.Actions {
		cp.Actions[i] = catalog.Action(a)
	}
	return c.inner().Register(cp)
}

// Unregister removes the provider named name and reports whether it was
// registered.
func (c *Catalog) Unregister(name string) bool { return c.inner().Unregister(name) }

// SetQuarantined hides (q true) or restores (q false) the action with the
// qualified ref; an unknown ref is an *ErrorObject with the code
// action_not_found.
func (c *Catalog) SetQuarantined(ref string, q bool) error {
	err := c.inner().SetQuarantined(ref, q)
	if eo := DomainError(err); eo != nil {
		return eo
	}
	return err
}

// Providers returns a copy of every registered provider, quarantined
// actions included, providers by name and actions by ref.
func (c *Catalog) Providers() []CatalogProvider {
	ps := c.inner().Providers()
	out := make([]CatalogProvider, len(ps))
	for i, p := range ps {
		out[i] = providerOf(p)
	}
	return out
}

func providerOf(p catalog.Provider) CatalogProvider {
	out := CatalogProvider{Name: p.Name, Description: p.Description, Actions: make([]CatalogAction, len(p.Actions))}
	for i, a := range p.Actions {
		out.Actions[i] = CatalogAction(a)
	}
	return out
}

// inner is the catalog's own, made empty for a zero Catalog.
func (c *Catalog) inner() *catalog.Catalog {
	c.once.Do(func() {
		if c.c == nil {
			c.c = new(catalog.Catalog)
		}
	})
	return c.c
}
