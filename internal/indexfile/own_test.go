package indexfile

import (
	"bytes"
	"crypto/sha256"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
)

// markerSig is the marker as the file's bytes hold it: a bbolt leaf
// stores each key right before its value.
var markerSig = append(append([]byte(nil), markerKey...), markerText...)

// boltFile writes a bbolt file at path with fn, as another program would.
func boltFile(t *testing.T, path string, fn func(tx *bolt.Tx) error) {
	t.Helper()
	db, err := bolt.Open(path, 0o600, nil)
	require.NoError(t, err)
	if fn != nil {
		require.NoError(t, db.Update(fn))
	}
	require.NoError(t, db.Close())
}

// fileState is what must not change in a file memidx does not own.
type fileState struct {
	sum   [32]byte
	mtime time.Time
	mode  os.FileMode
}

func stateOf(t *testing.T, path string) fileState {
	t.Helper()
	st, err := os.Stat(path)
	require.NoError(t, err)
	var fs fileState
	if st.Mode().IsRegular() {
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		fs.sum = sha256.Sum256(b)
	}
	fs.mtime, fs.mode = st.ModTime(), st.Mode()
	return fs
}

func TestStore_ForeignFileIsLeftAlone(t *testing.T) {
	random := make([]byte, 64<<10)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range random {
		random[i] = byte(r.Uint32())
	}
	sqlite := append([]byte("SQLite format 3\x00\x10\x00\x01\x01\x00\x40\x20\x20"), make([]byte, 8<<10)...)
	for _, c := range []struct {
		name string
		make func(t *testing.T, path string)
	}{
		{"text", func(t *testing.T, p string) {
			require.NoError(t, os.WriteFile(p, []byte("this is not a bbolt file at all, not even close"), 0o600))
		}},
		{"random bytes", func(t *testing.T, p string) { require.NoError(t, os.WriteFile(p, random, 0o600)) }},
		{"sqlite header", func(t *testing.T, p string) { require.NoError(t, os.WriteFile(p, sqlite, 0o644)) }},
		{"another program's bbolt file", func(t *testing.T, p string) {
			boltFile(t, p, func(tx *bolt.Tx) error {
				b, err := tx.CreateBucket([]byte("widgets"))
				if err != nil {
					return err
				}
				return b.Put([]byte("k"), []byte("v"))
			})
		}},
		{"a bbolt file with a meta bucket of its own", func(t *testing.T, p string) {
			boltFile(t, p, func(tx *bolt.Tx) error {
				b, err := tx.CreateBucket(metaBucket)
				if err != nil {
					return err
				}
				return b.Put([]byte("schema"), []byte("42"))
			})
		}},
		{"a directory", func(t *testing.T, p string) { require.NoError(t, os.MkdirAll(filepath.Join(p, "x"), 0o700)) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := New(t.TempDir(), Options{LockTimeout: 100 * time.Millisecond})
			c.make(t, s.Path())
			// An mtime in the past, so that any write would show.
			old := time.Now().Add(-time.Hour).Truncate(time.Second)
			require.NoError(t, os.Chtimes(s.Path(), old, old))
			before := stateOf(t, s.Path())

			_, err := get(s, "k")
			assert.ErrorIs(t, err, ErrForeign)
			assert.ErrorContains(t, err, s.Path(), "the error names the file")
			assert.ErrorIs(t, s.Update(ctx, func(*bolt.Tx) error { return nil }), ErrForeign)
			assert.ErrorIs(t, s.UpdateScrub(ctx, func(*bolt.Tx) error { return nil }), ErrForeign)
			assert.ErrorIs(t, s.Reset(), ErrForeign)

			assert.Equal(t, before, stateOf(t, s.Path()), "the file is unchanged")
		})
	}
}

func TestStore_OwnFileEvenWhenDamaged(t *testing.T) {
	// A memidx file with a few sessions' worth of pages.
	good := func(t *testing.T) (*Store, []byte) {
		s := New(t.TempDir(), Options{})
		for i := 0; i < 20; i++ {
			put(t, s, string(rune('a'+i)), string(bytes.Repeat([]byte{'x'}, 3000)))
		}
		b, err := os.ReadFile(s.Path())
		require.NoError(t, err)
		return s, b
	}
	for _, c := range []struct {
		name   string
		damage func(b []byte) []byte
	}{
		{"both meta pages zeroed", func(b []byte) []byte { clear(b[:2*4096]); return b }},
		{"cut to eight pages", func(b []byte) []byte { return b[:8*4096] }},
		{"meta checksums broken", func(b []byte) []byte { b[16+48]++; b[4096+16+48]++; return b }},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, b := good(t)
			require.NoError(t, os.WriteFile(s.Path(), c.damage(b), 0o600))
			_, err := get(s, "a")
			assert.ErrorIs(t, err, ErrCorrupt)
			require.NoError(t, s.Reset())
			put(t, s, "k", "v")
			v, err := get(s, "k")
			require.NoError(t, err)
			assert.Equal(t, "v", v)
		})
	}

	t.Run("layout 2, meta checksums broken", func(t *testing.T) {
		s := New(t.TempDir(), Options{})
		boltFile(t, s.Path(), func(tx *bolt.Tx) error {
			b, err := tx.CreateBucket(metaBucket)
			if err != nil {
				return err
			}
			if err := b.Put(versionKey, []byte{CacheVersion}); err != nil {
				return err
			}
			return b.Put(layoutKey, []byte{2})
		})
		b, err := os.ReadFile(s.Path())
		require.NoError(t, err)
		b[16+48]++
		b[4096+16+48]++
		require.NoError(t, os.WriteFile(s.Path(), b, 0o600))
		_, err = get(s, "k")
		assert.ErrorIs(t, err, ErrCorrupt)
		require.NoError(t, s.Reset())
	})

	t.Run("empty file", func(t *testing.T) {
		s := New(t.TempDir(), Options{})
		require.NoError(t, os.WriteFile(s.Path(), nil, 0o600))
		_, err := get(s, "k")
		assert.ErrorIs(t, err, ErrMissing)
		put(t, s, "k", "v")
		v, err := get(s, "k")
		require.NoError(t, err)
		assert.Equal(t, "v", v)
	})

	t.Run("bbolt file without buckets", func(t *testing.T) {
		s := New(t.TempDir(), Options{})
		boltFile(t, s.Path(), nil)
		_, err := get(s, "k")
		assert.ErrorIs(t, err, ErrMissing)
		put(t, s, "k", "v")
		v, err := get(s, "k")
		require.NoError(t, err)
		assert.Equal(t, "v", v)
	})
}

