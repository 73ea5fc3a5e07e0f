package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A batch job learns from the exit status that a session is missing from
// the index: a *.jsonl file of NUL bytes (a sparse file) next to a good
// session is named in the summary and the rebuild exits 1.
func TestRebuildBatch(t *testing.T) {
	sparse := func(t *testing.T, w *world) {
		p := filepath.Join(w.agent, "sessions", w.bucket, "2026-09-02T10-00-00-000Z_sparse.jsonl")
		writeFile(t, p, "")
		require.NoError(t, os.Truncate(p, 8<<20))
	}
	runCases(t, []cliCase{
		{name: "rebuild-failed-session", args: []string{"rebuild", "--json", "--jobs", "2"}, exit: 1, setup: sparse},
		{name: "rebuild-jobs-zero", args: []string{"rebuild", "--jobs", "0"}, exit: 2},
	})
}

// The summary says how many jobs ran, the rate and the peak memory.
func TestRebuildSummary(t *testing.T) {
	w := newWorld(t)
	r := runCLI(t, []string{"--agent-dir", w.agent, "--index-dir", w.index, "rebuild", "--json"}, "", false)
	require.Equal(t, 0, r.code, r.stdout)
	var sum struct {
		Jobs           int     `json:"jobs"`
		BytesRead      int64   `json:"bytesRead"`
		BytesPerSecond float64 `json:"bytesPerSecond"`
		PeakRSSBytes   int64   `json:"peakRSSBytes"`
		Failed         *int    `json:"failed"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &sum))
	assert.Equal(t, runtime.GOMAXPROCS(0), sum.Jobs)
	assert.Greater(t, sum.BytesRead, int64(0))
	assert.Greater(t, sum.BytesPerSecond, 0.0)
	if runtime.GOOS == "linux" || runtime.GOOS == "darwin" {
		assert.Greater(t, sum.PeakRSSBytes, int64(1<<20))
	}
	require.NotNil(t, sum.Failed)
	assert.Zero(t, *sum.Failed)
}

// rebuild --force reads every selected session again, changed or not; a
// rebuild without it leaves the unchanged ones be.
func TestRebuildForce(t *testing.T) {
	w := newWorld(t)
	w.addOther(t)
	base := []string{"--agent-dir", w.agent, "--index-dir", w.index, "rebuild", "--json"}
	type counts struct{ Seen, Rebuilt, Unchanged int }
	rebuild := func(extra ...string) counts {
		r := runCLI(t, append(slices.Clone(base), extra...), "", false)
		require.Equal(t, exitOK, r.code, r.stdout+r.stderr)
		var c counts
		require.NoError(t, json.Unmarshal([]byte(r.stdout), &c))
		return c
	}
	assert.Equal(t, counts{Seen: 2, Rebuilt: 2}, rebuild())
	for _, c := range []struct {
		args []string
		want counts
	}{
		{nil, counts{Seen: 2, Unchanged: 2}},
		{[]string{"--force"}, counts{Seen: 2, Rebuilt: 2}},
		{[]string{"--force", "--scope", "session:" + fixtureID}, counts{Seen: 1, Rebuilt: 1}},
	} {
		assert.Equal(t, c.want, rebuild(c.args...), "%v", c.args)
	}
}
