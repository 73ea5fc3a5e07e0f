package sessiontest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/memidx/memidx/internal/session/locate"
)

// ScopeFixture is a home with an OMP agent dir, two spellings of the
// project's bucket, another project, and an explicit session dir: the
// tree the scope tests (package scopes) and the watch tests (package
// listing) resolve every scope kind over.
type ScopeFixture struct {
	Root, Home, App, Other, Custom       string
	Env                                  locate.Env
	Dirs                                 locate.Dirs
	Sessions, Canon, Legacy, OtherBucket string
	T0                                   time.Time
}

// NewScopeFixture writes the tree: sessions in both spellings of the
// project's bucket (one with a nested subagent session), another
// project's sessions (one id shared across projects), and a temp and a
// lock file OMP leaves beside a session.
func NewScopeFixture(t *testing.T) *ScopeFixture {
	root := TempRoot(t)
	f := &ScopeFixture{
		Root:   root,
		Home:   filepath.Join(root, "home", "u"),
		Custom: filepath.Join(root, "custom"),
		T0:     time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC),
	}
	f.App = filepath.Join(f.Home, "src", "app")
	f.Other = filepath.Join(f.Home, "src", "other")
	Mkdirs(t, f.App, f.Other, filepath.Join(root, "tmp"))
	if err := os.Symlink(f.App, filepath.Join(root, "applink")); err != nil {
		t.Fatal(err)
	}
	f.Env = locate.Env{Home: f.Home, TmpDir: filepath.Join(root, "tmp"), Cwd: f.App, LookupEnv: locate.EnvMap(nil), GOOS: "linux"}
	d, err := locate.ResolveAgentDir(f.Env)
	if err != nil {
		t.Fatal(err)
	}
	f.Dirs = d
	f.Sessions = d.SessionsRoot
	f.Canon = filepath.Join(f.Sessions, "-src-app")
	f.Legacy = filepath.Join(f.Sessions, LegacyBucket(f.App))
	f.OtherBucket = filepath.Join(f.Sessions, "-src-other")

	f.Write(t, filepath.Join(f.Canon, "T1_id1.jsonl"), "id1", f.App, 100)
	f.Write(t, filepath.Join(f.Canon, "T1_id1", "sub.jsonl"), "sub-id", f.App, 500)
	f.Write(t, filepath.Join(f.Legacy, "T2_id2.jsonl"), "id2", f.App, 200)
	f.Write(t, filepath.Join(f.OtherBucket, "T3_id3.jsonl"), "id3", f.Other, 300)
	f.Write(t, filepath.Join(f.OtherBucket, "T4_dup.jsonl"), "dup", f.Other, 50)
	f.Write(t, filepath.Join(f.Canon, "T5_dup.jsonl"), "dup", f.App, 60)
	f.Write(t, filepath.Join(f.OtherBucket, "T7_nameid.jsonl"), "real7", f.Other, 70)
	WriteFile(t, filepath.Join(f.Canon, ".T1_id1.jsonl.0123456789abcdef.tmp"), "{}")
	WriteFile(t, filepath.Join(f.Canon, ".T1_id1.jsonl.lock"), "")
	return f
}

// Write writes a session of id and cwd at path, its mtime ns after T0.
func (f *ScopeFixture) Write(t *testing.T, path, id, cwd string, ns int) {
	t.Helper()
	WriteSession(t, path, id, cwd, f.T0.Add(time.Duration(ns)))
}

// LegacyBucket is OMP's bucket name of an absolute cwd before OMP 17.2.5.
func LegacyBucket(abs string) string {
	return "--" + strings.NewReplacer("/", "-", "\\", "-", ":", "-").Replace(strings.TrimPrefix(abs, "/")) + "--"
}