// The marker lies in the first pages, however much is written after it,
// so that a damaged or cut file is still recognised with a bounded scan.
func TestStore_MarkerNearTheStart(t *testing.T) {
	s := New(t.TempDir(), Options{})
	for i := 0; i < 50; i++ {
		put(t, s, string(rune('a'+i)), string(bytes.Repeat([]byte{'y'}, 5000)))
	}
	b, err := os.ReadFile(s.Path())
	require.NoError(t, err)
	at := bytes.Index(b, markerSig)
	require.GreaterOrEqual(t, at, 0)
	assert.Less(t, at, 16*os.Getpagesize(), "marker at byte %d of %d", at, len(b))
}

// TestStore_MarkerTextIsNotOwnership: memidx knows its file by bbolt's
// structure and the marker at its place in the meta bucket; a file that
// merely holds the marker's text is another program's, never deleted.
func TestStore_MarkerTextIsNotOwnership(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	noise := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		return b
	}
	with := func(b []byte, at int) []byte { copy(b[at:], markerSig); return b }
	sqlite := append([]byte("SQLite format 3\x00\x10\x00\x01\x01\x00\x40\x20\x20"), make([]byte, 64<<10)...)
	for _, c := range []struct {
		name string
		make func(t *testing.T, path string)
		own  bool
	}{
		{"sqlite file holding the marker text", func(t *testing.T, p string) {
			require.NoError(t, os.WriteFile(p, with(sqlite, 5000), 0o600))
		}, false},
		{"random bytes holding the marker text", func(t *testing.T, p string) {
			require.NoError(t, os.WriteFile(p, with(noise(64<<10), 10_000), 0o600))
		}, false},
		{"the marker text at a page's start", func(t *testing.T, p string) {
			require.NoError(t, os.WriteFile(p, with(noise(64<<10), 3*4096), 0o600))
		}, false},
		{"another program's bbolt file, damaged, with the marker as a value", func(t *testing.T, p string) {
			boltFile(t, p, func(tx *bolt.Tx) error {
				b, err := tx.CreateBucket([]byte("notes"))
				if err != nil {
					return err
				}
				return b.Put(markerKey, markerText)
			})
			breakMetas(t, p)
		}, false},
		{"memidx's file", func(t *testing.T, p string) {
			put(t, New(filepath.Dir(p), Options{}), "k", "v")
		}, true},
		{"memidx's file, meta pages damaged", func(t *testing.T, p string) {
			put(t, New(filepath.Dir(p), Options{}), "k", "v")
			breakMetas(t, p)
		}, true},
		{"memidx's file, meta pages zeroed", func(t *testing.T, p string) {
			put(t, New(filepath.Dir(p), Options{}), "k", "v")
			b, err := os.ReadFile(p)
			require.NoError(t, err)
			clear(b[:2*4096])
			require.NoError(t, os.WriteFile(p, b, 0o600))
		}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := New(t.TempDir(), Options{LockTimeout: 100 * time.Millisecond})
			c.make(t, s.Path())
			before := stateOf(t, s.Path())
			err := s.Reset()
			if c.own {
				require.NoError(t, err)
				assert.NoFileExists(t, s.Path(), "memidx's own file is reset")
				return
			}
			assert.ErrorIs(t, err, ErrForeign)
			_, err = get(s, "k")
			assert.ErrorIs(t, err, ErrForeign)
			assert.ErrorIs(t, s.Update(ctx, func(*bolt.Tx) error { return nil }), ErrForeign)
			assert.Equal(t, before, stateOf(t, s.Path()), "the file is unchanged")
		})
	}
}

// breakMetas breaks the checksum of both of the bbolt meta pages of path.
func breakMetas(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	b[16+48]++
	b[4096+16+48]++
	require.NoError(t, os.WriteFile(path, b, 0o600))
}
