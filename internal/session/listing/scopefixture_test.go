package listing_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/internal/session/scopes"
	"github.com/memidx/memidx/internal/session/sessiontest"
)

// The watch tests resolve every scope kind over the scope tests' tree
// (package scopes), with and without a ListCache.

var (
	tempRoot     = sessiontest.TempRoot
	mkdirs       = sessiontest.Mkdirs
	writeSession = sessiontest.WriteSession
	writeFile    = sessiontest.WriteFile
)

// scopeFixture is the scope tests' tree (sessiontest.ScopeFixture).
type scopeFixture = sessiontest.ScopeFixture

var newScopeFixture = sessiontest.NewScopeFixture

func resolve(t *testing.T, r *scopes.Resolver, scope string) scopes.Resolution {
	t.Helper()
	s, err := scopes.ParseScope(scope)
	require.NoError(t, err)
	res, err := r.Resolve(s)
	require.NoError(t, err)
	require.NotNil(t, res.Reasons)
	return res
}
