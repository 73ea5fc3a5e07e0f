package locate

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
)

// Env is the part of a process environment that decides where OMP keeps its
// files. ResolveAgentDir and BucketNames are pure functions of it (apart from
// the existence checks and realpath calls OMP makes too), so tests build an
// Env over a temporary tree and never see the real ~/.omp.
//
// Known gap: OMP fills unset variables from .env files (<cwd>/.env,
// <agentDir>/.env, <configRoot>/.env, ~/.env) before it resolves paths.
// memidx does not read them; a variable set only in such a file is not seen.
type Env struct {
	// Home is os.homedir(). Empty means $HOME from LookupEnv.
	Home string
	// Cwd is the process working directory; relative paths (variables,
	// flags, a relative cwd) are made absolute against it. Empty means the
	// real process cwd.
	Cwd string
	// TmpDir is os.tmpdir(). Empty means TMPDIR, else TMP, else TEMP, else
	// /tmp (empty values count as unset), with a trailing "/" removed.
	TmpDir string
	// LookupEnv reads a variable and says whether it is defined; OMP tells
	// an empty OMP_PROFILE from an unset one. Nil means no variables.
	LookupEnv func(key string) (string, bool)
	// Profile is the --profile flag. When ProfileSet is true or Profile is
	// non-empty the flag was given and wins over OMP_PROFILE and PI_PROFILE
	// (even "default", which then selects the default profile).
	Profile    string
	ProfileSet bool
	// AgentDir is an explicit agent directory (memidx --agent-dir). It wins
	// over PI_CODING_AGENT_DIR and over a named profile.
	AgentDir string
	// SessionDir is the --session-dir flag: a flat session directory. It
	// wins over PI_CODING_AGENT_SESSION_DIR.
	SessionDir string
	// GOOS decides whether the XDG redirect applies (linux and darwin
	// only). Empty means runtime.GOOS.
	GOOS string
}

// DefaultEnv fills an Env from the running process the way OMP (on Bun)
// sees it: $HOME else the password database, the working directory (else
// $PWD, home or tmp, as OMP falls back), and os.tmpdir().
func DefaultEnv() Env {
	env := Env{LookupEnv: os.LookupEnv, GOOS: runtime.GOOS}
	env.Home = os.Getenv("HOME")
	if env.Home == "" {
		env.Home = systemHome()
	}
	env.TmpDir = tempDirFrom(os.LookupEnv)
	if wd, err := os.Getwd(); err == nil {
		env.Cwd = wd
	} else {
		for _, c := range []string{os.Getenv("PWD"), env.Home, env.TmpDir} {
			if filepath.IsAbs(c) {
				if st, err := os.Stat(c); err == nil && st.IsDir() {
					env.Cwd = c
					break
				}
			}
		}
	}
	return env
}

// EnvMap returns a LookupEnv over a fixed map, for tests and embedding hosts.
func EnvMap(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) {
		v, ok := m[k]
		return v, ok
	}
}

func (e Env) lookup(k string) (string, bool) {
	if e.LookupEnv == nil {
		return "", false
	}
	return e.LookupEnv(k)
}

func (e Env) getenv(k string) string {
	v, _ := e.lookup(k)
	return v
}

// HomeDir is the home directory the Env names (Home, else $HOME), or "".
func (e Env) HomeDir() string { return e.home() }

func (e Env) home() string {
	if e.Home != "" {
		return e.Home
	}
	return e.getenv("HOME")
}

func (e Env) tmpDir() string {
	if e.TmpDir != "" {
		return e.TmpDir
	}
	return tempDirFrom(e.lookup)
}

func (e Env) goos() string {
	if e.GOOS != "" {
		return e.GOOS
	}
	return runtime.GOOS
}

// Abs makes p absolute against the Env's cwd, as Node's path.resolve does.
func (e Env) Abs(p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	if e.Cwd != "" {
		return filepath.Join(e.Cwd, p)
	}
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return filepath.Clean(p)
}

