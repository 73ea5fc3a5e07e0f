package engine

import (
	"github.com/memidx/memidx/internal/index"
	"github.com/memidx/memidx/internal/session/locate"
)

// Config is the memory configuration (the memory section of fabric.json,
// with the spec's defaults): index directory, tiers, budgets and the
// indexing policy. Options.Memory replaces the configuration files with
// one. Its JSON is fabric.json's memory section; the bounds and defaults
// of each key are the spec's (docs/REFERENCE.md).
type Config struct {
	Enabled                bool   `json:"enabled"`
	IndexDir               string `json:"indexDir"`
	MaxSessions            int    `json:"maxSessions"`
	MaxEntryChars          int    `json:"maxEntryChars"`
	IndexThinking          bool   `json:"indexThinking"`
	IndexToolOutput        bool   `json:"indexToolOutput"`
	HotSessions            int    `json:"hotSessions"`
	MaxColdVocabularyBytes int    `json:"maxColdVocabularyBytes"`
	MaxColdCacheBytes      int    `json:"maxColdCacheBytes"`
	MaxSyncSessions        int    `json:"maxSyncSessions"`
	MaxSyncSourceBytes     int    `json:"maxSyncSourceBytes"`
	MaxCacheCleanupFiles   int    `json:"maxCacheCleanupFiles"`
	RegexMaxPatternBytes   int    `json:"regexMaxPatternBytes"`
	RegexMaxHaystackTerms  int    `json:"regexMaxHaystackTerms"`
	RegexMaxHaystackBytes  int    `json:"regexMaxHaystackBytes"`
	RegexTimeoutMs         int    `json:"regexTimeoutMs"`
	// MaxBuildBytes is memidx's own key: the memory that the sessions
	// being read and built at once may hold, across all workers; a source
	// whose estimate alone exceeds it is skipped with the reason
	// max_build_bytes. Default 1 GiB.
	MaxBuildBytes int `json:"maxBuildBytes"`
	// Natural is memidx's own key: the scoring of natural-language queries.
	Natural NaturalConfig `json:"natural"`
	// WeakMatchBelow is memidx's own key: a recall page whose
	// queryCoverage is under it is a weak match, which a host should treat
	// as no evidence. Default 0.5.
	WeakMatchBelow float64 `json:"weakMatchBelow"`
}

// NaturalConfig weighs the two fields a natural-language query scores
// (canonical terms and Snowball stems) and their BM25 length
// normalisation b.
type NaturalConfig struct {
	CanonicalWeight float64 `json:"canonicalWeight"`
	StemWeight      float64 `json:"stemWeight"`
	CanonicalB      float64 `json:"canonicalB"`
	StemB           float64 `json:"stemB"`
}

// Env is the environment an engine finds OMP's directories from (home,
// working directory, variables, profile); Options.Env replaces the
// process's, for tests and sandboxed hosts. An empty field is taken from
// the process as OMP takes it; a nil LookupEnv means no variables.
type Env struct {
	// Home is os.homedir(). Empty means $HOME from LookupEnv.
	Home string
	// Cwd is the working directory relative paths are made absolute
	// against. Empty means the real process cwd.
	Cwd string
	// TmpDir is os.tmpdir(). Empty means TMPDIR, else TMP, else TEMP,
	// else /tmp.
	TmpDir string
	// LookupEnv reads a variable and says whether it is defined.
	LookupEnv func(key string) (string, bool)
	// Profile is the --profile flag. When ProfileSet is true or Profile
	// is non-empty it wins over OMP_PROFILE and PI_PROFILE.
	Profile    string
	ProfileSet bool
	// AgentDir is an explicit agent directory; it wins over
	// PI_CODING_AGENT_DIR and a named profile.
	AgentDir string
	// SessionDir is an explicit flat session directory; it wins over
	// PI_CODING_AGENT_SESSION_DIR.
	SessionDir string
	// GOOS decides whether the XDG redirect applies (linux and darwin
	// only). Empty means runtime.GOOS.
	GOOS string
}

