package index

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/internal/lineage"
)

// A session demoted from hot to cold loses its hot shard; the shard's
// entry text leaves the file's bytes as a deleted session's does, so a
// phrase that only the entry text held is gone (the cold vocabulary keeps
// single tokens, not the phrase).
func TestRefresh_DemotionScrubsTheHotText(t *testing.T) {
	const phrase = "the zqdemoted-launch code is 4417, keep it quiet"
	for _, rebuild := range []bool{false, true} {
		t.Run(fmt.Sprintf("rebuild=%v", rebuild), func(t *testing.T) {
			f := newFixture(t, 0)
			f.cfg.HotSessions = 1
			ix := f.index()
			old := filepath.Join(f.dir, "old.jsonl")
			writeSession(t, old, "old", phrase, "and a second turn")
			mt := time.Now().Add(-time.Hour)
			require.NoError(t, os.Chtimes(old, mt, mt))
			rep := f.refreshOf(ix, lineage.Active, []string{old}, []string{f.dir}, rebuild)
			require.Equal(t, []string{Hot.String()}, tiersOf(rep))
			require.True(t, indexHolds(t, ix, phrase), "the hot shard holds the entry text")

			newer := filepath.Join(f.dir, "new.jsonl")
			writeSession(t, newer, "new", "a newer session takes the hot slot")
			rep = f.refreshOf(ix, lineage.Active, []string{old, newer}, []string{f.dir}, rebuild)
			require.Equal(t, []string{Cold.String(), Hot.String()}, tiersOf(rep), "old is demoted")
			assert.False(t, indexHolds(t, ix, phrase), "the demoted session's entry text is gone from index.db")
			assert.True(t, indexHolds(t, ix, "newer session takes the hot slot"))
		})
	}
}
