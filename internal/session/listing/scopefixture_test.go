package listing_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/internal/session/locate"
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

// scopeFixture is a home with an OMP agent dir, two spellings of the
// project's bucket, another project, and an explicit session dir.
type scopeFixture struct {
	root, home, app, other, custom       string
	env                                  locate.Env
	dirs                                 locate.Dirs
	sessions, canon, legacy, otherBucket string
	t0                                   time.Time
}

func newScopeFixture(t *testing.T) *scopeFixture {
	root := tempRoot(t)
	f := &scopeFixture{
		root:   root,
		home:   filepath.Join(root, "home", "u"),
		custom: filepath.Join(root, "custom"),
		t0:     time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC),
	}
	f.app = filepath.Join(f.home, "src", "app")
	f.other = filepath.Join(f.home, "src", "other")
	mkdirs(t, f.app, f.other, filepath.Join(root, "tmp"))
	require.NoError(t, os.Symlink(f.app, filepath.Join(root, "applink")))
	f.env = locate.Env{Home: f.home, TmpDir: filepath.Join(root, "tmp"), Cwd: f.app, LookupEnv: locate.EnvMap(nil), GOOS: "linux"}
	d, err := locate.ResolveAgentDir(f.env)
	require.NoError(t, err)
	f.dirs = d
	f.sessions = d.SessionsRoot
	f.canon = filepath.Join(f.sessions, "-src-app")
	f.legacy = filepath.Join(f.sessions, legacyBucket(f.app))
	f.otherBucket = filepath.Join(f.sessions, "-src-other")

	f.write(t, filepath.Join(f.canon, "T1_id1.jsonl"), "id1", f.app, 100)
	f.write(t, filepath.Join(f.canon, "T1_id1", "sub.jsonl"), "sub-id", f.app, 500)
	f.write(t, filepath.Join(f.legacy, "T2_id2.jsonl"), "id2", f.app, 200)
	f.write(t, filepath.Join(f.otherBucket, "T3_id3.jsonl"), "id3", f.other, 300)
	f.write(t, filepath.Join(f.otherBucket, "T4_dup.jsonl"), "dup", f.other, 50)
	f.write(t, filepath.Join(f.canon, "T5_dup.jsonl"), "dup", f.app, 60)
	f.write(t, filepath.Join(f.otherBucket, "T7_nameid.jsonl"), "real7", f.other, 70)
	writeFile(t, filepath.Join(f.canon, ".T1_id1.jsonl.0123456789abcdef.tmp"), "{}")
	writeFile(t, filepath.Join(f.canon, ".T1_id1.jsonl.lock"), "")
	return f
}

func (f *scopeFixture) write(t *testing.T, path, id, cwd string, ns int) {
	t.Helper()
	writeSession(t, path, id, cwd, f.t0.Add(time.Duration(ns)))
}

func resolve(t *testing.T, r *scopes.Resolver, scope string) scopes.Resolution {
	t.Helper()
	s, err := scopes.ParseScope(scope)
	require.NoError(t, err)
	res, err := r.Resolve(s)
	require.NoError(t, err)
	require.NotNil(t, res.Reasons)
	return res
}

// legacyBucket is OMP's bucket name of an absolute cwd before OMP 17.2.5.
func legacyBucket(abs string) string {
	return "--" + strings.NewReplacer("/", "-", "\\", "-", ":", "-").Replace(strings.TrimPrefix(abs, "/")) + "--"
}