// Dirs are the OMP directories an engine uses (Engine.Dirs).
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
	// ArchiveRoot holds sessions moved by `omp gc`.
	ArchiveRoot string
	// SessionDir is the explicit flat session directory, or "".
	SessionDir string
	// XDG reports that sessions and blobs were redirected under
	// $XDG_DATA_HOME/omp.
	XDG bool
}

// DefaultConfig is the configuration of an empty fabric.json: the spec's
// defaults, with IndexDir "" (the agent directory's default).
func DefaultConfig() Config { return configOf(index.DefaultConfig()) }

// ProcessEnv is the process's environment, as Open uses it when
// Options.Env is nil.
func ProcessEnv() Env { return Env(locate.DefaultEnv()) }

// EnvMap is an Env.LookupEnv that reads the variables of m.
func EnvMap(m map[string]string) func(key string) (string, bool) { return locate.EnvMap(m) }

// configOf is the index's configuration under engine's type; indexConfig
// is its inverse (TestConfigMirrorsIndex holds them to every field).
func configOf(c index.Config) Config {
	return Config{
		Enabled: c.Enabled, IndexDir: c.IndexDir, MaxSessions: c.MaxSessions,
		MaxEntryChars: c.MaxEntryChars, IndexThinking: c.IndexThinking, IndexToolOutput: c.IndexToolOutput,
		HotSessions: c.HotSessions, MaxColdVocabularyBytes: c.MaxColdVocabularyBytes,
		MaxColdCacheBytes: c.MaxColdCacheBytes, MaxSyncSessions: c.MaxSyncSessions,
		MaxSyncSourceBytes: c.MaxSyncSourceBytes, MaxCacheCleanupFiles: c.MaxCacheCleanupFiles,
		RegexMaxPatternBytes: c.RegexMaxPatternBytes, RegexMaxHaystackTerms: c.RegexMaxHaystackTerms,
		RegexMaxHaystackBytes: c.RegexMaxHaystackBytes, RegexTimeoutMs: c.RegexTimeoutMs,
		MaxBuildBytes: c.MaxBuildBytes, Natural: NaturalConfig(c.Natural), WeakMatchBelow: c.WeakMatchBelow,
	}
}

func indexConfig(c Config) index.Config {
	return index.Config{
		Enabled: c.Enabled, IndexDir: c.IndexDir, MaxSessions: c.MaxSessions,
		MaxEntryChars: c.MaxEntryChars, IndexThinking: c.IndexThinking, IndexToolOutput: c.IndexToolOutput,
		HotSessions: c.HotSessions, MaxColdVocabularyBytes: c.MaxColdVocabularyBytes,
		MaxColdCacheBytes: c.MaxColdCacheBytes, MaxSyncSessions: c.MaxSyncSessions,
		MaxSyncSourceBytes: c.MaxSyncSourceBytes, MaxCacheCleanupFiles: c.MaxCacheCleanupFiles,
		RegexMaxPatternBytes: c.RegexMaxPatternBytes, RegexMaxHaystackTerms: c.RegexMaxHaystackTerms,
		RegexMaxHaystackBytes: c.RegexMaxHaystackBytes, RegexTimeoutMs: c.RegexTimeoutMs,
		MaxBuildBytes: c.MaxBuildBytes, Natural: index.NaturalConfig(c.Natural), WeakMatchBelow: c.WeakMatchBelow,
	}
}

// Notice is what the user should know about the setup: a configuration key
// not taken as written, an index directory others can read (see
// Engine.Notices).
type Notice struct {
	File    string `json:"file"`
	Key     string `json:"key"`
	Message string `json:"message"`
}

// noticesOf are the configuration's notices under engine's type.
func noticesOf(ns []index.Notice) []Notice {
	if ns == nil {
		return nil
	}
	out := make([]Notice, 0, len(ns))
	for _, n := range ns {
		out = append(out, Notice(n))
	}
	return out
}
