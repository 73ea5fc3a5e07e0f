package cli

import (
	"context"
	"io"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/engine"
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
