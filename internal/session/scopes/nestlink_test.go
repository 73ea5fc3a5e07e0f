package scopes

import (
	"github.com/memidx/memidx/internal/session/listing"
	"github.com/memidx/memidx/internal/session/locate"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestListFollowsSymlinkedArtifacts: a symlinked artifacts directory (or
// a symlinked directory inside one) is followed when it stays inside the
// roots, its nested sessions listed at their canonical paths; one that
// leaves the roots is named in the reasons, so the answer is not
// complete; a loop or a dangling link hides nothing and says nothing.
func TestListFollowsSymlinkedArtifacts(t *testing.T) {
	type tree struct{ sessions, bucket, outside string }
	for _, tc := range []struct {
		name string
		// setup makes the links and returns the nested paths to list.
		setup  func(t *testing.T, tr tree) []string
		reason string
	}{
		{name: "artifacts dir linked inside", setup: func(t *testing.T, tr tree) []string {
			store := filepath.Join(tr.bucket, ".store", "T1_a")
			writeSession(t, filepath.Join(store, "sub.jsonl"), "sub", "/w", time.Unix(2, 0))
			require.NoError(t, os.Symlink(store, filepath.Join(tr.bucket, "T1_a")))
			return []string{filepath.Join(store, "sub.jsonl")}
		}},
		{name: "artifacts dir linked inside, relative", setup: func(t *testing.T, tr tree) []string {
			store := filepath.Join(tr.sessions, "-x", "kept")
			writeSession(t, filepath.Join(store, "sub.jsonl"), "sub", "/w", time.Unix(2, 0))
			writeSession(t, filepath.Join(store, "sub", "child.jsonl"), "child", "/w", time.Unix(3, 0))
			require.NoError(t, os.Symlink(filepath.Join("..", "-x", "kept"), filepath.Join(tr.bucket, "T1_a")))
			return []string{filepath.Join(store, "sub", "child.jsonl"), filepath.Join(store, "sub.jsonl")}
		}},
		{name: "subagent dir linked inside a real artifacts dir", setup: func(t *testing.T, tr tree) []string {
			store := filepath.Join(tr.bucket, ".store", "agent")
			writeSession(t, filepath.Join(store, "agent.child.jsonl"), "child", "/w", time.Unix(2, 0))
			writeSession(t, filepath.Join(tr.bucket, "T1_a", "agent.jsonl"), "agent", "/w", time.Unix(3, 0))
			require.NoError(t, os.Symlink(store, filepath.Join(tr.bucket, "T1_a", "agent")))
			return []string{filepath.Join(tr.bucket, "T1_a", "agent.jsonl"), filepath.Join(store, "agent.child.jsonl")}
		}},
		{name: "artifacts dir linked outside", reason: listing.ReasonOutsideRoots, setup: func(t *testing.T, tr tree) []string {
			writeSession(t, filepath.Join(tr.outside, "sub.jsonl"), "secret", "/s", time.Unix(2, 0))
			require.NoError(t, os.Symlink(tr.outside, filepath.Join(tr.bucket, "T1_a")))
			return nil
		}},
		{name: "subagent dir linked outside", reason: listing.ReasonOutsideRoots, setup: func(t *testing.T, tr tree) []string {
			writeSession(t, filepath.Join(tr.outside, "agent.child.jsonl"), "secret", "/s", time.Unix(2, 0))
			mkdirs(t, filepath.Join(tr.bucket, "T1_a"))
			require.NoError(t, os.Symlink(tr.outside, filepath.Join(tr.bucket, "T1_a", "agent")))
			return nil
		}},
		{name: "loop to the bucket", setup: func(t *testing.T, tr tree) []string {
			require.NoError(t, os.Symlink(".", filepath.Join(tr.bucket, "T1_a")))
			return nil
		}},
		{name: "loop between two artifacts dirs", setup: func(t *testing.T, tr tree) []string {
			a, b := filepath.Join(tr.bucket, ".a"), filepath.Join(tr.bucket, ".b")
			writeSession(t, filepath.Join(a, "in-a.jsonl"), "a", "/w", time.Unix(2, 0))
			writeSession(t, filepath.Join(b, "in-b.jsonl"), "b", "/w", time.Unix(3, 0))
			for _, l := range []string{"x", "y"} {
				require.NoError(t, os.Symlink(b, filepath.Join(a, l)))
				require.NoError(t, os.Symlink(a, filepath.Join(b, l)))
			}
			require.NoError(t, os.Symlink(a, filepath.Join(tr.bucket, "T1_a")))
			return []string{filepath.Join(b, "in-b.jsonl"), filepath.Join(a, "in-a.jsonl")}
		}},
		{name: "dangling", setup: func(t *testing.T, tr tree) []string {
			require.NoError(t, os.Symlink(filepath.Join(tr.bucket, "gone"), filepath.Join(tr.bucket, "T1_a")))
			return nil
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := tempRoot(t)
			tr := tree{sessions: filepath.Join(root, "sessions"), outside: filepath.Join(root, "outside")}
			tr.bucket = filepath.Join(tr.sessions, "-w")
			top := filepath.Join(tr.bucket, "T1_a.jsonl")
			writeSession(t, top, "top", "/w", time.Unix(1, 0))
			nested := tc.setup(t, tr)

			refs, err := listing.ListSessions(locate.Dirs{SessionsRoot: tr.sessions}, ListOptions{})
			if tc.reason != "" {
				requireSkipped(t, err, tc.reason)
			} else {
				require.NoError(t, err)
			}
			assert.Equal(t, append(nested, top), paths(refs))
			for _, r := range refs {
				assert.Equal(t, r.Path != top, r.Nested(), r.Path)
				rel, err := filepath.Rel(tr.sessions, r.Path)
				require.NoError(t, err)
				assert.Equal(t, strings.Split(rel, string(filepath.Separator))[0], r.Bucket(), r.Path)
			}

			res, err := (&Resolver{Dirs: locate.Dirs{SessionsRoot: tr.sessions}, Env: locate.Env{Cwd: "/"}}).Resolve(Scope{Kind: ScopeGlobal})
			require.NoError(t, err)
			if tc.reason != "" {
				assert.Equal(t, []string{tc.reason}, res.Reasons)
			} else {
				assert.Empty(t, res.Reasons)
			}
		})
	}
}
