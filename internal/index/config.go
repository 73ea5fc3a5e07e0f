package index

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"

	"github.com/memidx/memidx/internal/session"
)

// Config is the memory section of fabric.json, with the spec's defaults.
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
	// MaxBuildBytes is memidx's own key (not the reference's): the memory
	// that the sessions being read and built at once may hold, across all
	// workers. Each source is charged an estimate made before its bytes are
	// allocated (BuildCost: about 4 bytes a source byte plus 2 KiB a
	// record, or for a long session read slim SlimBuildCost: about a
	// source byte plus 48 bytes a record); a worker waits until its charge
	// fits, and a source whose charge alone exceeds the bound is skipped
	// with the reason max_build_bytes instead of being allocated. Default
	// 1 GiB, which builds a session of about 200 MB of ordinary records
	// read whole, and one of 1,000,000 tiny records (150 MB) read slim.
	MaxBuildBytes int `json:"maxBuildBytes"`
	// Natural is memidx's own key: the scoring of natural-language
	// queries (see NaturalConfig).
	Natural NaturalConfig `json:"natural"`
	// WeakMatchBelow is memidx's own key: a recall page whose
	// queryCoverage is under it is a weak match, which a host should
	// treat as no evidence (the CLI says "weak match"). Default 0.5.
	WeakMatchBelow float64 `json:"weakMatchBelow"`
}

// DefaultConfig returns the spec's defaults; IndexDir is filled from the
// agent directory when empty.
func DefaultConfig() Config {
	return Config{
		Enabled:                true,
		MaxSessions:            500,
		MaxEntryChars:          2000,
		IndexThinking:          false,
		IndexToolOutput:        true,
		HotSessions:            50,
		MaxColdVocabularyBytes: 524288,
		MaxColdCacheBytes:      1048576,
		MaxSyncSessions:        10000,
		MaxSyncSourceBytes:     536870912,
		MaxCacheCleanupFiles:   100000,
		RegexMaxPatternBytes:   1024,
		RegexMaxHaystackTerms:  20000,
		RegexMaxHaystackBytes:  2097152,
		RegexTimeoutMs:         250,
		MaxBuildBytes:          DefaultMaxBuildBytes,
		Natural:                DefaultNaturalConfig(),
		WeakMatchBelow:         DefaultWeakMatchBelow,
	}
}

// DefaultMaxBuildBytes is the default of maxBuildBytes.
const DefaultMaxBuildBytes = 1 << 30

// DefaultIndexDir is <agentDir>/fabric/memory-index.
func DefaultIndexDir(agentDir string) string {
	return filepath.Join(agentDir, "fabric", "memory-index")
}

// bounds are the reference's allowed ranges; an integer outside is clamped,
// a non-integer takes the default.
var bounds = map[string][2]float64{
	"maxSessions":            {1, 100000},
	"maxEntryChars":          {100, 1000000},
	"hotSessions":            {0, 100000},
	"maxColdVocabularyBytes": {2, 64 << 20},
	"maxColdCacheBytes":      {512, 128 << 20},
	"maxSyncSessions":        {1, 1e6},
	"maxSyncSourceBytes":     {1024, 8 << 30},
	"maxCacheCleanupFiles":   {1, 1e6},
	"regexMaxPatternBytes":   {1, 65536},
	"regexMaxHaystackTerms":  {1, 1e6},
	"regexMaxHaystackBytes":  {1024, 128 << 20},
	"regexTimeoutMs":         {10, 10000},
	"maxBuildBytes":          {1 << 20, 1 << 40},
}

// Notice is something a configuration file said that was not taken as is.
type Notice struct {
	File    string `json:"file"`
	Key     string `json:"key"`
	Message string `json:"message"`
}

// ConfigFiles names where configuration comes from.
type ConfigFiles struct {
	// Global is <agentDir>/fabric.json (or --config).
	Global string
	// Project is <project>/.omp/fabric.json, read only when Trusted.
	Project string
	Trusted bool
}

// LoadConfig reads the memory section of the global file, then of the
// project file when the project is trusted, over the defaults. Missing
// files are fine; a file that is not JSON is an error. Unknown keys, wrong
// types and clamped values come back as notices.
func LoadConfig(files ConfigFiles) (Config, []Notice, error) {
	cfg := DefaultConfig()
	var notices []Notice
	for _, f := range []struct {
		path string
		use  bool
	}{{files.Global, true}, {files.Project, files.Trusted}} {
		if f.path == "" || !f.use {
			continue
		}
		b, err := readConfigFile(f.path)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return cfg, notices, fmt.Errorf("config %s: %w", f.path, err)
		}
		n, err := applyConfig(&cfg, f.path, b)
		notices = append(notices, n...)
		if err != nil {
			return cfg, notices, err
		}
	}
	return cfg, notices, nil
}

// maxConfigBytes bounds a configuration file.
const maxConfigBytes = 1 << 20

