package index

import (
	"bufio"
	"context"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"github.com/memidx/memidx/internal/lineage"
)

// mappedRSS is the resident kB of this process's maps of path.
func mappedRSS(t *testing.T, path string) int {
	f, err := os.Open("/proc/self/smaps")
	require.NoError(t, err)
	defer f.Close()
	kb, in := 0, false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		fields := strings.Fields(line)
		if len(fields) >= 5 && strings.Contains(fields[0], "-") && !strings.HasSuffix(fields[0], ":") {
			in = len(fields) >= 6 && fields[5] == path
			continue
		}
		if in && len(fields) == 3 && fields[0] == "Rss:" {
			n, err := strconv.Atoi(fields[1])
			require.NoError(t, err)
			kb += n
		}
	}
	require.NoError(t, sc.Err())
	return kb
}

// A one-shot read of the manifest gives its pages of the index file's
// map back: what stays resident of the map is a few blocks the kernel
// maps around a fault (the meta pages, a bucket's root), however many
// sessions the manifest holds.
func TestManifestPagesAreGivenBack(t *testing.T) {
	for _, n := range []int{400, 1200} {
		f := newAcquireFixture(t, n)
		f.indexAll()
		require.NoError(t, f.ix.Close()) // its map of the file is gone
		ix := Open(f.ix.Config(), 0)
		t.Cleanup(func() { ix.Close() })
		got, err := ix.loadGateAt(context.Background(), lineage.Active)
		require.NoError(t, err)
		require.Len(t, got.stored, n)
		rss := mappedRSS(t, ix.store.Path())
		assert.LessOrEqual(t, rss, 6*faultAround>>10, "%d sessions: %d kB of the map resident", n, rss)
	}
}

// Only a bucket whose values lie in the map has pages to give back: a
// small manifest is stored inline in its parent (and copied to the Go
// heap when unaligned), and a writable transaction's values may be on
// the heap; giving those pages back would zero the heap's memory.
func TestOnlyValuesInTheMapAreGivenBack(t *testing.T) {
	for _, c := range []struct {
		sessions int
		inMap    bool
	}{{2, false}, {400, true}} {
		f := newAcquireFixture(t, c.sessions)
		f.indexAll()
		require.NoError(t, f.ix.store.View(context.Background(), func(tx *bolt.Tx) error {
			mb := tx.Bucket(manifestBucket)
			require.NotNil(t, mb)
			assert.Equal(t, c.inMap, valuesInMap(tx, mb), "%d sessions", c.sessions)
			return nil
		}))
		require.NoError(t, f.ix.store.Update(context.Background(), func(tx *bolt.Tx) error {
			assert.False(t, valuesInMap(tx, tx.Bucket(manifestBucket)), "%d sessions, writable", c.sessions)
			return nil
		}))
	}
}
