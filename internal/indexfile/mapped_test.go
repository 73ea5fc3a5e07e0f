package indexfile

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
)

// Mapped is the map bbolt read the file into, never longer: for a file
// cut short before it was opened, a transaction's size passes the map,
// and Mapped stops at the map's end. A bbolt that renamed the map's
// length fails here (mapLen 0: nothing would be given back).
func TestMappedIsTheMap(t *testing.T) {
	path := filepath.Join(t.TempDir(), "index.db")
	db, err := bolt.Open(path, 0o600, nil)
	require.NoError(t, err)
	require.NoError(t, db.Update(func(tx *bolt.Tx) error {
		b, err := tx.CreateBucket([]byte("b"))
		if err != nil {
			return err
		}
		for i := range 2000 {
			if err := b.Put([]byte{byte(i >> 8), byte(i)}, make([]byte, 1000)); err != nil {
				return err
			}
		}
		return nil
	}))
	require.NoError(t, db.View(func(tx *bolt.Tx) error {
		m := Mapped(tx)
		assert.Equal(t, tx.Size(), int64(m.Len), "a whole file: the transaction's size")
		assert.GreaterOrEqual(t, mapLen(db), tx.Size())
		return nil
	}))
	require.NoError(t, db.Close())

	require.NoError(t, os.Truncate(path, 64<<10)) // the meta pages stay
	db, err = bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true})
	require.NoError(t, err)
	defer db.Close()
	require.NoError(t, db.View(func(tx *bolt.Tx) error {
		m := Mapped(tx)
		require.Greater(t, tx.Size(), mapLen(db), "the meta names pages past the map")
		assert.Equal(t, mapLen(db), int64(m.Len))
		assert.Positive(t, m.Len)
		DropPages(tx) // within the map: the process goes on
		return nil
	}))
}
