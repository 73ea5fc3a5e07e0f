package session

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/memidx/memidx/internal/coverage"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// tempRoot returns a fresh temporary directory with symlinks resolved, so
// that expected paths compare equal to realpath'd ones.
func tempRoot(t *testing.T) string {
	t.Helper()
	r, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	return r
}

func mkdirs(t *testing.T, dirs ...string) {
	t.Helper()
	for _, d := range dirs {
		require.NoError(t, os.MkdirAll(d, 0o755))
	}
}

// writeSession writes a small v3 session file with the given header id and
// cwd, and sets its mtime.
func writeSession(t *testing.T, path, id, cwd string, mtime time.Time) {
	t.Helper()
	mkdirs(t, filepath.Dir(path))
	hdr, err := json.Marshal(map[string]any{"type": "session", "version": 3, "id": id, "timestamp": "2026-01-01T00:00:00.000Z", "cwd": cwd})
	require.NoError(t, err)
	body := string(hdr) + "\n" + `{"type":"message","id":"m1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"hi"}}` + "\n"
	require.NoError(t, os.WriteFile(path, []byte(body), 0o644))
	require.NoError(t, os.Chtimes(path, mtime, mtime))
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	mkdirs(t, filepath.Dir(path))
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
}

func TestNormalizeProfileName(t *testing.T) {
	tests := []struct {
		in, want string
		bad      bool
	}{
		{"", "", false},
		{"   ", "", false},
		{"default", "", false},
		{" default ", "", false},
		{"work", "work", false},
		{"  work \t", "work", false},
		{"a.b_c-9", "a.b_c-9", false},
		{"0", "0", false},
		{strings.Repeat("a", 64), strings.Repeat("a", 64), false},
		{strings.Repeat("a", 65), "", true},
		{"Work", "", true},
		{"-work", "", true},
		{".work", "", true},
		{"work.", "", true},
		{".", "", true},
		{"..", "", true},
		{"a/b", "", true},
		{"a b", "", true},
		{"con", "", true},
		{"nul.txt", "", true},
		{"com0", "", true},
		{"lpt9.x.y", "", true},
		{"console", "console", false},
		{"com10", "com10", false},
		{"Default", "", true},
	}
	for _, tc := range tests {
		got, err := NormalizeProfileName(tc.in)
		if tc.bad {
			assert.Error(t, err, "%q", tc.in)
			continue
		}
		assert.NoError(t, err, "%q", tc.in)
		assert.Equal(t, tc.want, got, "%q", tc.in)
	}
}