// readConfigFile reads a configuration file that must be a regular file of
// at most maxConfigBytes: a FIFO or /dev/zero in its place must neither
// block nor exhaust memory.
func readConfigFile(path string) ([]byte, error) {
	f, st, err := session.OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st.Size() > maxConfigBytes {
		return nil, fmt.Errorf("%d bytes, over the %d-byte limit for a configuration file", st.Size(), maxConfigBytes)
	}
	return session.AppendAll(io.LimitReader(f, maxConfigBytes+1), nil)
}

func applyConfig(cfg *Config, path string, b []byte) ([]Notice, error) {
	var top map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&top); err != nil {
		return nil, fmt.Errorf("config %s: not a JSON object: %w", path, err)
	}
	raw, ok := top["memory"]
	if !ok {
		return nil, nil
	}
	var mem map[string]json.RawMessage
	if err := json.Unmarshal(raw, &mem); err != nil {
		return []Notice{{path, "memory", "not an object; ignored"}}, nil
	}
	var notices []Notice
	note := func(k, format string, a ...any) {
		notices = append(notices, Notice{path, k, fmt.Sprintf(format, a...)})
	}
	keys := make([]string, 0, len(mem))
	for k := range mem {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	def := DefaultConfig()
	defs, fields := def.intFields(), cfg.intFields()
	for _, k := range keys {
		v := mem[k]
		switch k {
		case "enabled", "indexThinking", "indexToolOutput":
			applyBool(cfg, k, v, note)
		case "indexDir":
			var s string
			if err := json.Unmarshal(v, &s); err != nil || s == "" {
				note(k, "not a non-empty string; default kept")
				continue
			}
			cfg.IndexDir = resolveFrom(path, s)
		case "natural":
			applyNatural(cfg, v, note)
		case "weakMatchBelow":
			applyFloat(&cfg.WeakMatchBelow, k, v, note)
		case "digestTerms":
			note(k, "accepted by the reference but never used; ignored")
		default:
			applyInt(fields, defs, k, v, note)
		}
	}
	return notices, nil
}

// applyBool sets one of the boolean keys.
func applyBool(cfg *Config, k string, v json.RawMessage, note func(k, format string, a ...any)) {
	var bv bool
	if err := json.Unmarshal(v, &bv); err != nil {
		note(k, "not a boolean; default kept")
		return
	}
	switch k {
	case "enabled":
		cfg.Enabled = bv
	case "indexThinking":
		cfg.IndexThinking = bv
	case "indexToolOutput":
		cfg.IndexToolOutput = bv
	}
}

// applyInt sets the integer key k (its field in fields) within the
// reference's bounds: an unknown key is ignored, a non-integer keeps the
// default (in defs), a value outside the bounds is clamped.
func applyInt(fields, defs map[string]*int, k string, v json.RawMessage, note func(k, format string, a ...any)) {
	bd, known := bounds[k]
	if !known {
		note(k, "unknown key; ignored")
		return
	}
	field, def := fields[k], *defs[k]
	var f float64
	if err := json.Unmarshal(v, &f); err != nil || f != math.Trunc(f) {
		note(k, "not an integer; default %d kept", def)
		*field = def
		return
	}
	if f < bd[0] || f > bd[1] {
		c := math.Min(math.Max(f, bd[0]), bd[1])
		note(k, "%v is outside %v..%v; clamped to %v", f, bd[0], bd[1], c)
		f = c
	}
	if f > math.MaxInt { // a 32-bit int: keep the largest it holds
		f = math.MaxInt
	}
	*field = int(f)
}

// intFields maps each integer key to its field.
func (c *Config) intFields() map[string]*int {
	return map[string]*int{
		"maxSessions":            &c.MaxSessions,
		"maxEntryChars":          &c.MaxEntryChars,
		"hotSessions":            &c.HotSessions,
		"maxColdVocabularyBytes": &c.MaxColdVocabularyBytes,
		"maxColdCacheBytes":      &c.MaxColdCacheBytes,
		"maxSyncSessions":        &c.MaxSyncSessions,
		"maxSyncSourceBytes":     &c.MaxSyncSourceBytes,
		"maxCacheCleanupFiles":   &c.MaxCacheCleanupFiles,
		"regexMaxPatternBytes":   &c.RegexMaxPatternBytes,
		"regexMaxHaystackTerms":  &c.RegexMaxHaystackTerms,
		"regexMaxHaystackBytes":  &c.RegexMaxHaystackBytes,
		"regexTimeoutMs":         &c.RegexTimeoutMs,
		"maxBuildBytes":          &c.MaxBuildBytes,
	}
}

// resolveFrom makes a path named in the configuration file at file
// absolute against that file's directory: never against the process's
// working directory, which would put a plaintext index wherever memidx
// happens to run.
func resolveFrom(file, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	dir := filepath.Dir(file)
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	return filepath.Join(dir, p)
}
