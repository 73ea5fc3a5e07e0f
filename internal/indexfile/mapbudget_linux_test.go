package indexfile

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
)

// bigValueStore is a store holding one value of size bytes under
// bucket/key.
func bigValueStore(t *testing.T, size int) (s *Store, bucket, key []byte) {
	s = New(filepath.Join(t.TempDir(), "idx"), Options{LockTimeout: time.Second})
	t.Cleanup(func() { s.Close() })
	bucket, key = []byte("big"), []byte("v")
	require.NoError(t, s.Update(ctx, func(tx *bolt.Tx) error {
		b, err := tx.CreateBucket(bucket)
		if err != nil {
			return err
		}
		v := make([]byte, size)
		for i := range v {
			v[i] = byte(i / 4096)
		}
		return b.Put(key, v)
	}))
	return s, bucket, key
}

// touch reads a byte of every page of v, mapping them all (the sum is
// kept, so that the reads are not optimised away).
func touch(v []byte) (sum byte) {
	for i := 0; i < len(v); i += 4096 {
		sum += v[i]
	}
	touched += sum
	return sum
}

var touched byte

// DropRange gives back what reading a value mapped, and the value reads
// the same after; a slice outside the map is left alone.
func TestDropRange_GivesBackAValuesPages(t *testing.T) {
	const size = 32 << 20
	s, bucket, key := bigValueStore(t, size)
	require.NoError(t, s.View(ctx, func(tx *bolt.Tx) error {
		before := rssFileBytes(t)
		v := tx.Bucket(bucket).Get(key)
		sum := touch(v)
		require.Greater(t, rssFileBytes(t)-before, int64(size/2), "reading the value maps it")
		DropRange(tx, v)
		require.Less(t, rssFileBytes(t)-before, int64(size/8), "given back")
		require.Equal(t, sum, touch(v), "mapped again from the page cache")
		DropRange(tx, make([]byte, 1<<20)) // not the map's: nothing happens
		DropRange(tx, nil)
		return nil
	}))
}

// A read on the kept handle that leaves more than the budget mapped has
// its map trimmed when it ends; without a budget the pages stay mapped.
func TestSetMapBudget_TrimsTheKeptMap(t *testing.T) {
	const size = 32 << 20
	for _, budget := range []int64{0, 4 << 20} {
		s, bucket, key := bigValueStore(t, size)
		s.SetMapBudget(budget)
		for range 2 { // the first installs the kept handle
			require.NoError(t, s.View(ctx, func(tx *bolt.Tx) error {
				touch(tx.Bucket(bucket).Get(key))
				return nil
			}))
		}
		if held := keptMapped(t, s); budget == 0 {
			require.Greater(t, held, int64(size/2), "no budget: the kept map holds the value")
		} else {
			require.Less(t, held, int64(size/8), "budget %d: trimmed", budget)
			require.NotNil(t, s.trim.statm.f)
		}
		require.NoError(t, s.Close())
		require.Nil(t, s.trim.statm.f, "Close lets go of /proc/self/statm")
	}
}

// keptMapped is how much of the file the kept handle's map holds
// resident: what giving its pages back frees.
func keptMapped(t *testing.T, s *Store) int64 {
	var held int64
	require.NoError(t, s.View(ctx, func(tx *bolt.Tx) error {
		before := rssFileBytes(t)
		DropPages(tx)
		held = before - rssFileBytes(t)
		return nil
	}))
	return held
}

// A statm field is read in place: the numbers bytes.Fields would give,
// and no allocation for a server's read a call.
func TestStatmField(t *testing.T) {
	for _, c := range []struct {
		line string
		i    int
		want int64
		ok   bool
	}{
		{"415202 26306 2134 864 0 43551 0\n", 2, 2134, true},
		{"415202 26306 2134 864 0 43551 0\n", 0, 415202, true},
		{"415202 26306 2134 864 0 43551 0\n", 6, 0, true},
		{"1 2 3", 2, 3, true},
		{"1  2   3\n", 2, 3, true},
		{"1 2\n", 2, 0, false},
		{"1 x 3\n", 1, 0, false},
		{"1 -2 3\n", 1, 0, false},
		{"", 0, 0, false},
	} {
		got, ok := statmField([]byte(c.line), c.i)
		require.Equal(t, c.ok, ok, "%q field %d", c.line, c.i)
		require.Equal(t, c.want, got, "%q field %d", c.line, c.i)
	}
	var r residentFile
	defer r.close()
	n, ok := r.bytes()
	require.True(t, ok)
	require.Positive(t, n)
	require.Zero(t, testing.AllocsPerRun(100, func() { r.bytes() }))
}