func TestResolveAgentDir(t *testing.T) {
	root := tempRoot(t)
	home := filepath.Join(root, "home")
	cwd := filepath.Join(root, "work")
	xdg := filepath.Join(root, "xdg")
	xdgEmpty := filepath.Join(root, "xdg-empty")
	xdgProfile := filepath.Join(root, "xdg-profile")
	mkdirs(t, home, cwd, filepath.Join(xdg, "omp"), xdgEmpty,
		filepath.Join(xdgProfile, "omp", "profiles", "work"))
	omp := filepath.Join(home, ".omp")
	def := filepath.Join(omp, "agent")
	work := filepath.Join(omp, "profiles", "work", "agent")

	type want struct {
		agent, sessions, configRoot, profile, sessionDir string
		xdg                                              bool
	}
	tests := []struct {
		name string
		env  Env
		vars map[string]string
		want want
		bad  bool
	}{
		{name: "default", want: want{agent: def, configRoot: omp}},
		{name: "config dir name", vars: map[string]string{"PI_CONFIG_DIR": ".config/omp"},
			want: want{agent: filepath.Join(home, ".config/omp/agent"), configRoot: filepath.Join(home, ".config/omp")}},
		{name: "absolute config dir still under home", vars: map[string]string{"PI_CONFIG_DIR": "/etc/omp"},
			want: want{agent: filepath.Join(home, "etc/omp/agent"), configRoot: filepath.Join(home, "etc/omp")}},
		{name: "empty config dir is default", vars: map[string]string{"PI_CONFIG_DIR": ""}, want: want{agent: def, configRoot: omp}},
		{name: "OMP_PROFILE", vars: map[string]string{"OMP_PROFILE": "work"},
			want: want{agent: work, configRoot: filepath.Dir(work), profile: "work"}},
		{name: "PI_PROFILE", vars: map[string]string{"PI_PROFILE": "work"},
			want: want{agent: work, configRoot: filepath.Dir(work), profile: "work"}},
		{name: "empty OMP_PROFILE beats PI_PROFILE", vars: map[string]string{"OMP_PROFILE": "", "PI_PROFILE": "work"},
			want: want{agent: def, configRoot: omp}},
		{name: "OMP_PROFILE default", vars: map[string]string{"OMP_PROFILE": " default ", "PI_PROFILE": "work"},
			want: want{agent: def, configRoot: omp}},
		{name: "invalid OMP_PROFILE", vars: map[string]string{"OMP_PROFILE": "Work"}, bad: true},
		{name: "invalid PI_PROFILE", vars: map[string]string{"PI_PROFILE": "aux"}, bad: true},
		{name: "flag beats env", env: Env{Profile: "x"}, vars: map[string]string{"OMP_PROFILE": "work"},
			want: want{agent: filepath.Join(omp, "profiles/x/agent"), configRoot: filepath.Join(omp, "profiles/x"), profile: "x"}},
		{name: "flag default beats env", env: Env{Profile: "default"}, vars: map[string]string{"OMP_PROFILE": "work"},
			want: want{agent: def, configRoot: omp}},
		{name: "empty flag given", env: Env{ProfileSet: true}, vars: map[string]string{"OMP_PROFILE": "work"},
			want: want{agent: def, configRoot: omp}},
		{name: "flag hides invalid env", env: Env{Profile: "x"}, vars: map[string]string{"OMP_PROFILE": "BAD"},
			want: want{agent: filepath.Join(omp, "profiles/x/agent"), configRoot: filepath.Join(omp, "profiles/x"), profile: "x"}},
		{name: "invalid flag", env: Env{Profile: "x."}, bad: true},
		{name: "agent dir override relative, no ~ expansion", vars: map[string]string{"PI_CODING_AGENT_DIR": "~/agent"},
			want: want{agent: filepath.Join(cwd, "~/agent"), configRoot: omp}},
		{name: "agent dir override absolute", vars: map[string]string{"PI_CODING_AGENT_DIR": "/opt/agent/"},
			want: want{agent: "/opt/agent", configRoot: omp}},
		{name: "agent dir override ignored by profile", vars: map[string]string{"PI_CODING_AGENT_DIR": "/opt/agent", "OMP_PROFILE": "work"},
			want: want{agent: work, configRoot: filepath.Dir(work), profile: "work"}},
		{name: "profile-derived agent dir ignored in default mode",
			vars: map[string]string{"PI_CODING_AGENT_DIR": work, "OMP_PROFILE": "", "PI_PROFILE": "work"},
			want: want{agent: def, configRoot: omp}},
		{name: "explicit agent dir wins over profile", env: Env{AgentDir: "rel"}, vars: map[string]string{"OMP_PROFILE": "work"},
			want: want{agent: filepath.Join(cwd, "rel"), configRoot: filepath.Dir(work), profile: "work"}},
		{name: "xdg", vars: map[string]string{"XDG_DATA_HOME": xdg},
			want: want{agent: def, configRoot: omp, sessions: filepath.Join(xdg, "omp/sessions"), xdg: true}},
		{name: "xdg without omp dir", vars: map[string]string{"XDG_DATA_HOME": xdgEmpty}, want: want{agent: def, configRoot: omp}},
		{name: "xdg on windows", env: Env{GOOS: "windows"}, vars: map[string]string{"XDG_DATA_HOME": xdg},
			want: want{agent: def, configRoot: omp}},
		{name: "xdg with agent dir override", vars: map[string]string{"XDG_DATA_HOME": xdg, "PI_CODING_AGENT_DIR": "/opt/agent"},
			want: want{agent: "/opt/agent", configRoot: omp}},
		{name: "xdg with override equal to the default", vars: map[string]string{"XDG_DATA_HOME": xdg, "PI_CODING_AGENT_DIR": def + "/"},
			want: want{agent: def, configRoot: omp, sessions: filepath.Join(xdg, "omp/sessions"), xdg: true}},
		{name: "xdg profile needs its own dir", vars: map[string]string{"XDG_DATA_HOME": xdg, "OMP_PROFILE": "work"},
			want: want{agent: work, configRoot: filepath.Dir(work), profile: "work"}},
		{name: "xdg profile", vars: map[string]string{"XDG_DATA_HOME": xdgProfile, "OMP_PROFILE": "work"},
			want: want{agent: work, configRoot: filepath.Dir(work), profile: "work",
				sessions: filepath.Join(xdgProfile, "omp/profiles/work/sessions"), xdg: true}},
		{name: "session dir env", vars: map[string]string{"PI_CODING_AGENT_SESSION_DIR": "s"},
			want: want{agent: def, configRoot: omp, sessionDir: filepath.Join(cwd, "s")}},
		{name: "empty session dir env", vars: map[string]string{"PI_CODING_AGENT_SESSION_DIR": ""}, want: want{agent: def, configRoot: omp}},
		{name: "session dir flag wins", env: Env{SessionDir: "/flag"}, vars: map[string]string{"PI_CODING_AGENT_SESSION_DIR": "s"},
			want: want{agent: def, configRoot: omp, sessionDir: "/flag"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := tc.env
			env.Home = home
			env.Cwd = cwd
			if env.GOOS == "" {
				env.GOOS = "linux"
			}
			env.LookupEnv = EnvMap(tc.vars)
			d, err := ResolveAgentDir(env)
			if tc.bad {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			w := tc.want
			if w.sessions == "" {
				w.sessions = filepath.Join(w.agent, "sessions")
			}
			assert.Equal(t, w.agent, d.AgentDir, "agent dir")
			assert.Equal(t, w.configRoot, d.ConfigRoot, "config root")
			assert.Equal(t, w.sessions, d.SessionsRoot, "sessions root")
			assert.Equal(t, filepath.Join(filepath.Dir(w.sessions), "blobs"), d.BlobsDir, "blobs")
			assert.Equal(t, filepath.Join(filepath.Dir(w.sessions), "archive", "sessions"), d.ArchiveRoot, "archive")
			assert.Equal(t, w.profile, d.Profile, "profile")
			assert.Equal(t, w.sessionDir, d.SessionDir, "session dir")
			assert.Equal(t, w.xdg, d.XDG, "xdg")
		})
	}
}

func TestResolveAgentDirHome(t *testing.T) {
	_, err := ResolveAgentDir(Env{Cwd: "/"})
	require.Error(t, err)

	d, err := ResolveAgentDir(Env{Cwd: "/", LookupEnv: EnvMap(map[string]string{"HOME": "/h"})})
	require.NoError(t, err)
	assert.Equal(t, "/h/.omp/agent/sessions", d.SessionsRoot)
}

func TestTempDir(t *testing.T) {
	tests := []struct {
		vars map[string]string
		want string
	}{
		{nil, "/tmp"},
		{map[string]string{"TMPDIR": "/a/"}, "/a"},
		{map[string]string{"TMPDIR": "/"}, "/"},
		{map[string]string{"TMPDIR": "", "TMP": "/b", "TEMP": "/c"}, "/b"},
		{map[string]string{"TEMP": "/c//"}, "/c/"},
	}
	for _, tc := range tests {
		assert.Equal(t, tc.want, tempDirFrom(EnvMap(tc.vars)), "%v", tc.vars)
		assert.Equal(t, tc.want, Env{LookupEnv: EnvMap(tc.vars)}.tmpDir())
	}
	assert.Equal(t, "/x", Env{TmpDir: "/x", LookupEnv: EnvMap(map[string]string{"TMPDIR": "/y"})}.tmpDir())
}

func TestDefaultEnv(t *testing.T) {
	t.Setenv("TMPDIR", "/some/tmp/")
	t.Setenv("HOME", "/some/home")
	env := DefaultEnv()
	assert.Equal(t, "/some/tmp", env.TmpDir)
	assert.Equal(t, "/some/home", env.Home)
	wd, err := os.Getwd()
	require.NoError(t, err)
	assert.Equal(t, wd, env.Cwd)
	v, ok := env.LookupEnv("HOME")
	assert.True(t, ok)
	assert.Equal(t, "/some/home", v)
}

func hashed(scope, readable, canonical string) string {
	sum := sha256.Sum256([]byte(canonical))
	return scope + "-" + readable + "-" + hex.EncodeToString(sum[:])
}

func enc(abs string) string { return encodeAbsolute(abs) }

func TestBucketNames(t *testing.T) {
	root := tempRoot(t)
	home := filepath.Join(root, "home", "u")
	tmp := filepath.Join(root, "tmp")
	app := filepath.Join(home, "src", "app")
	outside := filepath.Join(root, "srv", "x")
	mkdirs(t, app, tmp, filepath.Join(tmp, "x", "y"), outside, filepath.Join(home, "..cache"))
	require.NoError(t, os.Symlink(app, filepath.Join(root, "applink")))
	require.NoError(t, os.Symlink(outside, filepath.Join(home, "out")))
	require.NoError(t, os.Symlink(home, filepath.Join(root, "homelink")))
	env := Env{Home: home, TmpDir: tmp + "/", Cwd: "/"}

	tests := []struct {
		name string
		cwd  string
		env  Env
		want []string
	}{
		{"home itself", home, env, []string{"-", enc(home), hashed("home", "u", home)}},
		{"inside home", app, env, []string{"-src-app", enc(app), hashed("home", "app", app)}},
		{"relative cwd", "src/app", Env{Home: home, TmpDir: tmp, Cwd: home}, []string{"-src-app", enc(app), hashed("home", "app", app)}},
		{"tmp itself", tmp, env, []string{"-tmp", enc(tmp), hashed("tmp", "tmp", tmp)}},
		{"inside tmp", filepath.Join(tmp, "x", "y"), env,
			[]string{"-tmp-x-y", enc(filepath.Join(tmp, "x/y")), hashed("tmp", "y", filepath.Join(tmp, "x/y"))}},
		{"outside", "/srv/pi", env, []string{"--srv-pi--", hashed("abs", "pi", "/srv/pi")}},
		{"dot-dot name is outside home", filepath.Join(home, "..cache"), env,
			[]string{enc(filepath.Join(home, "..cache")), hashed("abs", "..cache", filepath.Join(home, "..cache"))}},
		{"symlinked cwd into home", filepath.Join(root, "applink"), env,
			[]string{"-src-app", enc(app), enc(filepath.Join(root, "applink")), hashed("home", "app", app)}},
		{"symlink in home to outside", filepath.Join(home, "out"), env,
			[]string{enc(outside), enc(filepath.Join(home, "out")), "-out", hashed("abs", "x", outside)}},
		{"symlinked home", filepath.Join(root, "homelink", "src", "app"), Env{Home: filepath.Join(root, "homelink"), TmpDir: tmp},
			[]string{"-src-app", enc(app), enc(filepath.Join(root, "homelink/src/app")), hashed("home", "app", app)}},
		{"root dir", "/", Env{Home: home, TmpDir: tmp}, []string{"----", hashed("abs", "project", "/")}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, BucketNames(tc.cwd, tc.env))
		})
	}
}

