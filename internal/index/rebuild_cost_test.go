package index

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/internal/lineage"
)

// An archive of 100,000 sessions is mostly sessions of a few KB: what a
// build allocates beyond its source's worth is garbage the collector pays
// for once per session.
func TestBuild_SmallSessionAllocatesInProportion(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector drops pooled buffers: allocations are not the program's")
	}
	dir := t.TempDir()
	words := strings.Fields(strings.Repeat("alpha beta gamma delta ", 4))
	for i := range words {
		words[i] = fmt.Sprintf("%s%d", words[i], i)
	}
	path := filepath.Join(dir, "small.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(sessionText("small", words...)), 0o600))
	src, err := ReadSource(path)
	require.NoError(t, err)
	ix := Open(DefaultConfig(), 0)
	for _, tier := range []Tier{Cold, Hot} {
		t.Run(tier.String(), func(t *testing.T) {
			_, err := ix.build(src, lineage.Active, tier, nil, false) // warm the pools
			require.NoError(t, err)
			const builds = 100
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			for range builds {
				_, err := ix.build(src, lineage.Active, tier, nil, false)
				require.NoError(t, err)
			}
			runtime.ReadMemStats(&after)
			perBuild := (after.TotalAlloc - before.TotalAlloc) / builds
			limit := uint64(fixedBuildAlloc + 16*len(src.Data))
			t.Logf("%d-byte session: %d bytes a build", len(src.Data), perBuild)
			require.LessOrEqual(t, perBuild, limit, "a %d-byte session's build allocates %d bytes", len(src.Data), perBuild)
		})
	}
}

// fixedBuildAlloc bounds what a build allocates whatever its source's size.
const fixedBuildAlloc = 128 << 10