// tempDirFrom is os.tmpdir() on POSIX (checked on Bun 1.3.14).
func tempDirFrom(lookup func(string) (string, bool)) string {
	dir := "/tmp"
	for _, k := range []string{"TMPDIR", "TMP", "TEMP"} {
		if v, _ := lookup(k); v != "" {
			dir = v
			break
		}
	}
	if len(dir) > 1 && strings.HasSuffix(dir, "/") {
		dir = dir[:len(dir)-1]
	}
	return dir
}

// Dirs are the directories OMP 18 uses for one profile. Every path is
// absolute and clean.
type Dirs struct {
	// Profile is the named profile, "" for the default one.
	Profile string
	// ConfigRoot is ~/.omp, or ~/.omp/profiles/<Profile>.
	ConfigRoot string
	// AgentDir is <ConfigRoot>/agent unless overridden.
	AgentDir string
	// SessionsRoot holds one bucket directory per cwd.
	SessionsRoot string
	// BlobsDir is the content-addressed blob store.
	BlobsDir string
	// ArchiveRoot holds sessions moved by `omp gc` as
	// <bucket>/<name>.jsonl.gz: <dirname(SessionsRoot)>/archive/sessions.
	ArchiveRoot string
	// SessionDir is the explicit flat session directory (--session-dir or
	// PI_CODING_AGENT_SESSION_DIR), or "".
	SessionDir string
	// XDG reports that sessions and blobs were redirected under
	// $XDG_DATA_HOME/omp.
	XDG bool
}

// profileNamePattern is what OMP requires of a profile name.
const profileNamePattern = `^[a-z0-9][a-z0-9._-]{0,63}$`

// validProfileName checks profileNamePattern by hand: compiling that
// regular expression costs milliseconds at every process start.
func validProfileName(p string) bool {
	if len(p) == 0 || len(p) > 64 {
		return false
	}
	for i := 0; i < len(p); i++ {
		c := p[i]
		alnum := c >= 'a' && c <= 'z' || c >= '0' && c <= '9'
		if !alnum && (i == 0 || (c != '.' && c != '_' && c != '-')) {
			return false
		}
	}
	return true
}

// windowsReserved reports a Windows device name (CON, PRN, AUX, NUL,
// COM0-9, LPT0-9), with or without an extension, in any case.
func windowsReserved(p string) bool {
	base, _, _ := strings.Cut(strings.ToUpper(p), ".")
	switch base {
	case "CON", "PRN", "AUX", "NUL":
		return true
	}
	return len(base) == 4 && (strings.HasPrefix(base, "COM") || strings.HasPrefix(base, "LPT")) && base[3] >= '0' && base[3] <= '9'
}

// normalizeProfileName validates an OMP profile name as pi-utils'
// normalizeProfileName does. It returns "" for the default profile (an
// empty or blank name, or "default") and an error for a name OMP refuses.
func normalizeProfileName(profile string) (string, error) {
	p := strings.TrimSpace(profile)
	if p == "" || p == "default" {
		return "", nil
	}
	if p == "." || p == ".." || strings.HasSuffix(p, ".") || !validProfileName(p) || windowsReserved(p) {
		return "", fmt.Errorf("session: invalid OMP profile %q: profile names must match %s, must not end in \".\" and must not be a Windows device name", profile, profileNamePattern)
	}
	return p, nil
}