func TestBucketEncodings(t *testing.T) {
	assert.Equal(t, "--srv-pi--", encodeAbsolute("/srv/pi"))
	assert.Equal(t, "--C--src-x--", encodeAbsolute(`C:\src\x`))
	assert.Equal(t, "--a-b--", encodeAbsolute(`\a\b`))
	assert.Equal(t, "---a--", encodeAbsolute("//a"))
	assert.Equal(t, "-", encodeRelative("-", ""))
	assert.Equal(t, "-src-app", encodeRelative("-", "src/app"))
	assert.Equal(t, "-tmp", encodeRelative("-tmp", ""))
	assert.Equal(t, "-tmp-x-y", encodeRelative("-tmp", "x/y"))
	assert.Equal(t, "-a-b-c", encodeRelative("-", `a\b:c`))

	assert.Equal(t, hashed("abs", "my-app-v2", "/srv/my app (v2)"), encodeHashed("/srv/my app (v2)", "abs"))
	assert.Equal(t, hashed("abs", "project", "/srv/%%%"), encodeHashed("/srv/%%%", "abs"))
	assert.Equal(t, hashed("home", "x", "C:/u/x"), encodeHashed(`C:\u\x`, "home"))
	long := strings.Repeat("a", 50) + strings.Repeat("b", 50)
	assert.Equal(t, hashed("abs", long[20:], "/"+long), encodeHashed("/"+long, "abs"))
}

