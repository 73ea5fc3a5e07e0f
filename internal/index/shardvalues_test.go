package index

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
)

// shardValues reads through one cursor what three Gets would: a value
// under each key, nil for a missing key (even when a longer key follows
// it) and for a nested bucket.
func TestShardValuesReadsAsGetDoes(t *testing.T) {
	db, err := bolt.Open(filepath.Join(t.TempDir(), "x.db"), 0o600, nil)
	require.NoError(t, err)
	defer db.Close()
	cases := []struct {
		name  string
		setup func(b *bolt.Bucket) error
	}{
		{"all three", func(b *bolt.Bucket) error {
			for _, k := range [][]byte{keyDict, keyCols, keyEnts} {
				if err := b.Put(k, append([]byte("v-"), k...)); err != nil {
					return err
				}
			}
			return nil
		}},
		{"dict missing, a longer key after it", func(b *bolt.Bucket) error {
			if err := b.Put([]byte("d2"), []byte("x")); err != nil {
				return err
			}
			return b.Put(keyEnts, []byte("v-e"))
		}},
		{"cols a nested bucket", func(b *bolt.Bucket) error {
			if _, err := b.CreateBucket(keyCols); err != nil {
				return err
			}
			return b.Put(keyDict, []byte("v-d"))
		}},
		{"empty", func(b *bolt.Bucket) error { return nil }},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			name := []byte{byte('a' + i)}
			require.NoError(t, db.Update(func(tx *bolt.Tx) error {
				b, err := tx.CreateBucket(name)
				if err != nil {
					return err
				}
				return c.setup(b)
			}))
			require.NoError(t, db.View(func(tx *bolt.Tx) error {
				b := tx.Bucket(name)
				d, cl, e := shardValues(b)
				assert.Equal(t, b.Get(keyDict), d)
				assert.Equal(t, b.Get(keyCols), cl)
				assert.Equal(t, b.Get(keyEnts), e)
				return nil
			}))
		})
	}
}
