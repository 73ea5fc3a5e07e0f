package indexfile

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
)

var ctx = context.Background()

func put(t *testing.T, s *Store, k, v string) {
	t.Helper()
	require.NoError(t, s.Update(ctx, func(tx *bolt.Tx) error {
		b, err := tx.CreateBucketIfNotExists([]byte("x"))
		if err != nil {
			return err
		}
		return b.Put([]byte(k), []byte(v))
	}))
}

func get(s *Store, k string) (string, error) {
	var out string
	err := s.View(ctx, func(tx *bolt.Tx) error {
		if b := tx.Bucket([]byte("x")); b != nil {
			out = string(b.Get([]byte(k)))
		}
		return nil
	})
	return out, err
}

func TestStore_ViewMissing(t *testing.T) {
	s := New(filepath.Join(t.TempDir(), "idx"), Options{})
	_, err := get(s, "a")
	assert.ErrorIs(t, err, ErrMissing)
	_, statErr := os.Stat(s.Dir())
	assert.True(t, os.IsNotExist(statErr), "a read must not create the directory")
}

func TestStore_Permissions(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a", "idx")
	s := New(dir, Options{})
	put(t, s, "k", "v")
	st, err := os.Stat(dir)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o700), st.Mode().Perm())
	st, err = os.Stat(s.Path())
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), st.Mode().Perm())
	v, err := get(s, "k")
	require.NoError(t, err)
	assert.Equal(t, "v", v)
}

func TestStore_OtherVersionIsCorrupt(t *testing.T) {
	for _, c := range []struct {
		name   string
		change func(b *bolt.Bucket) error
	}{
		{"cache version 5", func(b *bolt.Bucket) error { return b.Put(versionKey, []byte{5}) }},
		{"layout 1 (no layout key)", func(b *bolt.Bucket) error { return b.Delete(layoutKey) }},
		{"layout 2 (no marker)", func(b *bolt.Bucket) error {
			if err := b.Delete(markerKey); err != nil {
				return err
			}
			return b.Put(layoutKey, []byte{2})
		}},
		{"layout 3 (no stemmed field)", func(b *bolt.Bucket) error { return b.Put(layoutKey, []byte{3}) }},
		{"layout 4 (no manifest)", func(b *bolt.Bucket) error { return b.Put(layoutKey, []byte{4}) }},
		{"layout 5 (vocabularies in the digests)", func(b *bolt.Bucket) error { return b.Put(layoutKey, []byte{5}) }},
		{"layout 6 (termtab addresses)", func(b *bolt.Bucket) error { return b.Put(layoutKey, []byte{6}) }},
		{"layout 7 (records repeat the manifest)", func(b *bolt.Bucket) error { return b.Put(layoutKey, []byte{7}) }},
		{"layout 9", func(b *bolt.Bucket) error { return b.Put(layoutKey, []byte{9}) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := New(t.TempDir(), Options{})
			put(t, s, "k", "v")
			require.NoError(t, s.Update(ctx, func(tx *bolt.Tx) error { return c.change(tx.Bucket(metaBucket)) }))
			_, err := get(s, "k")
			assert.ErrorIs(t, err, ErrCorrupt)
			assert.ErrorIs(t, s.Update(ctx, func(*bolt.Tx) error { return nil }), ErrCorrupt)
			require.NoError(t, s.Reset())
			_, err = get(s, "k")
			assert.ErrorIs(t, err, ErrMissing)
			put(t, s, "k", "w")
			v, err := get(s, "k")
			require.NoError(t, err)
			assert.Equal(t, "w", v)
		})
	}
}