func TestWithin(t *testing.T) {
	tests := []struct {
		root, p, rel string
		ok           bool
	}{
		{"/h", "/h", "", true},
		{"/h", "/h/a/b", "a/b", true},
		{"/h", "/h/..a", "", false},
		{"/h", "/hx", "", false},
		{"/h", "/", "", false},
		{"/", "/a", "a", true},
		{"", "/a", "", false},
	}
	for _, tc := range tests {
		rel, ok := within(tc.root, tc.p)
		assert.Equal(t, tc.ok, ok, "%s in %s", tc.p, tc.root)
		assert.Equal(t, tc.rel, rel, "%s in %s", tc.p, tc.root)
	}
}

// listingTree builds a sessions root with every kind of neighbouring file.
type listingTree struct {
	root, sessions, custom, ext string
	dirs                        Dirs
	t0                          time.Time
}

func newListingTree(t *testing.T) *listingTree {
	root := tempRoot(t)
	lt := &listingTree{
		root:     root,
		sessions: filepath.Join(root, "agent", "sessions"),
		custom:   filepath.Join(root, "custom"),
		ext:      filepath.Join(root, "ext"),
		t0:       time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC),
	}
	lt.dirs = Dirs{SessionsRoot: lt.sessions, ArchiveRoot: filepath.Join(root, "agent", "archive", "sessions")}
	at := func(ns int) time.Time { return lt.t0.Add(time.Duration(ns)) }
	s := lt.sessions
	proj := filepath.Join(s, "-proj")
	a := filepath.Join(proj, "T1_aaa")
	writeSession(t, a+".jsonl", "aaa", "/p", at(100))
	writeSession(t, filepath.Join(proj, "T2_bbb.jsonl"), "bbb", "/p", at(300))
	writeSession(t, filepath.Join(proj, "T0_tie.jsonl"), "tie", "/p", at(300))
	// neighbours that are not sessions
	writeFile(t, filepath.Join(proj, ".T1_aaa.jsonl.0123456789abcdef.tmp"), "{}")
	writeFile(t, filepath.Join(proj, ".T1_aaa.jsonl.lock"), "")
	writeFile(t, filepath.Join(proj, ".T1_aaa.jsonl.lock.os"), "")
	writeFile(t, filepath.Join(proj, ".hidden.jsonl"), "{}")
	writeFile(t, filepath.Join(proj, "T1_aaa.jsonl.0123456789abcdef.bak"), "{}")
	writeFile(t, filepath.Join(proj, "notes.txt"), "")
	writeFile(t, filepath.Join(proj, ".jsonl"), "")
	mkdirs(t, filepath.Join(proj, "dir.jsonl"))
	// artifacts and nested sessions
	writeFile(t, filepath.Join(a, "0.bash.log"), "out")
	writeFile(t, filepath.Join(a, "sub1.md"), "out")
	writeSession(t, filepath.Join(a, "sub1.jsonl"), "sub1-id", "/p", at(400))
	writeSession(t, filepath.Join(a, "__advisor.jsonl"), "adv", "/p", at(50))
	writeSession(t, filepath.Join(a, "__advisor.review.jsonl"), "adv2", "/p", at(51))
	writeSession(t, filepath.Join(a, "sub1", "sub1.child.jsonl"), "child-id", "/p", at(60))
	writeFile(t, filepath.Join(a, "sub1.jsonl.tmp-0000"), "{}")
	writeFile(t, filepath.Join(a, "btw-history", "entry-1.json"), "{}")
	require.NoError(t, os.Symlink(a, filepath.Join(a, "sub1", "loop")))
	// other buckets
	other := filepath.Join(s, "--srv-x--")
	writeSession(t, filepath.Join(other, "T3_ccc.jsonl"), "ccc", "/srv/x", at(200))
	require.NoError(t, os.Symlink(a+".jsonl", filepath.Join(other, "alias.jsonl")))
	require.NoError(t, os.Symlink(filepath.Join(root, "nowhere.jsonl"), filepath.Join(other, "dangling.jsonl")))
	writeSession(t, filepath.Join(s, ".trash", "T4_ddd.jsonl"), "ddd", "/p", at(900))
	writeFile(t, filepath.Join(s, "stray.jsonl"), "{}")
	// a bucket that is a symlink to a directory outside the root
	writeSession(t, filepath.Join(lt.ext, "T5_eee.jsonl"), "eee", "/e", at(150))
	require.NoError(t, os.Symlink(lt.ext, filepath.Join(s, "-linked")))
	// the explicit flat session dir
	writeSession(t, filepath.Join(lt.custom, "T6_fff.jsonl"), "fff", "/p", at(250))
	writeSession(t, filepath.Join(lt.custom, "T6_fff", "sub.jsonl"), "fff-sub", "/p", at(260))
	writeSession(t, filepath.Join(lt.custom, "deeper", "x.jsonl"), "not-flat", "/p", at(999))
	// the gc archive
	writeFile(t, filepath.Join(lt.dirs.ArchiveRoot, "-proj", "T0_old.jsonl.gz"), "gz")
	writeFile(t, filepath.Join(lt.dirs.ArchiveRoot, "-proj", "T0_old", "sub.jsonl.gz"), "gz")
	return lt
}

