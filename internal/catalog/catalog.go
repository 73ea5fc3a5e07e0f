package catalog

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/memidx/memidx/internal/analyzer"
)

// ErrInvalid is wrapped by every error of [New], [Catalog.Register], [Load]
// and [Decode] that rejects a provider or action (see the package
// documentation for the rules).
var ErrInvalid = errors.New("invalid capability catalog")

// Action is one registered action of a provider.
type Action struct {
	// Ref is "<provider>.<name>". It may be left empty: [New] and
	// [Catalog.Register] fill it in; when set, it must be exactly that.
	Ref string
	// Provider is the name of the provider. It may be left empty and is
	// filled in like Ref.
	Provider string
	// Name is the action's name within its provider; required.
	Name string
	// Description is the free text shown in the catalog and searched.
	Description string
	// InputSchema and OutputSchema are JSON Schema documents (an object or
	// a boolean); nil or JSON null means none. They are stored compacted,
	// with the author's key order.
	InputSchema  json.RawMessage
	OutputSchema json.RawMessage
	// Risk says what the action may do, such as "read", "write" or
	// "execute"; required.
	Risk string
	// Namespace and Effect are optional free-form labels.
	Namespace string
	Effect    string
	// Quarantined hides the action from the catalog, search and describe.
	Quarantined bool
}

// Provider is a named group of actions.
type Provider struct {
	// Name is the provider's name; required, without ".".
	Name        string
	Description string
	Actions     []Action
}

// Catalog is a thread-safe set of providers. The zero value is an empty
// catalog ready to use; it must not be copied after first use.
type Catalog struct {
	mu        sync.Mutex           // serializes writers
	providers map[string]*provider // guarded by mu; values are immutable
	snap      atomic.Pointer[snapshot]
}

// New returns a catalog of the providers, or an error wrapping
// [ErrInvalid] when one of them is invalid or two share a name.
func New(providers ...Provider) (*Catalog, error) {
	c := &Catalog{providers: make(map[string]*provider, len(providers))}
	for _, p := range providers {
		pp, err := prepareProvider(p)
		if err != nil {
			return nil, err
		}
		if _, dup := c.providers[pp.name]; dup {
			return nil, invalidf("duplicate provider %q", pp.name)
		}
		c.providers[pp.name] = pp
	}
	c.snap.Store(buildSnapshot(c.providers))
	return c, nil
}

// Register adds p, or replaces the provider of the same name with it. An
// invalid p is refused with an error wrapping [ErrInvalid] and leaves the
// catalog unchanged. Readers see either the old or the new provider, never
// a mixture.
func (c *Catalog) Register(p Provider) error {
	pp, err := prepareProvider(p)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	next := c.copyProviders()
	next[pp.name] = pp
	c.publish(next)
	return nil
}

// Unregister removes the provider named name and reports whether it was
// registered.
func (c *Catalog) Unregister(name string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.providers[name]; !ok {
		return false
	}
	next := c.copyProviders()
	delete(next, name)
	c.publish(next)
	return true
}

// SetQuarantined hides (q true) or restores (q false) the action with the
// qualified ref. It returns a [*coverage.Error] with [coverage.ActionNotFound]
// when no registered action has that ref.
func (c *Catalog) SetQuarantined(ref string, q bool) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, p := range c.providers {
		i := slices.IndexFunc(p.actions, func(a *action) bool { return a.Ref == ref })
		if i < 0 {
			continue
		}
		if p.actions[i].Quarantined == q {
			return nil
		}
		np := *p
		np.actions = slices.Clone(p.actions)
		na := *p.actions[i]
		na.Quarantined = q
		np.actions[i] = &na
		next := c.copyProviders()
		next[np.name] = &np
		c.publish(next)
		return nil
	}
	return notFound(ref)
}

// Providers returns a copy of every registered provider, quarantined actions
// included, providers by name and actions by ref, with Ref and Provider
// filled in and schemas compacted.
func (c *Catalog) Providers() []Provider {
	s := c.snapshot()
	out := make([]Provider, len(s.all))
	for i, p := range s.all {
		out[i] = Provider{Name: p.name, Description: p.description, Actions: make([]Action, len(p.actions))}
		for j, a := range p.actions {
			out[i].Actions[j] = a.public()
		}
	}
	return out
}