// ResolveAgentDir resolves the agent, sessions, blobs and archive
// directories as OMP 18 (pi-utils dirs.ts) does:
//
//   - the config root is $HOME joined with PI_CONFIG_DIR (default ".omp";
//     an absolute value is still joined under $HOME);
//   - the profile is the --profile flag, else OMP_PROFILE when defined (even
//     empty), else PI_PROFILE; a named profile P moves the config root to
//     <root>/profiles/P; an invalid name is an error (OMP refuses to start);
//   - PI_CODING_AGENT_DIR replaces the agent dir for the default profile
//     only, made absolute against the cwd with no ~ expansion (OMP ignores a
//     value equal to the agent dir of the profile named in the environment,
//     which a parent process exported);
//   - on linux and darwin, when the agent dir is the profile's default one
//     and $XDG_DATA_HOME/omp (for a profile $XDG_DATA_HOME/omp/profiles/P)
//     exists, sessions and blobs live there without the agent/ level.
//
// pi's ~/.pi/agent is a different program's directory and is never used
// implicitly; pass it as Env.AgentDir to read pi sessions.
func ResolveAgentDir(env Env) (Dirs, error) {
	home := env.home()
	if home == "" {
		return Dirs{}, errors.New("session: no home directory")
	}
	home = env.Abs(home)
	configName := env.getenv("PI_CONFIG_DIR")
	if configName == "" {
		configName = ".omp"
	}
	baseRoot := filepath.Join(home, configName)
	profileAgentDir := func(p string) string { return filepath.Join(baseRoot, "profiles", p, "agent") }

	var profile string
	if env.ProfileSet || env.Profile != "" {
		p, err := normalizeProfileName(env.Profile)
		if err != nil {
			return Dirs{}, err
		}
		profile = p
	} else {
		v, ok := env.lookup("OMP_PROFILE")
		if !ok {
			v, _ = env.lookup("PI_PROFILE")
		}
		p, err := normalizeProfileName(v)
		if err != nil {
			return Dirs{}, err
		}
		profile = p
	}

	d := Dirs{Profile: profile, ConfigRoot: baseRoot}
	if profile != "" {
		d.ConfigRoot = filepath.Join(baseRoot, "profiles", profile)
	}
	defaultAgent := filepath.Join(d.ConfigRoot, "agent")
	d.AgentDir = defaultAgent
	switch {
	case env.AgentDir != "":
		d.AgentDir = env.Abs(env.AgentDir)
	case profile == "":
		if v := env.getenv("PI_CODING_AGENT_DIR"); v != "" && !isProfileDerivedAgentDir(env, v, profileAgentDir) {
			d.AgentDir = env.Abs(v)
		}
	}

	dataDir := d.AgentDir
	if goos := env.goos(); (goos == "linux" || goos == "darwin") && d.AgentDir == defaultAgent {
		if x := env.getenv("XDG_DATA_HOME"); x != "" {
			appRoot := filepath.Join(env.Abs(x), "omp")
			if profile != "" {
				appRoot = filepath.Join(appRoot, "profiles", profile)
			}
			if _, err := os.Stat(appRoot); err == nil {
				dataDir = appRoot
				d.XDG = true
			}
		}
	}
	d.SessionsRoot = filepath.Join(dataDir, "sessions")
	d.BlobsDir = filepath.Join(dataDir, "blobs")
	d.ArchiveRoot = filepath.Join(filepath.Dir(d.SessionsRoot), "archive", "sessions")

	if env.SessionDir != "" {
		d.SessionDir = env.Abs(env.SessionDir)
	} else if v := env.getenv("PI_CODING_AGENT_SESSION_DIR"); v != "" {
		d.SessionDir = env.Abs(v)
	}
	return d, nil
}

// isProfileDerivedAgentDir reports whether PI_CODING_AGENT_DIR is the agent
// dir a parent process exported for a named profile (setProfile does so);
// OMP then ignores it in default mode. Invalid names count as unset here, as
// in OMP's module-load resolution.
func isProfileDerivedAgentDir(env Env, v string, profileAgentDir func(string) string) bool {
	safe := func(s string) string {
		p, err := normalizeProfileName(s)
		if err != nil {
			return ""
		}
		return p
	}
	src, ok := env.lookup("OMP_PROFILE")
	if !ok {
		src, _ = env.lookup("PI_PROFILE")
	}
	p := safe(src)
	if p == "" {
		p = safe(env.getenv("PI_PROFILE"))
	}
	return p != "" && v == profileAgentDir(p)
}

