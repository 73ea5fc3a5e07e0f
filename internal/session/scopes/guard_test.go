package scopes

import (
	"github.com/memidx/memidx/internal/session/listing"
	"github.com/memidx/memidx/internal/session/locate"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A *.jsonl symlink in a bucket that resolves outside the session roots is
// skipped with a reason, never listed (its hash and mtime would be
// reported); one that stays inside keeps working.
func TestListSkipsSymlinkOutsideRoots(t *testing.T) {
	root := tempRoot(t)
	s := filepath.Join(root, "sessions")
	secret := filepath.Join(root, "secret")
	writeFile(t, secret, "root:$6$hash:19000:0:99999:7:::\n")
	writeSession(t, filepath.Join(s, "-w", "T1_a.jsonl"), "a", "/w", time.Unix(1, 0))
	require.NoError(t, os.Symlink(secret, filepath.Join(s, "-w", "x.jsonl")))
	require.NoError(t, os.Symlink(filepath.Join(s, "-w", "T1_a.jsonl"), filepath.Join(s, "-w", "inside.jsonl")))

	refs, err := listing.ListSessions(locate.Dirs{SessionsRoot: s}, ListOptions{})
	requireSkipped(t, err, listing.ReasonOutsideRoots)
	assert.Equal(t, []string{filepath.Join(s, "-w", "T1_a.jsonl")}, paths(refs))

	res, err := (&Resolver{Dirs: locate.Dirs{SessionsRoot: s}, Env: locate.Env{Cwd: "/"}}).Resolve(Scope{Kind: ScopeGlobal})
	require.NoError(t, err)
	assert.Equal(t, []string{listing.ReasonOutsideRoots}, res.Reasons)
	assert.Len(t, res.Refs, 1)
}

// A file name that is not valid UTF-8 would not survive a JSON follow
// token; it is left out with a reason instead of answering
// session_not_found later.
func TestListSkipsInvalidUTF8Names(t *testing.T) {
	root := tempRoot(t)
	s := filepath.Join(root, "sessions")
	bad := filepath.Join(s, "-w", "T1_\xff\xfe.jsonl")
	if err := os.MkdirAll(filepath.Dir(bad), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, []byte(`{"type":"session","version":3,"id":"bad","cwd":"/w"}`+"\n"), 0o644); err != nil {
		t.Skipf("this file system refuses non-UTF-8 names: %v", err)
	}
	writeSession(t, filepath.Join(s, "-w", "T2_ok.jsonl"), "ok", "/w", time.Unix(1, 0))

	refs, err := listing.ListSessions(locate.Dirs{SessionsRoot: s}, ListOptions{})
	requireSkipped(t, err, listing.ReasonInvalidFileName)
	assert.Equal(t, []string{filepath.Join(s, "-w", "T2_ok.jsonl")}, paths(refs))

	r := &Resolver{Dirs: locate.Dirs{SessionsRoot: s}, Env: locate.Env{Cwd: "/"}}
	res, err := r.Resolve(Scope{Kind: ScopeSessionTarget, Target: bad})
	require.NoError(t, err)
	require.NotNil(t, res.Error)
	assert.Contains(t, res.Error.Message, "not valid UTF-8")
}