func paths(refs []Ref) []string {
	out := make([]string, len(refs))
	for i, r := range refs {
		out[i] = r.Path
	}
	return out
}

func TestListSessions(t *testing.T) {
	lt := newListingTree(t)
	s := lt.sessions
	a := filepath.Join(s, "-proj", "T1_aaa")

	refs, err := ListSessions(lt.dirs, ListOptions{})
	requireSkipped(t, err, ReasonOutsideRoots)
	assert.Equal(t, []string{
		filepath.Join(a, "sub1.jsonl"),
		filepath.Join(s, "-proj", "T0_tie.jsonl"), // same mtime: path order
		filepath.Join(s, "-proj", "T2_bbb.jsonl"),
		filepath.Join(s, "--srv-x--", "T3_ccc.jsonl"),
		a + ".jsonl",
		filepath.Join(a, "sub1", "sub1.child.jsonl"),
		filepath.Join(a, "__advisor.review.jsonl"),
		filepath.Join(a, "__advisor.jsonl"),
	}, paths(refs))

	byPath := map[string]Ref{}
	for _, r := range refs {
		byPath[r.Path] = r
	}
	sub := byPath[filepath.Join(a, "sub1.jsonl")]
	assert.True(t, sub.Nested)
	assert.Equal(t, "-proj", sub.Bucket)
	assert.True(t, lt.t0.Add(400).Equal(sub.ModTime), "nanosecond mtime: %v", sub.ModTime)
	top := byPath[a+".jsonl"]
	assert.False(t, top.Nested)
	assert.Equal(t, "-proj", top.Bucket)
	assert.Positive(t, top.Size)
	// The bucket symlinked outside the sessions root is not followed.
	assert.NotContains(t, byPath, filepath.Join(lt.ext, "T5_eee.jsonl"))

	refs, err = ListSessions(lt.dirs, ListOptions{TopLevelOnly: true})
	requireSkipped(t, err, ReasonOutsideRoots)
	assert.Equal(t, []string{
		filepath.Join(s, "-proj", "T0_tie.jsonl"),
		filepath.Join(s, "-proj", "T2_bbb.jsonl"),
		filepath.Join(s, "--srv-x--", "T3_ccc.jsonl"),
		a + ".jsonl",
	}, paths(refs))
}