// copyProviders returns a shallow copy of the provider map; c.mu is held.
func (c *Catalog) copyProviders() map[string]*provider {
	next := make(map[string]*provider, len(c.providers)+1)
	for k, v := range c.providers {
		next[k] = v
	}
	return next
}

// publish installs providers and their snapshot; c.mu is held.
func (c *Catalog) publish(providers map[string]*provider) {
	c.providers = providers
	c.snap.Store(buildSnapshot(providers))
}

var emptySnapshot = buildSnapshot(nil)

func (c *Catalog) snapshot() *snapshot {
	if s := c.snap.Load(); s != nil {
		return s
	}
	return emptySnapshot
}

// action is a validated action with everything a read needs precomputed.
// It is immutable once published.
type action struct {
	Action
	head ActionHead
	// Search fields: NFKC-normalized and lowercased.
	lref, lname, ldesc, lns, lschema string
}

func (a *action) public() Action {
	p := a.Action
	p.InputSchema = slices.Clone(a.InputSchema)
	p.OutputSchema = slices.Clone(a.OutputSchema)
	return p
}

// provider is a validated provider; actions are sorted by ref and include
// quarantined ones.
type provider struct {
	name, description string
	lname, ldesc      string
	actions           []*action
}

// snapshot is one immutable published state of a catalog.
type snapshot struct {
	all       []*provider    // every provider, by name
	providers []providerView // every provider, by name, visible actions only
	actions   []*visible     // every visible action, by ref
	byRef     map[string]*action
	byName    map[string][]*action // bare name -> visible and quarantined actions, by ref
	root      RootHead
}

type providerView struct {
	p       *provider
	head    ProviderHead // Actions left nil
	actions []*action
}

// visible is a visible action together with its provider.
type visible struct {
	a *action
	p *provider
}

func buildSnapshot(providers map[string]*provider) *snapshot {
	s := &snapshot{
		byRef:  make(map[string]*action),
		byName: make(map[string][]*action),
	}
	for _, p := range providers {
		s.all = append(s.all, p)
	}
	slices.SortFunc(s.all, func(a, b *provider) int { return analyzer.CompareUTF16(a.name, b.name) })
	providerHashes := make([]string, 0, len(s.all))
	for _, p := range s.all {
		v := providerView{p: p}
		hashes := make([]string, 0, len(p.actions))
		for _, a := range p.actions {
			s.byRef[a.Ref] = a
			s.byName[a.Name] = append(s.byName[a.Name], a)
			if a.Quarantined {
				continue
			}
			v.actions = append(v.actions, a)
			hashes = append(hashes, a.head.DescriptorHash)
			s.actions = append(s.actions, &visible{a: a, p: p})
		}
		h := providerHash(p.name, p.description, hashes)
		v.head = ProviderHead{
			Key:            "provider:" + p.name,
			ParentKey:      RootKey,
			Name:           p.name,
			Description:    p.description,
			DescriptorHash: h,
		}
		providerHashes = append(providerHashes, h)
		s.providers = append(s.providers, v)
	}
	slices.SortFunc(s.actions, func(a, b *visible) int { return analyzer.CompareUTF16(a.a.Ref, b.a.Ref) })
	for _, list := range s.byName {
		slices.SortFunc(list, func(a, b *action) int { return analyzer.CompareUTF16(a.Ref, b.Ref) })
	}
	s.root = RootHead{
		Key:            RootKey,
		Name:           RootName,
		Description:    RootDescription,
		DescriptorHash: rootHash(providerHashes),
	}
	return s
}

// invalidError is a validation error; it wraps [ErrInvalid].
type invalidError struct {
	path string // the file, for Load
	msg  string
}

func (e *invalidError) Error() string {
	if e.path != "" {
		return "catalog: " + e.path + ": " + ErrInvalid.Error() + ": " + e.msg
	}
	return "catalog: " + ErrInvalid.Error() + ": " + e.msg
}

func (e *invalidError) Unwrap() error { return ErrInvalid }

func invalidf(format string, args ...any) error {
	return &invalidError{msg: fmt.Sprintf(format, args...)}
}
