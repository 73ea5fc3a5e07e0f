package locate

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
		got, err := normalizeProfileName(tc.in)
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
		rel, ok := Within(tc.root, tc.p)
		assert.Equal(t, tc.ok, ok, "%s in %s", tc.p, tc.root)
		assert.Equal(t, tc.rel, rel, "%s in %s", tc.p, tc.root)
	}
}