func TestListSessionsExplicitDir(t *testing.T) {
	lt := newListingTree(t)
	d := lt.dirs
	d.SessionDir = lt.custom
	refs, err := ListSessions(d, ListOptions{TopLevelOnly: true})
	requireSkipped(t, err, ReasonOutsideRoots)
	assert.Contains(t, paths(refs), filepath.Join(lt.custom, "T6_fff.jsonl"))
	assert.NotContains(t, paths(refs), filepath.Join(lt.custom, "deeper", "x.jsonl"))
	assert.Len(t, refs, 5)

	refs, err = ListSessions(d, ListOptions{})
	requireSkipped(t, err, ReasonOutsideRoots)
	assert.Contains(t, paths(refs), filepath.Join(lt.custom, "T6_fff", "sub.jsonl"))
	for _, r := range refs {
		if strings.HasPrefix(r.Path, lt.custom) {
			assert.Empty(t, r.Bucket, r.Path)
		}
	}

	// An explicit dir that is a bucket does not list its files twice.
	d.SessionDir = filepath.Join(lt.root, "agent", "sessions", "-proj") + "/"
	refs, err = ListSessions(d, ListOptions{})
	requireSkipped(t, err, ReasonOutsideRoots)
	assert.Len(t, refs, 8)
}

func TestListSessionsSymlinkedRoot(t *testing.T) {
	lt := newListingTree(t)
	link := filepath.Join(lt.root, "agentlink")
	require.NoError(t, os.Symlink(filepath.Join(lt.root, "agent"), link))
	refs, err := ListSessions(Dirs{SessionsRoot: filepath.Join(link, "sessions")}, ListOptions{TopLevelOnly: true})
	requireSkipped(t, err, ReasonOutsideRoots)
	// Paths keep the root's spelling; the alias symlink maps onto it too.
	assert.Equal(t, []string{
		filepath.Join(link, "sessions", "-proj", "T0_tie.jsonl"),
		filepath.Join(link, "sessions", "-proj", "T2_bbb.jsonl"),
		filepath.Join(link, "sessions", "--srv-x--", "T3_ccc.jsonl"),
		filepath.Join(link, "sessions", "-proj", "T1_aaa.jsonl"),
	}, paths(refs))
}

func TestListSessionsMissingAndOddRoots(t *testing.T) {
	root := tempRoot(t)
	refs, err := ListSessions(Dirs{SessionsRoot: filepath.Join(root, "none"), SessionDir: filepath.Join(root, "none2")}, ListOptions{})
	assert.NoError(t, err)
	assert.Empty(t, refs)

	refs, err = ListSessions(Dirs{}, ListOptions{})
	assert.NoError(t, err)
	assert.Empty(t, refs)

	// A sessions root that is a file is an error, not an empty answer.
	writeFile(t, filepath.Join(root, "file"), "")
	_, err = ListSessions(Dirs{SessionsRoot: filepath.Join(root, "file")}, ListOptions{})
	assert.Error(t, err)
}

