package index

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLoadConfig(t *testing.T) {
	dir := t.TempDir()
	global := filepath.Join(dir, "fabric.json")
	project := filepath.Join(dir, "project.json")
	require.NoError(t, os.WriteFile(global, []byte(`{"memory":{"hotSessions":7,"maxEntryChars":5,"regexTimeoutMs":1.5,"indexThinking":"yes","bogus":1,"digestTerms":3,"maxSyncSourceBytes":99999999999}}`), 0o600))
	require.NoError(t, os.WriteFile(project, []byte(`{"memory":{"hotSessions":9,"indexToolOutput":false}}`), 0o600))

	cfg, notes, err := LoadConfig(ConfigFiles{Global: global, Project: project, Trusted: false})
	require.NoError(t, err)
	assert.Equal(t, 7, cfg.HotSessions)
	assert.Equal(t, 100, cfg.MaxEntryChars, "clamped to the minimum")
	assert.Equal(t, 250, cfg.RegexTimeoutMs, "a non-integer takes the default")
	assert.False(t, cfg.IndexThinking)
	assert.True(t, cfg.IndexToolOutput, "an untrusted project file is never read")
	assert.Equal(t, min(8<<30, math.MaxInt), cfg.MaxSyncSourceBytes)
	keys := map[string]bool{}
	for _, n := range notes {
		keys[n.Key] = true
		assert.Equal(t, global, n.File)
	}
	for _, k := range []string{"maxEntryChars", "regexTimeoutMs", "indexThinking", "bogus", "digestTerms", "maxSyncSourceBytes"} {
		assert.True(t, keys[k], "a notice for %s", k)
	}
	assert.False(t, keys["hotSessions"])

	cfg, _, err = LoadConfig(ConfigFiles{Global: global, Project: project, Trusted: true})
	require.NoError(t, err)
	assert.Equal(t, 9, cfg.HotSessions)
	assert.False(t, cfg.IndexToolOutput)
}

func TestLoadConfigMissingAndBroken(t *testing.T) {
	cfg, notes, err := LoadConfig(ConfigFiles{Global: filepath.Join(t.TempDir(), "none.json")})
	require.NoError(t, err)
	assert.Empty(t, notes)
	assert.Equal(t, DefaultConfig(), cfg)

	bad := filepath.Join(t.TempDir(), "bad.json")
	require.NoError(t, os.WriteFile(bad, []byte(`{"memory":`), 0o600))
	_, _, err = LoadConfig(ConfigFiles{Global: bad})
	assert.Error(t, err)
}

// A relative indexDir is resolved against the directory of the file that
// names it, never against the process's working directory.
func TestLoadConfigRelativeIndexDir(t *testing.T) {
	agent := t.TempDir()
	project := t.TempDir()
	global := filepath.Join(agent, "fabric.json")
	local := filepath.Join(project, ".omp", "fabric.json")
	require.NoError(t, os.MkdirAll(filepath.Dir(local), 0o700))
	require.NoError(t, os.WriteFile(global, []byte(`{"memory":{"indexDir":"idx/../memory"}}`), 0o600))
	require.NoError(t, os.WriteFile(local, []byte(`{"memory":{"indexDir":"cache"}}`), 0o600))

	t.Chdir(t.TempDir()) // wherever memidx runs from does not matter
	cfg, _, err := LoadConfig(ConfigFiles{Global: global})
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(agent, "memory"), cfg.IndexDir)

	cfg, _, err = LoadConfig(ConfigFiles{Global: global, Project: local, Trusted: true})
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(project, ".omp", "cache"), cfg.IndexDir)

	// A relative config path is the caller's (the shell's) relative path.
	t.Chdir(agent)
	cfg, _, err = LoadConfig(ConfigFiles{Global: "fabric.json"})
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(agent, "memory"), cfg.IndexDir)

	// An absolute one stays as written.
	require.NoError(t, os.WriteFile(global, []byte(`{"memory":{"indexDir":"/abs/idx/"}}`), 0o600))
	cfg, _, err = LoadConfig(ConfigFiles{Global: global})
	require.NoError(t, err)
	assert.Equal(t, "/abs/idx", cfg.IndexDir)
}

// The natural key and weakMatchBelow: numbers within their ranges, the
// rest noted and left at the default.
func TestLoadConfigNatural(t *testing.T) {
	for _, c := range []struct {
		json  string
		want  NaturalConfig
		weak  float64
		notes []string
	}{
		{`{}`, DefaultNaturalConfig(), DefaultWeakMatchBelow, nil},
		{`{"natural":{"stemWeight":0.5,"canonicalB":0.6},"weakMatchBelow":0.25}`,
			NaturalConfig{CanonicalWeight: 1, StemWeight: 0.5, CanonicalB: 0.6, StemB: 0.3}, 0.25, nil},
		{`{"natural":{"stemB":2,"canonicalWeight":-1},"weakMatchBelow":7}`,
			NaturalConfig{CanonicalWeight: 0, StemWeight: 1, CanonicalB: 0.3, StemB: 1}, 1,
			[]string{"natural.canonicalWeight", "natural.stemB", "weakMatchBelow"}},
		{`{"natural":{"stemWeight":"x","bogus":1},"weakMatchBelow":null}`, DefaultNaturalConfig(), DefaultWeakMatchBelow,
			[]string{"natural.bogus", "natural.stemWeight", "weakMatchBelow"}},
		{`{"natural":[1]}`, DefaultNaturalConfig(), DefaultWeakMatchBelow, []string{"natural"}},
	} {
		f := filepath.Join(t.TempDir(), "fabric.json")
		require.NoError(t, os.WriteFile(f, []byte(`{"memory":`+c.json+`}`), 0o600))
		cfg, notes, err := LoadConfig(ConfigFiles{Global: f})
		require.NoError(t, err)
		assert.Equal(t, c.want, cfg.Natural, c.json)
		assert.Equal(t, c.weak, cfg.WeakMatchBelow, c.json)
		var keys []string
		for _, n := range notes {
			keys = append(keys, n.Key)
		}
		assert.Equal(t, c.notes, keys, c.json)
	}
}
