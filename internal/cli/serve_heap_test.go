package cli

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/engine"
	"github.com/memidx/memidx/internal/hugeheap"
	"github.com/memidx/memidx/internal/indexfile"
)

// gcPercent is the collector's current GOGC.
func gcPercent() int {
	p := debug.SetGCPercent(-1)
	debug.SetGCPercent(p)
	return p
}

// A long-lived host collects at hostGCPercent while it serves, unless
// GOGC is set, and puts the process's setting back when it ends.
func TestServeSetsTheHostsCollector(t *testing.T) {
	w := newServeWorld(t)
	before := gcPercent()
	for _, tc := range []struct {
		gogc string
		want int
	}{{"", hostGCPercent}, {"80", before}} {
		t.Setenv("GOGC", tc.gogc)
		serving := -2
		serveOpening = func(engine.Options) { serving = gcPercent() }
		g := globals{agentDir: w.agent, indexDir: w.index, cwd: w.project}
		err := cmdServe(context.Background(), g, []string{"--stdio", "--no-socket"}, strings.NewReader(""), io.Discard, io.Discard)
		serveOpening = nil
		require.NoError(t, err)
		assert.Equal(t, tc.want, serving, "GOGC=%q: while serving", tc.gogc)
		assert.Equal(t, before, gcPercent(), "GOGC=%q: after", tc.gogc)
	}
}

// A short question advises its heap (hugeheap) once a process, when Main
// armed it and the index file is large; a server's commands never.
func TestShortQuestionAdvisesItsHeapOnce(t *testing.T) {
	small, large := t.TempDir(), t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(small, indexfile.FileName), []byte("x"), 0o600))
	f, err := os.Create(filepath.Join(large, indexfile.FileName))
	require.NoError(t, err)
	require.NoError(t, f.Truncate(hugeHeapIndex)) // sparse
	require.NoError(t, f.Close())
	assert.False(t, largeIndex(small))
	assert.True(t, largeIndex(large))
	assert.False(t, largeIndex(t.TempDir()), "no index file")

	var calls []int
	prepareHeap = func(n int) bool { calls = append(calls, n); return true }
	defer func() { prepareHeap, _ = hugeheap.Prepare, hugeHeap.Swap(false) }()
	adviseHeap(globals{indexDir: large})
	assert.Empty(t, calls, "not armed: a command run in process")
	hugeHeap.Store(true)
	adviseHeap(globals{indexDir: large, served: &served{}})
	assert.Empty(t, calls, "a server's command")
	adviseHeap(globals{indexDir: small})
	assert.Empty(t, calls, "a small index")
	hugeHeap.Store(true)
	g := globals{indexDir: large, agentDir: t.TempDir(), cwd: t.TempDir()}
	for range 2 {
		require.NoError(t, runCommand(context.Background(), g, "catalog", nil, strings.NewReader(""), io.Discard, io.Discard))
	}
	assert.Equal(t, []int{shortHugeHeap}, calls, "once a process")
}
