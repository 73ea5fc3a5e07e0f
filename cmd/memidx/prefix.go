package main

import (
	"github.com/memidx/memidx/engine"
)

// Session id prefixes resolve in the engine, for every surface alike (see
// engine.MinSessionPrefix): a unique prefix of at least 8 characters names
// its session, a shared one is ambiguous_session with the candidates. The
// CLI passes what the user typed on unchanged; these two remain only so
// that the commands keep one place that says so.

// sessionPrefix returns x: the engine resolves it.
func sessionPrefix(_ *engine.Engine, x string) (string, error) { return x, nil }

// scopePrefix returns scope: the engine resolves session:<prefix>.
func scopePrefix(_ *engine.Engine, scope engine.Scope) (engine.Scope, error) { return scope, nil }
