package scopes

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/internal/session/listing"
	"github.com/memidx/memidx/internal/session/sessiontest"
)

// The session tree builders of every session package's tests.
var (
	tempRoot     = sessiontest.TempRoot
	mkdirs       = sessiontest.Mkdirs
	writeSession = sessiontest.WriteSession
	writeFile    = sessiontest.WriteFile
)

func paths(refs []Ref) []string {
	out := make([]string, len(refs))
	for i, r := range refs {
		out[i] = r.Path
	}
	return out
}

// requireSkipped asserts that a listing's error names exactly the files it
// left out on purpose, with these reasons, and nothing unreadable.
func requireSkipped(t *testing.T, err error, want ...string) {
	t.Helper()
	reasons, unavailable := listing.ListReasons(err)
	require.False(t, unavailable, "%v", err)
	require.NotEmpty(t, reasons)
	for _, r := range reasons {
		require.Contains(t, want, r, "%v", err)
	}
}
