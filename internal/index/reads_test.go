package index

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A build reads its source once, not a probe and then a read: a file
// written just now costs one pass a call, and one rebuilt session one
// pass (the slim reader's large sessions keep their probe).
func TestBuildReadsItsSourceOnce(t *testing.T) {
	for _, words := range []int{1, 2_000, 60_000} {
		t.Run(fmt.Sprint("words=", words), func(t *testing.T) {
			f := newFixture(t, 1)
			require.NoError(t, os.WriteFile(f.paths[0], []byte(sessionText("s0", strings.Repeat("walrus ", words))), 0o600))
			ix := Open(f.cfg, time.Second)
			ix.RacyWindow = time.Hour // every call re-hashes the file
			rep, reads := f.refreshCounted(ix)
			require.Equal(t, 1, rep.Rebuilt)
			assert.Equal(t, int64(1), reads, "the build")
			rep, reads = f.refreshCounted(ix)
			require.Equal(t, 1, rep.Unchanged)
			assert.Equal(t, int64(1), reads, "the re-hash of a racy record")

			b, err := ix.BuildSource(Target{Path: f.paths[0]}, nil, "active", Hot)
			require.NoError(t, err)
			assert.Equal(t, int32(1), b.Record.EntryCount)
		})
	}
}

// The one-pass read still answers as the two-pass read did: a file that
// is no session, and one over the build bound, by its lines.
func TestOnePassReadRefuses(t *testing.T) {
	f := newFixture(t, 2)
	require.NoError(t, os.WriteFile(f.paths[0], []byte("\x00\x00\x00\n"), 0o600))
	many := sessionText("s1", strings.Fields(strings.Repeat("walrus ", 2000))...) // a line a word
	require.NoError(t, os.WriteFile(f.paths[1], []byte(many), 0o600))
	gate := newBuildGate(BuildCost(1<<20, 0))
	_, release, err := readSourceInto(ctx, nil, f.paths[0], nil, gate, false)
	release()
	assert.ErrorIs(t, err, ErrNotSession)
	gate = newBuildGate(BuildCost(int64(len(many)), 100))
	_, release, err = readSourceInto(ctx, nil, f.paths[1], nil, gate, false)
	release()
	assert.ErrorIs(t, err, ErrOverBuildBudget)
	assert.Zero(t, gate.used, "every charge given back")
}

// A small file of so many lines that it is read slim is read twice: the
// one pass that counts them, then the slim read (no probe besides).
func TestManyLinedSourceIsReadTwice(t *testing.T) {
	f := newFixture(t, 1)
	text := sessionText("s0", strings.Fields(strings.Repeat("walrus ", 40_000))...)
	require.Less(t, int64(len(text)), int64(onePassMax))
	require.True(t, useSlim(int64(len(text)), int64(strings.Count(text, "\n"))))
	require.NoError(t, os.WriteFile(f.paths[0], []byte(text), 0o600))
	ix := Open(f.cfg, time.Second)
	rep, reads := f.refreshCounted(ix)
	require.Equal(t, 1, rep.Rebuilt)
	assert.Equal(t, int64(2), reads)
}
