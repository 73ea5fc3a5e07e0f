package indexfile

import (
	"bytes"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
)

// fill writes n values of the secret-bearing kind: a small one inline in
// a leaf, a large one on overflow pages, in a sub-bucket like a hot shard.
func fill(t *testing.T, s *Store, n int, word string) {
	t.Helper()
	require.NoError(t, s.Update(ctx, func(tx *bolt.Tx) error {
		x, err := tx.CreateBucketIfNotExists([]byte("x"))
		if err != nil {
			return err
		}
		for i := 0; i < n; i++ {
			k := []byte(fmt.Sprintf("%s-%03d", word, i))
			if err := x.Put(k, []byte("small "+word)); err != nil {
				return err
			}
			sub, err := x.CreateBucket(append(k, '/'))
			if err != nil {
				return err
			}
			if err := sub.Put([]byte("e"), bytes.Repeat([]byte(word+" "), 3000)); err != nil {
				return err
			}
		}
		return nil
	}))
}

// drop deletes every value of word, with update (Update or UpdateScrub).
func drop(t *testing.T, update func(*Store, func(*bolt.Tx) error) error, s *Store, n int, word string) {
	t.Helper()
	require.NoError(t, update(s, func(tx *bolt.Tx) error {
		x := tx.Bucket([]byte("x"))
		for i := 0; i < n; i++ {
			k := []byte(fmt.Sprintf("%s-%03d", word, i))
			if err := x.Delete(k); err != nil {
				return err
			}
			if err := x.DeleteBucket(append(k, '/')); err != nil {
				return err
			}
		}
		return nil
	}))
}

func fileHas(t *testing.T, s *Store, word string) bool {
	t.Helper()
	b, err := os.ReadFile(s.Path())
	require.NoError(t, err)
	return bytes.Contains(b, []byte(word))
}

func TestStore_UpdateScrubZeroesDeletedValues(t *testing.T) {
	plain := func(s *Store, fn func(*bolt.Tx) error) error { return s.Update(ctx, fn) }
	scrub := func(s *Store, fn func(*bolt.Tx) error) error { return s.UpdateScrub(ctx, fn) }
	for _, noSync := range []bool{false, true} {
		t.Run(fmt.Sprintf("NoSync=%v", noSync), func(t *testing.T) {
			s := New(t.TempDir(), Options{NoSync: noSync})
			fill(t, s, 10, "zqkeepme")
			fill(t, s, 10, "zqsecret")
			fill(t, s, 10, "zqlater")

			// A plain delete leaves the bytes in free pages: what the scrub
			// is for.
			drop(t, plain, s, 10, "zqsecret")
			require.True(t, fileHas(t, s, "zqsecret"), "bbolt left the deleted bytes in the file")

			// The scrub zeroes every free page: the copies that the plain
			// delete left, and what this delete frees.
			drop(t, scrub, s, 10, "zqlater")
			assert.False(t, fileHas(t, s, "zqsecret"))
			assert.False(t, fileHas(t, s, "zqlater"))
			assert.True(t, fileHas(t, s, "zqkeepme"))

			// The file is sound and keeps what was not deleted.
			db, err := bolt.Open(s.Path(), 0o600, &bolt.Options{ReadOnly: true})
			require.NoError(t, err)
			require.NoError(t, db.View(func(tx *bolt.Tx) error {
				for err := range tx.Check() {
					t.Error(err)
				}
				x := tx.Bucket([]byte("x"))
				for i := 0; i < 10; i++ {
					k := []byte(fmt.Sprintf("zqkeepme-%03d", i))
					assert.Equal(t, "small zqkeepme", string(x.Get(k)))
					assert.Len(t, x.Bucket(append(k, '/')).Get([]byte("e")), 3000*len("zqkeepme "))
				}
				return nil
			}))
			require.NoError(t, db.Close())

			// And takes more writes: the zeroed pages are reused.
			fill(t, s, 10, "zqagain")
			drop(t, scrub, s, 10, "zqagain")
			assert.False(t, fileHas(t, s, "zqagain"))
			v, err := get(s, "zqkeepme-003")
			require.NoError(t, err)
			assert.Equal(t, "small zqkeepme", v)
		})
	}
}

func TestFreelistIDsMatchBbolt(t *testing.T) {
	s := New(t.TempDir(), Options{})
	fill(t, s, 20, "a")
	drop(t, func(s *Store, fn func(*bolt.Tx) error) error { return s.Update(ctx, fn) }, s, 10, "a")
	f, err := os.Open(s.Path())
	require.NoError(t, err)
	defer f.Close()
	m, ok := currentMeta(f)
	require.True(t, ok)
	ids, err := freelistIDs(f, m)
	require.NoError(t, err)
	require.NotEmpty(t, ids)

	db, err := bolt.Open(s.Path(), 0o600, nil)
	require.NoError(t, err)
	defer db.Close()
	tx, err := db.Begin(true)
	require.NoError(t, err)
	defer tx.Rollback()
	assert.Equal(t, uint64(tx.ID()), m.txid+1)
	want := map[uint64]bool{}
	for id := 2; ; id++ {
		info, err := tx.Page(id)
		require.NoError(t, err)
		if info == nil {
			break
		}
		if info.Type == "free" {
			want[uint64(id)] = true
		}
	}
	got := map[uint64]bool{}
	for _, id := range ids {
		got[id] = true
	}
	assert.Equal(t, want, got)
}

// Another handle (another process, as far as flock can tell) reads while
// one deletes and scrubs: a reader never sees a zeroed page, because the
// scrub runs under the writer's exclusive lock.
func TestStore_ScrubWhileAnotherHandleReads(t *testing.T) {
	dir := t.TempDir()
	w := New(dir, Options{LockTimeout: 5 * time.Second})
	r := New(dir, Options{LockTimeout: 5 * time.Second})
	fill(t, w, 5, "zqkeep")
	done := make(chan struct{})
	errs := make(chan error, 1)
	go func() {
		defer close(errs)
		for {
			select {
			case <-done:
				return
			default:
			}
			err := r.View(ctx, func(tx *bolt.Tx) error {
				x := tx.Bucket([]byte("x"))
				for i := 0; i < 5; i++ {
					k := []byte(fmt.Sprintf("zqkeep-%03d", i))
					if string(x.Get(k)) != "small zqkeep" || len(x.Bucket(append(k, '/')).Get([]byte("e"))) != 3000*len("zqkeep ") {
						return fmt.Errorf("%s changed", k)
					}
				}
				return nil
			})
			if err != nil {
				errs <- err
				return
			}
			// A breath between reads: flock is not fair, and a reader that
			// takes the shared lock again at once can starve the writer
			// past its timeout on a loaded machine (the race detector's CI
			// run did, once), which is not what this test is about.
			time.Sleep(100 * time.Microsecond)
		}
	}()
	scrub := func(s *Store, fn func(*bolt.Tx) error) error { return s.UpdateScrub(ctx, fn) }
	for i := 0; i < 20; i++ {
		word := fmt.Sprintf("zqgone%d", i)
		fill(t, w, 3, word)
		drop(t, scrub, w, 3, word)
	}
	close(done)
	require.NoError(t, <-errs)
	assert.False(t, fileHas(t, w, "zqgone"))
}
