package engine

import (
	"github.com/memidx/memidx/internal/catalog"
	"github.com/memidx/memidx/internal/index"
	"github.com/memidx/memidx/internal/session/locate"
)

// The types a host needs to open an engine and read its setup, so that
// importing engine is enough: they are the lower packages' own types under
// engine's names.
type (
	// Config is the memory configuration (the memory section of
	// fabric.json, with the spec's defaults): index directory, tiers,
	// budgets and the indexing policy. Options.Memory replaces the
	// configuration files with one.
	Config = index.Config
	// Env is the environment an engine finds OMP's directories from (home,
	// working directory, variables, profile); Options.Env replaces the
	// process's, for tests and sandboxed hosts. A nil LookupEnv means no
	// variables.
	Env = locate.Env
	// Dirs are the OMP directories an engine uses (Engine.Dirs).
	Dirs = locate.Dirs
	// Catalog is a capability catalog: the providers and actions that
	// tools.catalog, tools.search and tools.describe answer from
	// (Options.Catalog, Engine.Catalog). It is safe for concurrent use; a
	// host may Register and Unregister providers while the engine serves.
	Catalog = catalog.Catalog
	// CatalogProvider is one provider of a Catalog with its actions
	// (Catalog.Register).
	CatalogProvider = catalog.Provider
	// CatalogAction is one action of a CatalogProvider.
	CatalogAction = catalog.Action
)

// DefaultConfig is the configuration of an empty fabric.json: the spec's
// defaults, with IndexDir "" (the agent directory's default).
func DefaultConfig() Config { return index.DefaultConfig() }

// ProcessEnv is the process's environment, as Open uses it when
// Options.Env is nil.
func ProcessEnv() Env { return locate.DefaultEnv() }

// EnvMap is an Env.LookupEnv that reads the variables of m.
func EnvMap(m map[string]string) func(key string) (string, bool) { return locate.EnvMap(m) }

// DefaultCatalog is a new catalog holding only memidx's own memory
// provider: the one an engine serves when Options.Catalog is nil. A host
// adds its providers to it with Register.
func DefaultCatalog() *Catalog { return catalog.Default() }

// LoadCatalog reads a catalog file (the format of the catalog package's
// documentation, as memidx serve --catalog takes it). A malformed file is
// an error that names the offending member.
func LoadCatalog(path string) (*Catalog, error) { return catalog.Load(path) }

// MemoryCatalogProvider is memidx's own provider (memory.recall,
// memory.expand, memory.sessions), for a host that builds its catalog from
// its own providers and this one.
func MemoryCatalogProvider() CatalogProvider { return catalog.MemoryProvider() }

// Notice is what the user should know about the setup: a configuration key
// not taken as written, an index directory others can read (see
// Engine.Notices).
type Notice struct {
	File    string `json:"file"`
	Key     string `json:"key"`
	Message string `json:"message"`
}

// noticesOf are the configuration's notices under engine's type.
func noticesOf(ns []index.Notice) []Notice {
	if ns == nil {
		return nil
	}
	out := make([]Notice, 0, len(ns))
	for _, n := range ns {
		out = append(out, Notice(n))
	}
	return out
}
