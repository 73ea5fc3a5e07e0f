package scopes

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/internal/coverage"
	"github.com/memidx/memidx/internal/session/sessiontest"
)

func TestParseScope(t *testing.T) {
	valid := []struct {
		in   string
		want Scope
	}{
		{"", Scope{Kind: ScopeSession}},
		{"session", Scope{Kind: ScopeSession}},
		{"current", Scope{Kind: ScopeSession}},
		{" project ", Scope{Kind: ScopeProject}},
		{"cwd", Scope{Kind: ScopeProject}},
		{"repo", Scope{Kind: ScopeProject}},
		{"directory", Scope{Kind: ScopeProject}},
		{"folder", Scope{Kind: ScopeProject}},
		{"global", Scope{Kind: ScopeGlobal}},
		{"session:abc", Scope{Kind: ScopeSessionTarget, Target: "abc"}},
		{"session:  /x/y z.jsonl \t", Scope{Kind: ScopeSessionTarget, Target: "/x/y z.jsonl"}},
		{"session:session:x", Scope{Kind: ScopeSessionTarget, Target: "session:x"}},
	}
	for _, tc := range valid {
		got, err := ParseScope(tc.in)
		require.NoError(t, err, "%q", tc.in)
		assert.Equal(t, tc.want, got, "%q", tc.in)
	}
	assert.Equal(t, "session:abc", Scope{Kind: ScopeSessionTarget, Target: "abc"}.String())
	assert.Equal(t, "project", Scope{Kind: ScopeProject}.String())

	for _, in := range []string{"projects", "all", "ALL", "Global", "session:", "session:   ", "session-abc",
		"sessions", "project:foo", "global:x", "*", "none", "\x00"} {
		_, err := ParseScope(in)
		var ce *coverage.Error
		require.ErrorAs(t, err, &ce, "%q", in)
		assert.Equal(t, coverage.InvalidScope, ce.Code, "%q", in)
		assert.Contains(t, ce.Message, "session:<id-or-path>", "%q", in)
	}
	_, err := ParseScope("all")
	assert.Contains(t, err.Error(), `ask for "global" explicitly`)
}

// scopeFixture is the scope tests' tree (sessiontest.ScopeFixture).
type scopeFixture = sessiontest.ScopeFixture

var newScopeFixture = sessiontest.NewScopeFixture

func resolverOf(f *scopeFixture) *Resolver {
	return &Resolver{Dirs: f.Dirs, Env: f.Env}
}

func resolve(t *testing.T, r *Resolver, scope string) Resolution {
	t.Helper()
	s, err := ParseScope(scope)
	require.NoError(t, err)
	res, err := r.Resolve(s)
	require.NoError(t, err)
	require.NotNil(t, res.Reasons)
	return res
}

func TestResolveSession(t *testing.T) {
	f := newScopeFixture(t)
	r := resolverOf(f)

	// Newest top-level session across every spelling of the bucket; the
	// newer nested subagent session is not "the current session".
	res := resolve(t, r, "")
	assert.Nil(t, res.Error)
	assert.Empty(t, res.Reasons)
	assert.Equal(t, []string{filepath.Join(f.Legacy, "T2_id2.jsonl")}, paths(res.Refs))
	assert.Equal(t, []string{f.Canon, f.Legacy}, res.Searched)

	// The host's live session wins, also when relative to the cwd.
	cur := filepath.Join(f.OtherBucket, "T3_id3.jsonl")
	r.CurrentSessionFile = cur
	assert.Equal(t, []string{cur}, paths(resolve(t, r, "session").Refs))
	rel, err := filepath.Rel(f.App, cur)
	require.NoError(t, err)
	r.CurrentSessionFile = rel
	assert.Equal(t, []string{cur}, paths(resolve(t, r, "current").Refs))

	// A live session that is not written yet is not replaced by another.
	r.CurrentSessionFile = filepath.Join(f.Canon, "T9_lazy.jsonl")
	res = resolve(t, r, "session")
	assert.Empty(t, res.Refs)
	assert.Nil(t, res.Error)
	assert.Equal(t, []string{ReasonCurrentSessionMissing}, res.Reasons)

	// A cwd without any bucket.
	r = resolverOf(f)
	r.Cwd = filepath.Join(f.Home, "src", "new")
	res = resolve(t, r, "session")
	assert.Empty(t, res.Refs)
	assert.Equal(t, []string{ReasonNoSession, coverage.ProjectSessionDirMissing}, res.Reasons)

	// A bucket with no session in it.
	mkdirs(t, filepath.Join(f.Sessions, "-src-new"))
	res = resolve(t, r, "session")
	assert.Empty(t, res.Refs)
	assert.Equal(t, []string{ReasonNoSession}, res.Reasons)
}

