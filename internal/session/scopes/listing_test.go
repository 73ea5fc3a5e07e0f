package scopes

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/internal/coverage"
	"github.com/memidx/memidx/internal/session/listing"
	"github.com/memidx/memidx/internal/session/locate"
)

// A bucket that cannot be read: the resolver keeps what it found and says
// the answer is partial, with the listing's own reasons.
func TestResolveUnreadableBucket(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads every directory")
	}
	root := tempRoot(t)
	s := filepath.Join(root, "sessions")
	writeSession(t, filepath.Join(s, "-p", "T1_a.jsonl"), "a", "/p", time.Unix(1, 0))
	writeSession(t, filepath.Join(s, "-q", "T2_b.jsonl"), "b", "/q", time.Unix(2, 0))
	writeSession(t, filepath.Join(root, "ext", "T3_c.jsonl"), "c", "/e", time.Unix(3, 0))
	require.NoError(t, os.Symlink(filepath.Join(root, "ext"), filepath.Join(s, "-linked")))
	locked := filepath.Join(s, "-q")
	require.NoError(t, os.Chmod(locked, 0))
	t.Cleanup(func() { _ = os.Chmod(locked, 0o755) })
	res, err := (&Resolver{Dirs: locate.Dirs{SessionsRoot: s}, Env: locate.Env{Cwd: "/"}, TopLevelOnly: true}).Resolve(Scope{Kind: ScopeGlobal})
	require.NoError(t, err)
	assert.Equal(t, []string{filepath.Join(s, "-p", "T1_a.jsonl")}, paths(res.Refs))
	assert.Equal(t, []string{coverage.SourceUnavailable, listing.ReasonOutsideRoots}, res.Reasons)
}

// What lies deeper than the listing goes is reported by the resolver,
// never silently left out.
func TestResolveDepthBound(t *testing.T) {
	root := tempRoot(t)
	s := filepath.Join(root, "sessions")
	writeSession(t, filepath.Join(s, "-p", "T_x.jsonl"), "x", "/p", time.Unix(1, 0))
	dir := filepath.Join(s, "-p", "T_x")
	writeSession(t, filepath.Join(dir, "n.jsonl"), "n", "/p", time.Unix(1, 0))
	for i := range listing.MaxNestedDepth + 2 {
		dir = filepath.Join(dir, "d")
		writeSession(t, filepath.Join(dir, "n.jsonl"), "n", "/p", time.Unix(int64(2+i), 0))
	}
	res, err := (&Resolver{Dirs: locate.Dirs{SessionsRoot: s}, Env: locate.Env{Cwd: "/"}}).Resolve(Scope{Kind: ScopeGlobal})
	require.NoError(t, err)
	assert.Len(t, res.Refs, 1+listing.MaxNestedDepth)
	assert.Equal(t, []string{listing.ReasonMaxListingDepth}, res.Reasons)
}
