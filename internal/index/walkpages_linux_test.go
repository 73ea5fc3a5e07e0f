package index

import (
	"bufio"
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/internal/lineage"
)

// mappedKiB is the resident size of this process's maps of path, from
// /proc/self/smaps: the pages of the file its page tables hold.
func mappedKiB(t *testing.T, path string) (kib int, mapped bool) {
	f, err := os.Open("/proc/self/smaps")
	require.NoError(t, err)
	defer f.Close()
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		// A map's header: range, perms, offset, dev, inode[, path].
		if fields := strings.Fields(line); len(fields) >= 5 && strings.Contains(fields[0], "-") && len(fields[1]) == 4 {
			in = len(fields) >= 6 && fields[len(fields)-1] == path
			mapped = mapped || in
			continue
		}
		if rest, ok := strings.CutPrefix(line, "Rss:"); in && ok {
			n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
			require.NoError(t, err)
			kib += n
		}
	}
	require.NoError(t, sc.Err())
	return kib, mapped
}

// The walks of every record (the manifest of a one-shot call, the full
// records a long-lived host keeps) leave none of the pages they faulted in
// counted in the map the Index keeps between reads: a server's resident
// size does not grow with the sessions its calls never read again.
func TestRecordWalksLeaveTheKeptMapEmpty(t *testing.T) {
	f := newAcquireFixture(t, 600)
	f.indexAll()
	f.ix.Close() // its own map of the file would count too
	for _, tc := range []struct {
		name string
		walk func(ix *Index) (int, error)
	}{
		{"manifest", func(ix *Index) (int, error) {
			l, err := ix.loadGateAt(context.Background(), lineage.Active)
			return len(l.stored), err
		}},
		{"records", func(ix *Index) (int, error) {
			l, err := ix.loadRecordsAt(context.Background(), lineage.Active)
			return len(l.stored), err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ix := Open(f.ix.Config(), time.Second)
			t.Cleanup(func() { ix.Close() })
			n, err := tc.walk(ix)
			require.NoError(t, err)
			require.Equal(t, 600, n)
			kib, mapped := mappedKiB(t, ix.store.Path())
			if !mapped {
				t.Skip("the platform keeps no map between reads")
			}
			st, err := os.Stat(ix.store.Path())
			require.NoError(t, err)
			assert.Less(t, kib, 16, "resident KiB of the kept map of a %d KiB file", st.Size()/1024)
		})
	}
}
