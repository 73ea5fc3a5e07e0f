package indexfile

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
)

// rssFileBytes is this process's resident file-backed memory.
func rssFileBytes(t *testing.T) int64 {
	f, err := os.Open("/proc/self/status")
	require.NoError(t, err)
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "RssFile:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			require.NoError(t, err)
			return kb << 10
		}
	}
	t.Skip("no RssFile in /proc/self/status")
	return 0
}

// A write transaction that read much of the file lets go of it.
func TestDropPages_WriteTransactionLetsGoOfWhatItRead(t *testing.T) {
	const size = 32 << 20
	s := New(filepath.Join(t.TempDir(), "idx"), Options{LockTimeout: time.Second})
	bucket, key := []byte("big"), []byte("v")
	require.NoError(t, s.Update(ctx, func(tx *bolt.Tx) error {
		b, err := tx.CreateBucket(bucket)
		if err != nil {
			return err
		}
		return b.Put(key, make([]byte, size))
	}))
	require.NoError(t, s.Update(ctx, func(tx *bolt.Tx) error {
		before := rssFileBytes(t)
		var sum byte
		v := tx.Bucket(bucket).Get(key)
		for i := 0; i < len(v); i += 4096 {
			sum += v[i] // map every page
		}
		read := rssFileBytes(t)
		require.Greater(t, read-before, int64(size/2), "reading the value maps it")
		DropPages(tx)
		require.Less(t, rssFileBytes(t)-before, int64(size/4), "dropped (sum %d)", sum)
		// Still readable: mapped again from the page cache.
		require.Len(t, tx.Bucket(bucket).Get(key), size)
		return tx.Bucket(bucket).Put([]byte("w"), []byte("x"))
	}))
}
