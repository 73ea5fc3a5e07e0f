package engine

import (
	"github.com/memidx/memidx/index"
	"github.com/memidx/memidx/session"
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
	// Notice is what the user should know about the setup: a
	// configuration key not taken as written, an index directory others
	// can read (see Engine.Notices).
	Notice = index.Notice
	// Env is the environment an engine finds OMP's directories from (home,
	// working directory, variables, profile); Options.Env replaces the
	// process's, for tests and sandboxed hosts. A nil LookupEnv means no
	// variables.
	Env = session.Env
	// Dirs are the OMP directories an engine uses (Engine.Dirs).
	Dirs = session.Dirs
)

// DefaultConfig is the configuration of an empty fabric.json: the spec's
// defaults, with IndexDir "" (the agent directory's default).
func DefaultConfig() Config { return index.DefaultConfig() }

// ProcessEnv is the process's environment, as Open uses it when
// Options.Env is nil.
func ProcessEnv() Env { return session.DefaultEnv() }

// EnvMap is an Env.LookupEnv that reads the variables of m.
func EnvMap(m map[string]string) func(key string) (string, bool) { return session.EnvMap(m) }
