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

// fillBig writes n values of 4 KiB in a bucket "x", over several commits,
// so that the file's pages (and its freelist) lie far past its start.
func fillBig(t *testing.T, s *Store, n int) {
	t.Helper()
	for batch := 0; batch < n; batch += 100 {
		require.NoError(t, s.Update(ctx, func(tx *bolt.Tx) error {
			b, err := tx.CreateBucketIfNotExists([]byte("x"))
			if err != nil {
				return err
			}
			for i := batch; i < min(batch+100, n); i++ {
				if err := b.Put(fmt.Appendf(nil, "k%05d", i), bytes.Repeat([]byte{byte(i)}, 4096)); err != nil {
					return err
				}
			}
			return nil
		}))
	}
}

// TestStore_FileTruncatedUnderAWriter: another process cuts the file while
// this one is inside a write transaction (the map then has pages past the
// file's end, and touching one faults). The write fails instead of
// hanging, the lock is let go, so another process writes within the bound,
// and this Store works again once the file is reset.
func TestStore_FileTruncatedUnderAWriter(t *testing.T) {
	for _, c := range []struct {
		name string
		// after runs in the transaction once the file was cut.
		after func(b *bolt.Bucket) error
		cut   int64
	}{
		{"then read", func(b *bolt.Bucket) error {
			for i := 0; i < 2000; i++ {
				_ = b.Get(fmt.Appendf(nil, "k%05d", i))
			}
			return nil
		}, 8 * 4096},
		{"then write", func(b *bolt.Bucket) error {
			for i := 0; i < 2000; i += 7 {
				if err := b.Put(fmt.Appendf(nil, "k%05d", i), []byte("new")); err != nil {
					return err
				}
			}
			return nil
		}, 8 * 4096},
		{"then delete", func(b *bolt.Bucket) error {
			for i := 0; i < 2000; i += 3 {
				if err := b.Delete(fmt.Appendf(nil, "k%05d", i)); err != nil {
					return err
				}
			}
			return nil
		}, 64 * 4096},
		{"to nothing", func(b *bolt.Bucket) error {
			_ = b.Get([]byte("k01999"))
			return nil
		}, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			a := New(dir, Options{LockTimeout: time.Second})
			other := New(dir, Options{LockTimeout: 5 * time.Second})
			defer a.Close()
			defer other.Close()
			fillBig(t, a, 2000)

			done := make(chan error, 1)
			go func() {
				done <- a.UpdateScrub(ctx, func(tx *bolt.Tx) error {
					require.NoError(t, os.Truncate(a.Path(), c.cut)) // another process
					return c.after(tx.Bucket([]byte("x")))
				})
			}()
			select {
			case err := <-done:
				assert.ErrorIs(t, err, ErrCorrupt, "a write to a cut file fails")
			case <-time.After(10 * time.Second):
				t.Fatal("the write hangs on a cut file")
			}

			// Another process gets the lock, within the bound, and may
			// reset the damaged file and write.
			start := time.Now()
			err := other.Update(ctx, func(*bolt.Tx) error { return nil })
			if err != nil {
				assert.NotErrorIs(t, err, ErrLocked)
				require.NoError(t, other.Reset())
				put(t, other, "after", "1")
			}
			assert.Less(t, time.Since(start), 5*time.Second)

			// This Store goes on with the file as it is now.
			put(t, a, "again", "2")
			for k, want := range map[string]string{"after": "", "again": "2"} {
				v, err := get(a, k)
				require.NoError(t, err)
				if want != "" {
					assert.Equal(t, want, v, k)
				}
			}
		})
	}
}