// BucketNames returns every bucket directory name under which OMP, in any
// version, may have stored the sessions of cwd: the current (OMP ≈13.12 to
// 18.x) name first, then the legacy spellings, without duplicates:
//
//   - current: cwd, home and tmp made absolute and realpath'd; "-<rel>"
//     inside home ("-" for home itself), else "-tmp-<rel>" inside tmp ("-tmp"
//     for tmp itself), else "--<abs>--". "Inside" is a string test, so
//     ~/..cache is outside home;
//   - "--<canonical abs>--" and "--<abs as given>--" (pi, OMP ≤ 12.8);
//   - the OMP 12.9–13.12 home-relative name computed without realpath;
//   - the OMP 17.2.5–17.2.8 hashed name <scope>-<readable>-<sha256>.
//
// "/", "\" and ":" are encoded as "-".
func BucketNames(cwd string, env Env) []string {
	resolved := env.Abs(cwd)
	canonical := Realpath(resolved)
	var homeRaw, homeCanon string
	if h := env.home(); h != "" {
		homeRaw = env.Abs(h)
		homeCanon = Realpath(homeRaw)
	}
	tmpCanon := Realpath(env.Abs(env.tmpDir()))

	var names []string
	add := func(n string) {
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	scope := "abs"
	if rel, ok := Within(homeCanon, canonical); ok {
		add(encodeRelative("-", rel))
		scope = "home"
	} else if rel, ok := Within(tmpCanon, canonical); ok {
		add(encodeRelative("-tmp", rel))
		scope = "tmp"
	} else {
		add(encodeAbsolute(canonical))
	}
	add(encodeAbsolute(canonical))
	add(encodeAbsolute(resolved))
	if rel, ok := Within(homeRaw, resolved); ok {
		add(encodeRelative("-", rel))
	}
	add(encodeHashed(canonical, scope))
	return names
}

// Within is OMP's containment test: the relative path is "" or neither
// starts with ".." (a string prefix) nor is absolute.
func Within(root, p string) (string, bool) {
	if root == "" {
		return "", false
	}
	rel, err := filepath.Rel(root, p)
	if err != nil {
		return "", false
	}
	if rel == "." {
		return "", true
	}
	if strings.HasPrefix(rel, "..") || filepath.IsAbs(rel) {
		return "", false
	}
	return rel, true
}

var bucketSeparators = strings.NewReplacer("/", "-", "\\", "-", ":", "-")

func encodeRelative(prefix, rel string) string {
	enc := bucketSeparators.Replace(rel)
	switch {
	case enc == "":
		return prefix
	case strings.HasSuffix(prefix, "-"):
		return prefix + enc
	default:
		return prefix + "-" + enc
	}
}

func encodeAbsolute(abs string) string {
	if strings.HasPrefix(abs, "/") || strings.HasPrefix(abs, "\\") {
		abs = abs[1:]
	}
	return "--" + bucketSeparators.Replace(abs) + "--"
}

// dashUnreadable turns every run of characters outside [A-Za-z0-9._-]
// into one "-".
func dashUnreadable(s string) string {
	var b strings.Builder
	dash := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-' {
			b.WriteByte(c)
			dash = false
		} else if !dash {
			b.WriteByte('-')
			dash = true
		}
	}
	return b.String()
}

// encodeHashed is the OMP 17.2.5–17.2.8 bucket name.
func encodeHashed(canonical, scope string) string {
	normalized := strings.ReplaceAll(canonical, "\\", "/")
	base := ""
	if trimmed := strings.TrimRight(normalized, "/"); trimmed != "" {
		base = trimmed[strings.LastIndexByte(trimmed, '/')+1:]
	}
	readable := strings.Trim(dashUnreadable(base), "-")
	if len(readable) > 80 { // ASCII only at this point
		readable = readable[len(readable)-80:]
	}
	if readable == "" {
		readable = "project"
	}
	sum := sha256.Sum256([]byte(normalized))
	return scope + "-" + readable + "-" + hex.EncodeToString(sum[:])
}

// Realpath is fs.realpathSync with OMP's fallback: the path itself when it
// cannot be resolved.
func Realpath(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return p
}

// AllowedRoots are the canonical (symlink-free) directories whose files
// memidx may read: the sessions root and the explicit session dir, those
// that exist.
func (d Dirs) AllowedRoots() []string {
	var roots []string
	for _, r := range []string{d.SessionsRoot, d.SessionDir} {
		if r == "" {
			continue
		}
		if c, err := filepath.EvalSymlinks(filepath.Clean(r)); err == nil {
			roots = append(roots, c)
		}
	}
	return roots
}