func TestListSessionsUnreadableBucket(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads every directory")
	}
	lt := newListingTree(t)
	locked := filepath.Join(lt.sessions, "--srv-x--")
	require.NoError(t, os.Chmod(locked, 0))
	t.Cleanup(func() { _ = os.Chmod(locked, 0o755) })
	refs, err := ListSessions(lt.dirs, ListOptions{TopLevelOnly: true})
	assert.Error(t, err)
	assert.Len(t, refs, 3)

	// The resolver keeps what it found and says the answer is partial.
	res, err := (&Resolver{Dirs: lt.dirs, Env: Env{Cwd: "/"}, TopLevelOnly: true}).Resolve(Scope{Kind: ScopeGlobal})
	require.NoError(t, err)
	assert.Len(t, res.Refs, 3)
	assert.Equal(t, []string{coverage.SourceUnavailable, ReasonOutsideRoots}, res.Reasons)
}

func TestListSessionsSkipsFIFO(t *testing.T) {
	lt := newListingTree(t)
	fifo := filepath.Join(lt.sessions, "-proj", "T9_fifo.jsonl")
	if err := exec.Command("mkfifo", fifo).Run(); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	refs, err := ListSessions(lt.dirs, ListOptions{TopLevelOnly: true})
	requireSkipped(t, err, ReasonOutsideRoots)
	assert.NotContains(t, paths(refs), fifo)
}

func TestListSessionsDepthBound(t *testing.T) {
	root := tempRoot(t)
	s := filepath.Join(root, "sessions")
	writeSession(t, filepath.Join(s, "-p", "T_x.jsonl"), "x", "/p", time.Unix(1, 0))
	dir := filepath.Join(s, "-p", "T_x")
	writeSession(t, filepath.Join(dir, "n.jsonl"), "n", "/p", time.Unix(1, 0))
	for i := range MaxNestedDepth + 2 {
		dir = filepath.Join(dir, "d")
		writeSession(t, filepath.Join(dir, "n.jsonl"), "n", "/p", time.Unix(int64(2+i), 0))
	}
	refs, err := ListSessions(Dirs{SessionsRoot: s}, ListOptions{})
	// What lies deeper is reported, never silently left out.
	requireSkipped(t, err, ReasonMaxListingDepth)
	assert.Len(t, refs, 1+MaxNestedDepth)
	res, err := (&Resolver{Dirs: Dirs{SessionsRoot: s}, Env: Env{Cwd: "/"}}).Resolve(Scope{Kind: ScopeGlobal})
	require.NoError(t, err)
	assert.Equal(t, []string{ReasonMaxListingDepth}, res.Reasons)
}

func TestListArchived(t *testing.T) {
	lt := newListingTree(t)
	refs, err := ListArchived(lt.dirs)
	require.NoError(t, err)
	require.Len(t, refs, 1)
	assert.Equal(t, filepath.Join(lt.dirs.ArchiveRoot, "-proj", "T0_old.jsonl.gz"), refs[0].Path)
	assert.True(t, refs[0].Archived)
	assert.Equal(t, "-proj", refs[0].Bucket)
}

func TestListBuckets(t *testing.T) {
	lt := newListingTree(t)
	refs, existing, err := ListBuckets(lt.dirs, []string{"-missing", "-linked", "", ".", "..", "-proj/T1_aaa", "-proj"}, ListOptions{TopLevelOnly: true})
	requireSkipped(t, err, ReasonOutsideRoots)
	assert.Equal(t, []string{filepath.Join(lt.sessions, "-linked"), filepath.Join(lt.sessions, "-proj")}, existing)
	assert.Len(t, refs, 3)
}

// requireSkipped asserts that a listing's error names exactly the files it
// left out on purpose, with these reasons, and nothing unreadable.
func requireSkipped(t *testing.T, err error, want ...string) {
	t.Helper()
	reasons, unavailable := ListReasons(err)
	require.False(t, unavailable, "%v", err)
	require.NotEmpty(t, reasons)
	for _, r := range reasons {
		require.Contains(t, want, r, "%v", err)
	}
}