func TestResolveSessionSymlinkedCwd(t *testing.T) {
	f := newScopeFixture(t)
	r := resolverOf(f)
	r.Cwd = filepath.Join(f.Root, "applink")
	res := resolve(t, r, "session")
	assert.Equal(t, []string{filepath.Join(f.Legacy, "T2_id2.jsonl")}, paths(res.Refs))
}

func TestResolveProject(t *testing.T) {
	f := newScopeFixture(t)
	r := resolverOf(f)
	res := resolve(t, r, "project")
	assert.Nil(t, res.Error)
	assert.Empty(t, res.Reasons)
	assert.Equal(t, []string{
		filepath.Join(f.Canon, "T1_id1", "sub.jsonl"),
		filepath.Join(f.Legacy, "T2_id2.jsonl"),
		filepath.Join(f.Canon, "T1_id1.jsonl"),
		filepath.Join(f.Canon, "T5_dup.jsonl"),
	}, paths(res.Refs))
	assert.Equal(t, []string{f.Canon, f.Legacy}, res.Searched)

	r.TopLevelOnly = true
	res = resolve(t, r, "cwd")
	assert.Len(t, res.Refs, 3)

	// No bucket: not an authoritative empty answer.
	r.Cwd = filepath.Join(f.Home, "src", "new")
	res = resolve(t, r, "project")
	assert.Empty(t, res.Refs)
	assert.Empty(t, res.Searched)
	assert.Equal(t, []string{coverage.ProjectSessionDirMissing}, res.Reasons)
}

func TestResolveProjectExplicitDir(t *testing.T) {
	f := newScopeFixture(t)
	// The header cwd is compared realpath'd: a symlinked spelling matches.
	f.Write(t, filepath.Join(f.Custom, "C1_c1.jsonl"), "c1", filepath.Join(f.Root, "applink"), 1000)
	f.Write(t, filepath.Join(f.Custom, "C1_c1", "sub.jsonl"), "c1-sub", "/elsewhere", 1001)
	f.Write(t, filepath.Join(f.Custom, "C2_c2.jsonl"), "c2", f.Other, 1002)
	writeFile(t, filepath.Join(f.Custom, "C3_c3.jsonl"), "not a session\n")
	f.Write(t, filepath.Join(f.Custom, "C4_c4.jsonl"), "c4", "", 1003)

	r := resolverOf(f)
	r.Dirs.SessionDir = f.Custom
	res := resolve(t, r, "project")
	assert.Empty(t, res.Reasons)
	got := paths(res.Refs)
	assert.Equal(t, filepath.Join(f.Custom, "C1_c1", "sub.jsonl"), got[0], "nested session follows its parent")
	assert.Equal(t, filepath.Join(f.Custom, "C1_c1.jsonl"), got[1])
	assert.Len(t, got, 6)
	assert.Equal(t, []string{f.Canon, f.Legacy, f.Custom}, res.Searched)

	// Only the explicit dir exists: the answer is authoritative.
	require.NoError(t, os.RemoveAll(f.Sessions))
	res = resolve(t, r, "project")
	assert.Empty(t, res.Reasons)
	assert.Len(t, res.Refs, 2)

	// The session scope sees the explicit dir too.
	res = resolve(t, r, "session")
	assert.Equal(t, []string{filepath.Join(f.Custom, "C1_c1.jsonl")}, paths(res.Refs))
}

func TestResolveProjectCurrentSessionElsewhere(t *testing.T) {
	f := newScopeFixture(t)
	cur := filepath.Join(f.Root, "elsewhere", "mine.jsonl")
	f.Write(t, cur, "mine", f.App, 2000)
	r := resolverOf(f)
	r.CurrentSessionFile = cur
	// Outside the session roots: refused, and said so, in every scope.
	for _, scope := range []string{"session", "project", "global", "session:id1"} {
		res := resolve(t, r, scope)
		assert.NotContains(t, paths(res.Refs), cur, scope)
		assert.Contains(t, res.Reasons, ReasonCurrentSessionRefused, scope)
	}

	// Inside the explicit session dir it belongs to the project of its
	// header's cwd.
	r.Dirs.SessionDir = filepath.Dir(cur)
	assert.Contains(t, paths(resolve(t, r, "project").Refs), cur)
	assert.Contains(t, paths(resolve(t, r, "global").Refs), cur)

	f.Write(t, cur, "mine", f.Other, 2000)
	assert.NotContains(t, paths(resolve(t, r, "project").Refs), cur)
}