// Two stores on one path stand for two processes: flock makes the second
// wait, and the timeout bounds the wait.
func TestStore_LockTimeoutAcrossHandles(t *testing.T) {
	dir := t.TempDir()
	a := New(dir, Options{LockTimeout: 100 * time.Millisecond})
	b := New(dir, Options{LockTimeout: 100 * time.Millisecond})
	put(t, a, "k", "v")
	held := make(chan struct{})
	release := make(chan struct{})
	done := make(chan error)
	go func() {
		done <- a.Update(ctx, func(tx *bolt.Tx) error {
			close(held)
			<-release
			return nil
		})
	}()
	<-held
	start := time.Now()
	_, err := get(b, "k")
	assert.ErrorIs(t, err, ErrLocked)
	assert.Less(t, time.Since(start), 2*time.Second)
	close(release)
	require.NoError(t, <-done)
	v, err := get(b, "k")
	require.NoError(t, err)
	assert.Equal(t, "v", v)
}

func TestStore_ReadersShare(t *testing.T) {
	dir := t.TempDir()
	a := New(dir, Options{LockTimeout: 100 * time.Millisecond})
	b := New(dir, Options{LockTimeout: 100 * time.Millisecond})
	put(t, a, "k", "v")
	inside := make(chan struct{})
	release := make(chan struct{})
	done := make(chan error)
	go func() {
		done <- a.View(ctx, func(*bolt.Tx) error { close(inside); <-release; return nil })
	}()
	<-inside
	v, err := get(b, "k")
	require.NoError(t, err)
	assert.Equal(t, "v", v)
	close(release)
	require.NoError(t, <-done)
}

func TestStore_ReadOnlyDirectory(t *testing.T) {
	if os.Getuid() == 0 {
		t.Skip("root ignores directory permissions")
	}
	parent := t.TempDir()
	require.NoError(t, os.Chmod(parent, 0o500))
	defer os.Chmod(parent, 0o700)
	s := New(filepath.Join(parent, "idx"), Options{})
	err := s.Update(ctx, func(*bolt.Tx) error { return nil })
	assert.ErrorIs(t, err, ErrReadOnly)
}

func TestStore_UnreadableFile(t *testing.T) {
	if os.Getuid() == 0 {
		t.Skip("root ignores file permissions")
	}
	s := New(t.TempDir(), Options{})
	put(t, s, "k", "v")
	require.NoError(t, os.Chmod(s.Path(), 0))
	defer os.Chmod(s.Path(), 0o600)
	_, err := get(s, "k")
	assert.ErrorIs(t, err, ErrUnreadable)
	assert.ErrorIs(t, s.Update(ctx, func(*bolt.Tx) error { return nil }), ErrReadOnly)
}

// A panic bbolt raises inside a transaction (it panics on some damaged
// pages; here, a managed transaction committed) reads as damage.
func TestStore_PanicInsideBboltIsCorrupt(t *testing.T) {
	s := New(t.TempDir(), Options{})
	put(t, s, "k", "v")
	err := s.View(ctx, func(tx *bolt.Tx) error { return tx.Commit() })
	assert.ErrorIs(t, err, ErrCorrupt)
	assert.NotErrorIs(t, err, ErrInternal)
}

// A panic of memidx's own code inside a transaction is a bug, not
// damage: the call fails with ErrInternal naming where, and the file is
// left as it is (a reset would rebuild the archive on every call that
// meets the bug).
func TestStore_PanicInOwnCodeIsABug(t *testing.T) {
	s := New(t.TempDir(), Options{})
	put(t, s, "k", "v")
	for _, fn := range []func(*bolt.Tx) error{
		func(*bolt.Tx) error { panic("a bug") },
		func(*bolt.Tx) error { var a []int; return fmt.Errorf("%d", a[len(a)]) }, // index out of range
		func(tx *bolt.Tx) error {
			return tx.Bucket([]byte("x")).ForEach(func(k, v []byte) error { panic("in a callback") })
		},
	} {
		err := s.View(ctx, fn)
		require.ErrorIs(t, err, ErrInternal)
		assert.NotErrorIs(t, err, ErrCorrupt)
		assert.Contains(t, err.Error(), "TestStore_PanicInOwnCodeIsABug")
		err = s.Update(ctx, func(tx *bolt.Tx) error { return fn(tx) })
		require.ErrorIs(t, err, ErrInternal)
		v, err := get(s, "k")
		require.NoError(t, err, "the file is left as it was")
		assert.Equal(t, "v", v)
	}
}
