//go:build unix

package reliability

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/internal/index"
	"github.com/memidx/memidx/internal/lineage"
)

const bugFreshRecordRace = "BUG: a refresh that re-hashes a racy record and finds it unchanged writes that record back " +
	"(built{rec} without tier data) even when another process has meanwhile moved the session to the other tier and " +
	"deleted the old tier's data; the record then points at data that does not exist, every answer says index_error " +
	"and leaves the session out, and no refresh or rebuild repairs it while the file is unchanged (seen in " +
	"TestSoakConcurrentReadersRebuildWriter's final check); repro: TestSoakFreshRecordOverwritesTierMove"

// TestSoakFreshRecordOverwritesTierMove reproduces, in one process and
// deterministically, the lost update the soak found: process A loads the
// records and re-hashes two racy sessions; before A writes, process B
// (another hotSessions) moves session S from cold to hot, deleting its
// cold digest; A then writes back its old cold record of S. Every record
// must keep its tier data, and the next refreshes must answer from it.
func TestSoakFreshRecordOverwritesTierMove(t *testing.T) {
	t.Parallel()
	seeded(t)
	ctx := context.Background()
	root := t.TempDir()
	write := func(name, id string, age time.Duration) string {
		p := filepath.Join(root, name)
		require.NoError(t, os.WriteFile(p, lines(headerLine(id, root), msgLine("u1", "", tsAt(1), userMsg("hello "+id))), 0o600))
		mt := time.Now().Add(-age)
		require.NoError(t, os.Chtimes(p, mt, mt))
		return p
	}
	s := write("2026-09-01T10-00-00-000Z_s.jsonl", "s", 200*time.Millisecond) // older
	u := write("2026-09-01T10-00-01-000Z_u.jsonl", "u", 100*time.Millisecond) // newer
	targets := []index.Target{{Path: s}, {Path: u}}

	cfgA := index.DefaultConfig()
	cfgA.IndexDir = filepath.Join(root, "index")
	cfgA.HotSessions = 1 // u hot, s cold
	cfgB := cfgA
	cfgB.HotSessions = 2 // both hot
	a, b := index.Open(cfgA, time.Second), index.Open(cfgB, time.Second)

	_, err := a.Refresh(ctx, targets, index.RefreshOptions{})
	require.NoError(t, err)
	// Both sources changed less than the racy window ago: A re-hashes them.
	moved := false
	_, err = a.Refresh(ctx, targets, index.RefreshOptions{Progress: func(int, int, int64) {
		if !moved {
			moved = true
			_, err := b.Refresh(ctx, targets, index.RefreshOptions{})
			require.NoError(t, err)
		}
	}})
	require.NoError(t, err)
	require.True(t, moved, "the second refresh re-read the racy sources")

	for round := 0; round < 2; round++ {
		rep, err := a.Refresh(ctx, targets, index.RefreshOptions{NoBudgets: true})
		require.NoError(t, err)
		require.NoError(t, a.View(ctx, lineage.Active, func(rd *index.Reader) error {
			for _, st := range rep.States {
				rec := st.Record
				require.NotNil(t, rec, st.Path)
				if rec.Tier == index.Hot {
					_, err := rd.Shard(rec)
					assert.NoError(t, err, "round %d: %s is hot but its shard is missing", round, filepath.Base(rec.Path))
				} else {
					_, _, err := rd.Digest(rec)
					assert.NoError(t, err, "round %d: %s is cold but its digest is missing", round, filepath.Base(rec.Path))
				}
			}
			return nil
		}))
	}
}