func TestResolveGlobal(t *testing.T) {
	f := newScopeFixture(t)
	r := resolverOf(f)
	res := resolve(t, r, "global")
	assert.Empty(t, res.Reasons)
	assert.Len(t, res.Refs, 7)
	assert.Equal(t, []string{f.Sessions}, res.Searched)
	for i := 1; i < len(res.Refs); i++ {
		assert.False(t, res.Refs[i].ModTime().After(res.Refs[i-1].ModTime()), "newest first")
	}

	f.Write(t, filepath.Join(f.Custom, "C1_c1.jsonl"), "c1", "/x", 1000)
	r.Dirs.SessionDir = f.Custom
	r.TopLevelOnly = true
	res = resolve(t, r, "global")
	assert.Len(t, res.Refs, 7)
	assert.Equal(t, filepath.Join(f.Custom, "C1_c1.jsonl"), res.Refs[0].Path)

	// Global never falls back to anything: a wrong agent dir says so.
	r = resolverOf(f)
	r.Dirs.SessionsRoot = filepath.Join(f.Root, "nope")
	res = resolve(t, r, "global")
	assert.Empty(t, res.Refs)
	assert.Equal(t, []string{ReasonSessionsRootMissing}, res.Reasons)
}

func TestResolveTargetByID(t *testing.T) {
	f := newScopeFixture(t)
	r := resolverOf(f)
	r.Cwd = f.Other // session:<id> is not limited to the project

	tests := []struct {
		target, want string
	}{
		{"id1", filepath.Join(f.Canon, "T1_id1.jsonl")},
		{"id2", filepath.Join(f.Legacy, "T2_id2.jsonl")},
		{"sub-id", filepath.Join(f.Canon, "T1_id1", "sub.jsonl")},   // header only: nested file name
		{"real7", filepath.Join(f.OtherBucket, "T7_nameid.jsonl")},  // header id, name differs
		{"nameid", filepath.Join(f.OtherBucket, "T7_nameid.jsonl")}, // id part of the file name
		{"T3_id3", filepath.Join(f.OtherBucket, "T3_id3.jsonl")},    // file stem
		{"T3_id3.jsonl", filepath.Join(f.OtherBucket, "T3_id3.jsonl")},
		{"sub", filepath.Join(f.Canon, "T1_id1", "sub.jsonl")}, // stem of a nested file
	}
	for _, tc := range tests {
		res := resolve(t, r, "session:"+tc.target)
		require.Nil(t, res.Error, "%s: %v", tc.target, res.Error)
		assert.Equal(t, []string{tc.want}, paths(res.Refs), tc.target)
	}
}

func TestResolveTargetAmbiguous(t *testing.T) {
	f := newScopeFixture(t)
	r := resolverOf(f)
	res := resolve(t, r, "session:dup")
	require.NotNil(t, res.Error)
	assert.Equal(t, coverage.AmbiguousSession, res.Error.Code)
	assert.Empty(t, res.Refs)
	want := []string{filepath.Join(f.Canon, "T5_dup.jsonl"), filepath.Join(f.OtherBucket, "T4_dup.jsonl")}
	assert.Equal(t, want, res.Candidates)
	for _, c := range want {
		assert.Contains(t, res.Error.Message, c)
	}
	var amb *AmbiguousError
	require.ErrorAs(t, res.Err(), &amb)
	assert.Equal(t, "dup", amb.Session)
	assert.Equal(t, want, amb.Candidates)
	assert.Equal(t, coverage.AmbiguousSession, amb.Coverage().Code)

	// The same session file name in two buckets (a project moved or a
	// legacy bucket not migrated).
	f.Write(t, filepath.Join(f.Legacy, "T1_id1.jsonl"), "id1", f.App, 900)
	res = resolve(t, r, "session:id1")
	require.NotNil(t, res.Error)
	assert.Equal(t, coverage.AmbiguousSession, res.Error.Code)
	assert.Len(t, res.Candidates, 2)

	// Two stems that only match by name are ambiguous too.
	f.Write(t, filepath.Join(f.Canon, "T8_zz.jsonl"), "h1", f.App, 1)
	f.Write(t, filepath.Join(f.OtherBucket, "T9_zz.jsonl"), "h2", f.App, 2)
	res = resolve(t, r, "session:zz")
	require.NotNil(t, res.Error)
	assert.Equal(t, coverage.AmbiguousSession, res.Error.Code)
}