// TestListedStatIsTheFilesStat: the listing's fstatat must give what a
// stat of the path gives (the index compares one with the other), for
// plain files, nested ones and symlinks alike; and the parallel listing
// must equal a one-worker listing, errors included.
func TestListedStatIsTheFilesStat(t *testing.T) {
	lt := newListingTree(t)
	alias := filepath.Join(lt.sessions, "-proj", "alias2.jsonl")
	require.NoError(t, os.Symlink(filepath.Join(lt.sessions, "-proj", "T2_bbb.jsonl"), alias))
	refs, err := ListSessions(lt.dirs, ListOptions{})
	requireSkipped(t, err, ReasonOutsideRoots)
	require.NotEmpty(t, refs)
	for _, r := range refs {
		require.NotNil(t, r.Stat, r.Path)
		want, regular, err := statPath(r.Path)
		require.NoError(t, err)
		require.True(t, regular)
		assert.Equal(t, want, *r.Stat, r.Path)
		// The path spelled once per directory is display's spelling.
		canon, err := filepath.EvalSymlinks(r.Path)
		require.NoError(t, err)
		path, _, _ := display(mapRoots(lt.dirs), canon)
		assert.Equal(t, path, r.Path)
		assert.Equal(t, r.Size, r.Stat.Size)
		assert.True(t, r.ModTime.Equal(r.Stat.ModTime()))
	}

	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	one, oneErr := ListSessions(lt.dirs, ListOptions{})
	runtime.GOMAXPROCS(4)
	many, manyErr := ListSessions(lt.dirs, ListOptions{})
	assert.Equal(t, one, many)
	assert.Equal(t, fmt.Sprint(oneErr), fmt.Sprint(manyErr))
}

// TestSortRefsIsNewestFirstThenPath checks the radix sort against a
// comparison sort on random listings: many equal times, times before 1970
// and far apart, empty and single listings.
func TestSortRefsIsNewestFirstThenPath(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for round := range 500 {
		n := rng.IntN(200)
		refs := make([]Ref, n)
		for i := range refs {
			var ns int64
			switch rng.IntN(4) {
			case 0:
				ns = int64(rng.IntN(5)) // ties
			case 1:
				ns = -rng.Int64N(1 << 50) // before 1970
			default:
				ns = rng.Int64()
			}
			refs[i] = Ref{Path: fmt.Sprintf("/s/%03d.jsonl", rng.IntN(1000)), ModTime: time.Unix(0, ns)}
		}
		want := slices.Clone(refs)
		slices.SortStableFunc(want, func(a, b Ref) int {
			if c := b.ModTime.Compare(a.ModTime); c != 0 {
				return c
			}
			return strings.Compare(a.Path, b.Path)
		})
		sortRefs(refs)
		for i := range refs {
			require.Equal(t, want[i].ModTime.UnixNano(), refs[i].ModTime.UnixNano(), "round %d at %d", round, i)
			require.Equal(t, want[i].Path, refs[i].Path, "round %d at %d", round, i)
		}
	}
}

func TestLargestFirstOrdersBySizeStably(t *testing.T) {
	for _, tc := range []struct {
		sizes []int64
		want  []int
	}{
		{nil, []int{}},
		{[]int64{4096}, []int{0}},
		{[]int64{4096, 40960, 8192}, []int{1, 2, 0}},
		{[]int64{0, 0, 0}, []int{0, 1, 2}}, // unknown sizes: as given
		{[]int64{4096, 12288, 4096, 12288}, []int{1, 3, 0, 2}},
	} {
		dirs := make([]bucketDir, len(tc.sizes))
		for i, s := range tc.sizes {
			dirs[i] = bucketDir{dir: fmt.Sprint("/d", i), size: s}
		}
		assert.Equal(t, tc.want, largestFirst(dirs), "sizes %v", tc.sizes)
	}
}

// fakeEntry is a directory entry that need not exist.
type fakeEntry struct {
	name string
	typ  fs.FileMode
}

func (e fakeEntry) Name() string               { return e.name }
func (e fakeEntry) IsDir() bool                { return e.typ.IsDir() }
func (e fakeEntry) Type() fs.FileMode          { return e.typ }
func (e fakeEntry) Info() (fs.FileInfo, error) { return nil, fs.ErrNotExist }

// TestBucketDirsKeepsARealDirectoryItCannotStat: a real bucket directory
// whose stat fails stays a bucket (listing it reports the failure); a
// symlink that leads nowhere is no bucket.
func TestBucketDirsKeepsARealDirectoryItCannotStat(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(root, "real"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "real", "a.jsonl"), []byte("x"), 0o644))
	buckets, linked := bucketDirs(root, []fs.DirEntry{
		fakeEntry{"real", fs.ModeDir},
		fakeEntry{"gone", fs.ModeDir},
		fakeEntry{"dangling", fs.ModeSymlink},
		fakeEntry{".hidden", fs.ModeDir},
		fakeEntry{"file.jsonl", 0},
	})
	assert.True(t, linked)
	var names []string
	for _, b := range buckets {
		names = append(names, b.bucket)
		if b.bucket == "gone" {
			assert.Zero(t, b.size)
		} else {
			assert.Positive(t, b.size)
		}
	}
	assert.Equal(t, []string{"real", "gone"}, names)
}