func TestResolveTargetScanAllHeaders(t *testing.T) {
	f := newScopeFixture(t)
	// A copy of a session under an unrelated name.
	f.Write(t, filepath.Join(f.OtherBucket, "copy.jsonl"), "id3", f.Other, 10)
	r := resolverOf(f)
	res := resolve(t, r, "session:id3")
	require.Nil(t, res.Error)
	assert.Equal(t, []string{filepath.Join(f.OtherBucket, "T3_id3.jsonl")}, paths(res.Refs))

	r.ScanAllHeaders = true
	res = resolve(t, r, "session:id3")
	require.NotNil(t, res.Error)
	assert.Equal(t, coverage.AmbiguousSession, res.Error.Code)
}

func TestResolveTargetNotFound(t *testing.T) {
	f := newScopeFixture(t)
	r := resolverOf(f)
	for _, target := range []string{"nope", "ID1", "id", "T1", "nope.jsonl", "./nope.jsonl", "/no/such/file.jsonl", "~/x.jsonl", "..", "."} {
		res := resolve(t, r, "session:"+target)
		require.NotNil(t, res.Error, target)
		assert.Equal(t, coverage.SessionNotFound, res.Error.Code, target)
		assert.Empty(t, res.Refs, target)
		var ce *coverage.Error
		require.ErrorAs(t, res.Err(), &ce)
	}
}

func TestResolveTargetPath(t *testing.T) {
	f := newScopeFixture(t)
	r := resolverOf(f)
	id1 := filepath.Join(f.Canon, "T1_id1.jsonl")

	// Absolute, relative, with "..": one canonical path.
	rel, err := filepath.Rel(f.App, id1)
	require.NoError(t, err)
	for _, target := range []string{id1, rel, filepath.Join(f.Canon, "..", "-src-app", "T1_id1.jsonl")} {
		res := resolve(t, r, "session:"+target)
		require.Nil(t, res.Error, target)
		require.Len(t, res.Refs, 1)
		assert.Equal(t, id1, res.Refs[0].Path, target)
		assert.Equal(t, "-src-app", res.Refs[0].Bucket())
		assert.False(t, res.Refs[0].Nested())
	}

	// A symlink resolves to its target.
	link := filepath.Join(f.Canon, "link.jsonl")
	require.NoError(t, os.Symlink(id1, link))
	res := resolve(t, r, "session:"+link)
	assert.Equal(t, []string{id1}, paths(res.Refs))

	// A nested file is reported as nested.
	res = resolve(t, r, "session:"+filepath.Join(f.Canon, "T1_id1", "sub.jsonl"))
	require.Len(t, res.Refs, 1)
	assert.True(t, res.Refs[0].Nested())

	// A session file inside the roots is accepted by path whatever its
	// name; a file without a session header is not a session, whatever
	// its name.
	odd := filepath.Join(f.Canon, "notes.txt")
	writeFile(t, odd, `{"type":"session","version":3,"id":"odd","cwd":"/x"}`+"\n")
	res = resolve(t, r, "session:"+odd)
	assert.Equal(t, []string{odd}, paths(res.Refs))
	for _, name := range []string{"passwd", "passwd.jsonl"} {
		plain := filepath.Join(f.Canon, name)
		writeFile(t, plain, "root:x:0:0:root:/root:/bin/bash\n"+`{"type":"message","id":"a","parentId":null,"message":{"role":"user","content":"x"}}`+"\n")
		res = resolve(t, r, "session:"+plain)
		require.NotNil(t, res.Error, name)
		assert.Equal(t, coverage.SessionNotFound, res.Error.Code)
		assert.Contains(t, res.Error.Message, "not an OMP session file")
	}

	// A session file outside the session roots is refused: by path, by a
	// bare name in the cwd, and through a symlink inside the roots.
	outside := filepath.Join(f.Root, "elsewhere", "T9_out.jsonl")
	f.Write(t, outside, "out", f.App, 1)
	local := filepath.Join(f.App, "local.jsonl")
	f.Write(t, local, "local", f.App, 1)
	inLink := filepath.Join(f.Canon, "T9_in.jsonl")
	require.NoError(t, os.Symlink(outside, inLink))
	for _, target := range []string{outside, "local.jsonl", inLink} {
		res = resolve(t, r, "session:"+target)
		require.NotNil(t, res.Error, target)
		assert.Equal(t, coverage.SessionNotFound, res.Error.Code, target)
		assert.Empty(t, res.Refs, target)
	}
	res = resolve(t, r, "session:"+outside)
	assert.Contains(t, res.Error.Message, "outside the session roots")

	// Reached through a symlinked agent dir, paths keep the root's spelling.
	agentLink := filepath.Join(f.Root, "agentlink")
	require.NoError(t, os.Symlink(f.Dirs.AgentDir, agentLink))
	r2 := resolverOf(f)
	r2.Dirs.SessionsRoot = filepath.Join(agentLink, "sessions")
	res = resolve(t, r2, "session:"+id1)
	assert.Equal(t, []string{filepath.Join(agentLink, "sessions", "-src-app", "T1_id1.jsonl")}, paths(res.Refs))
	res2 := resolve(t, r2, "session:id1")
	assert.Equal(t, paths(res.Refs), paths(res2.Refs), "path and id resolve to the same Path")
}

func TestResolveTargetNotAFile(t *testing.T) {
	f := newScopeFixture(t)
	r := resolverOf(f)
	targets := []string{f.Canon, filepath.Join(f.Canon, "T1_id1")}
	if st, err := os.Stat("/dev/zero"); err == nil && !st.Mode().IsRegular() {
		targets = append(targets, "/dev/zero")
	}
	fifo := filepath.Join(f.Root, "fifo.jsonl")
	if err := exec.Command("mkfifo", fifo).Run(); err == nil {
		targets = append(targets, fifo)
	}
	for _, target := range targets {
		done := make(chan Resolution, 1)
		go func() {
			s := Scope{Kind: ScopeSessionTarget, Target: target}
			res, _ := r.Resolve(s)
			done <- res
		}()
		select {
		case res := <-done:
			require.NotNil(t, res.Error, target)
			assert.Equal(t, coverage.SessionNotFound, res.Error.Code, target)
			assert.Contains(t, res.Error.Message, "not a regular file", target)
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: Resolve blocked", target)
		}
	}
}

func TestResolveTargetCurrentSessionFile(t *testing.T) {
	f := newScopeFixture(t)
	cur := filepath.Join(f.Root, "elsewhere", "T_mine.jsonl")
	f.Write(t, cur, "mine", f.App, 1)
	r := resolverOf(f)
	r.CurrentSessionFile = cur
	// Outside the roots the host's file is refused like any other.
	res := resolve(t, r, "session:mine")
	assert.Equal(t, coverage.SessionNotFound, res.Error.Code)
	assert.Contains(t, res.Reasons, ReasonCurrentSessionRefused)

	r.Dirs.SessionDir = filepath.Dir(cur)
	res = resolve(t, r, "session:mine")
	assert.Equal(t, []string{cur}, paths(res.Refs))
}

func TestResolveInvalidKind(t *testing.T) {
	f := newScopeFixture(t)
	for _, s := range []Scope{{Kind: "all"}, {Kind: ""}, {Kind: ScopeSessionTarget, Target: " "}} {
		res, err := resolverOf(f).Resolve(s)
		require.NoError(t, err)
		require.NotNil(t, res.Error, "%+v", s)
		assert.Equal(t, coverage.InvalidScope, res.Error.Code, "%+v", s)
		assert.Empty(t, res.Refs)
	}
}

func TestResolveSameResolverEveryAction(t *testing.T) {
	// An id found only through the explicit session dir resolves the same
	// way whatever the action, because there is one resolver.
	f := newScopeFixture(t)
	f.Write(t, filepath.Join(f.Custom, "C1_only.jsonl"), "only", "/x", 1)
	r := resolverOf(f)
	res := resolve(t, r, "session:only")
	require.NotNil(t, res.Error)
	assert.Equal(t, coverage.SessionNotFound, res.Error.Code)

	r.Dirs.SessionDir = f.Custom
	res = resolve(t, r, "session:only")
	assert.Equal(t, []string{filepath.Join(f.Custom, "C1_only.jsonl")}, paths(res.Refs))
}

func TestNewResolver(t *testing.T) {
	f := newScopeFixture(t)
	r, err := NewResolver(f.Env)
	require.NoError(t, err)
	assert.Equal(t, f.Dirs, r.Dirs)
	res := resolve(t, r, "")
	assert.Len(t, res.Refs, 1)

	env := f.Env
	env.Profile = "BAD"
	_, err = NewResolver(env)
	assert.Error(t, err)
}

func TestResolutionErr(t *testing.T) {
	assert.NoError(t, Resolution{}.Err())
	err := Resolution{Error: &coverage.Error{Code: coverage.SessionNotFound, Message: "m"}}.Err()
	var ce *coverage.Error
	require.True(t, errors.As(err, &ce))
	assert.True(t, strings.HasPrefix(err.Error(), "session_not_found"))
}
