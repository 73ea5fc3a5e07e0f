package indexfile

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"
)

// fillForCompaction writes buckets of every shape the index has: many small
// values, large values, nested buckets of three keys, and a sequence, in
// several commits so that their pages interleave.
func fillForCompaction(t *testing.T, s *Store) {
	r := rand.New(rand.NewPCG(7, 8))
	for batch := range 6 {
		require.NoError(t, s.Update(ctx, func(tx *bolt.Tx) error {
			recs, err := tx.CreateBucketIfNotExists([]byte("records"))
			if err != nil {
				return err
			}
			hot, err := tx.CreateBucketIfNotExists([]byte("hot"))
			if err != nil {
				return err
			}
			lex, err := tx.CreateBucketIfNotExists([]byte("lexicon"))
			if err != nil {
				return err
			}
			for i := range 400 {
				if err := recs.Put(fmt.Appendf(nil, "r%d-%04d", batch, i), bytes.Repeat([]byte{byte(i)}, 1+r.IntN(900))); err != nil {
					return err
				}
			}
			for i := range 5 {
				sub, err := hot.CreateBucket(fmt.Appendf(nil, "s%d-%d", batch, i))
				if err != nil {
					return err
				}
				for _, k := range []string{"c", "d", "e"} {
					if err := sub.Put([]byte(k), bytes.Repeat([]byte(k), 1000+r.IntN(40000))); err != nil {
						return err
					}
				}
			}
			seq, err := lex.NextSequence()
			if err != nil {
				return err
			}
			return lex.Put(fmt.Appendf(nil, "seg%d", seq), bytes.Repeat([]byte{'v'}, 200_000))
		}))
	}
}

// dump lists every bucket, sequence, key and value of the file of s.
func dump(t *testing.T, s *Store) []string {
	var out []string
	var walk func(b *bolt.Bucket, path string)
	walk = func(b *bolt.Bucket, path string) {
		out = append(out, fmt.Sprintf("%s seq=%d", path, b.Sequence()))
		require.NoError(t, b.ForEach(func(k, v []byte) error {
			if v == nil {
				walk(b.Bucket(k), path+"/"+string(k))
				return nil
			}
			out = append(out, fmt.Sprintf("%s/%s=%x", path, k, v))
			return nil
		}))
	}
	require.NoError(t, s.View(ctx, func(tx *bolt.Tx) error {
		return tx.ForEach(func(name []byte, b *bolt.Bucket) error {
			walk(b, string(name))
			return nil
		})
	}))
	return out
}

func TestCompactKeepsEveryBucket(t *testing.T) {
	defer func(n int) { compactChunk = n }(compactChunk)
	compactChunk = 64 << 10 // many commits
	s := New(t.TempDir(), Options{})
	fillForCompaction(t, s)
	before := dump(t, s)
	st0, err := os.Stat(s.Path())
	require.NoError(t, err)
	// A killed compaction's file: bbolt's first pages, then nothing.
	leftover := filepath.Join(s.Dir(), compactPrefix+"123")
	head, err := os.ReadFile(s.Path())
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(leftover, head[:4*4096], 0o600))
	live := filepath.Join(s.Dir(), compactPrefix+"456") // not bbolt's: not a compaction's
	require.NoError(t, os.WriteFile(live, []byte("being written"), 0o600))
	other := filepath.Join(s.Dir(), "notes.txt")
	require.NoError(t, os.WriteFile(other, []byte("mine"), 0o600))

	require.NoError(t, s.Compact(ctx))
	assert.Equal(t, before, dump(t, s))
	st1, err := os.Stat(s.Path())
	require.NoError(t, err)
	assert.False(t, os.SameFile(st0, st1), "a new file in the old one's place")
	assert.Equal(t, os.FileMode(0o600), st1.Mode().Perm())
	assert.NoFileExists(t, leftover, "a compaction's leftover is removed")
	assert.FileExists(t, live, "a file that is not a compaction's is not")
	assert.FileExists(t, other, "nor anything else")
	names, _ := filepath.Glob(filepath.Join(s.Dir(), compactPrefix+"*"))
	assert.Equal(t, []string{live}, names, "and the compaction left nothing")

	// The file is memidx's, of this version, and takes writes; a sequence
	// goes on from where it was.
	put(t, s, "k", "v")
	v, err := get(s, "k")
	require.NoError(t, err)
	assert.Equal(t, "v", v)
	require.NoError(t, s.Update(ctx, func(tx *bolt.Tx) error {
		seq, err := tx.Bucket([]byte("lexicon")).NextSequence()
		assert.Equal(t, uint64(7), seq)
		return err
	}))
}

// TestCompactKeepsTheMarkerNearTheStart: the compacted file starts with
// the meta bucket as a new file does, so that memidx still knows it as its
// own when bbolt's meta pages are gone.
func TestCompactKeepsTheMarkerNearTheStart(t *testing.T) {
	s := New(t.TempDir(), Options{})
	fillForCompaction(t, s)
	require.NoError(t, s.Compact(ctx))
	b, err := os.ReadFile(s.Path())
	require.NoError(t, err)
	at := bytes.Index(b, markerSig)
	require.GreaterOrEqual(t, at, 0)
	assert.Less(t, at, 8*4096, "the marker is in the first pages")
	clear(b[:2*4096]) // both bbolt meta pages
	require.NoError(t, os.WriteFile(s.Path(), b, 0o600))
	_, err = get(s, "a")
	assert.ErrorIs(t, err, ErrCorrupt, "damaged, and memidx's")
}

// TestCompactUnderAnotherStore: a Store that holds a read handle of the old
// file, or writes after the compaction, reads and writes the new one.
func TestCompactUnderAnotherStore(t *testing.T) {
	dir := t.TempDir()
	a, b := New(dir, Options{}), New(dir, Options{})
	defer a.Close()
	defer b.Close()
	put(t, a, "before", "1")
	v, err := get(a, "before") // a keeps a read handle of this file
	require.NoError(t, err)
	require.Equal(t, "1", v)
	require.NoError(t, b.Compact(ctx))
	put(t, a, "after", "2")
	for _, s := range []*Store{a, b} {
		for k, want := range map[string]string{"before": "1", "after": "2"} {
			v, err := get(s, k)
			require.NoError(t, err)
			assert.Equal(t, want, v, k)
		}
	}
}

func TestNamesFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	require.NoError(t, os.WriteFile(p, nil, 0o600))
	f, err := os.Open(p)
	require.NoError(t, err)
	defer f.Close()
	assert.True(t, namesFile(p, f))
	require.NoError(t, os.Rename(p, p+".old"))
	require.NoError(t, os.WriteFile(p, nil, 0o600))
	assert.False(t, namesFile(p, f), "replaced")
	require.NoError(t, os.Remove(p))
	assert.False(t, namesFile(p, f), "removed")
	assert.True(t, namesFile(p, nil), "no file to compare")
}

// TestCompactOfAForeignFile: a file that is not memidx's is left alone.
func TestCompactOfAForeignFile(t *testing.T) {
	s := New(t.TempDir(), Options{})
	require.NoError(t, os.MkdirAll(s.Dir(), 0o700))
	require.NoError(t, os.WriteFile(s.Path(), []byte("SQLite format 3\x00 and more"), 0o600))
	assert.ErrorIs(t, s.Compact(ctx), ErrForeign)
	b, err := os.ReadFile(s.Path())
	require.NoError(t, err)
	assert.Equal(t, "SQLite format 3\x00 and more", string(b))
	assert.ErrorIs(t, New(t.TempDir(), Options{}).Compact(ctx), ErrMissing)
}

// TestWriterLeavesAReplacedFile: a file replaced at the path while a writer
// waited for its lock (another process's compaction or reset) is not
// written: the commit would be lost with it.
func TestWriterLeavesAReplacedFile(t *testing.T) {
	s := New(t.TempDir(), Options{})
	put(t, s, "a", "1")
	b, err := os.ReadFile(s.Path())
	require.NoError(t, err)
	next := filepath.Join(s.Dir(), "next.db")
	require.NoError(t, os.WriteFile(next, b, 0o600))
	opens := 0
	afterWriterOpen = func() {
		if opens++; opens == 1 {
			require.NoError(t, os.Rename(next, s.Path())) // replaced under the lock
		}
	}
	defer func() { afterWriterOpen = nil }()
	put(t, s, "b", "2")
	assert.Equal(t, 2, opens, "opened again")
	for k, want := range map[string]string{"a": "1", "b": "2"} {
		v, err := get(s, k)
		require.NoError(t, err)
		assert.Equal(t, want, v, k)
	}
}

// TestCompactKeepsTheFilesMode: a file someone opened up keeps its mode.
func TestCompactKeepsTheFilesMode(t *testing.T) {
	s := New(t.TempDir(), Options{})
	put(t, s, "a", "1")
	require.NoError(t, os.Chmod(s.Path(), 0o644))
	require.NoError(t, s.Compact(ctx))
	st, err := os.Stat(s.Path())
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o644), st.Mode().Perm())
}

// hookCtx runs fn the first time Err is called: at a compaction's first
// chunk boundary.
type hookCtx struct {
	context.Context
	fn   func()
	done bool
}

func (c *hookCtx) Err() error {
	if !c.done {
		c.done = true
		c.fn()
	}
	return nil
}

// TestResetWaitsForACompaction: another process's reset of the file a
// compaction is copying waits for the compaction's lock (and gives up as
// busy), so the compaction never puts its copy over a newer file; once it
// is done, the reset removes the compacted file and a new one starts.
// Without the lock, a write acknowledged to the other process was lost
// under the compaction's rename.
func TestResetWaitsForACompaction(t *testing.T) {
	defer func(n int) { compactChunk = n }(compactChunk)
	compactChunk = 64 << 10
	dir := t.TempDir()
	a, b := New(dir, Options{}), New(dir, Options{LockTimeout: 50 * time.Millisecond})
	defer a.Close()
	defer b.Close()
	fillForCompaction(t, a)
	hc := &hookCtx{Context: ctx, fn: func() {
		assert.ErrorIs(t, b.Reset(), ErrLocked, "the compaction holds the file")
	}}
	require.NoError(t, a.Compact(hc))
	require.True(t, hc.done)
	require.NoError(t, b.Reset())
	put(t, b, "new", "committed")
	for _, s := range []*Store{a, b} {
		v, err := get(s, "new")
		require.NoError(t, err)
		assert.Equal(t, "committed", v)
	}
}

func TestCompactCopiesAnEmptyValue(t *testing.T) {
	s := New(t.TempDir(), Options{})
	require.NoError(t, s.Update(ctx, func(tx *bolt.Tx) error {
		b, err := tx.CreateBucketIfNotExists([]byte("set"))
		if err != nil {
			return err
		}
		return b.Put([]byte("k"), []byte{})
	}))
	before := dump(t, s)
	require.NoError(t, s.Compact(ctx))
	assert.Equal(t, before, dump(t, s))
}

// A compacted file is its pages and at most a writer's growth step more:
// bbolt's default step (16 MiB, or the whole map below that) would leave
// a small index up to twice its size, and a large one 16 MiB larger.
func TestCompactLeavesTheFileSmall(t *testing.T) {
	s := New(t.TempDir(), Options{})
	fillForCompaction(t, s)
	require.NoError(t, s.Compact(ctx))
	var used, page int64
	require.NoError(t, s.View(ctx, func(tx *bolt.Tx) error {
		used, page = tx.Size(), int64(tx.DB().Info().PageSize)
		return nil
	}))
	st, err := os.Stat(s.Path())
	require.NoError(t, err)
	t.Logf("used %d, file %d", used, st.Size())
	assert.LessOrEqual(t, st.Size(), used+page+writerAllocSize, "a page past the used ones, and one step")
}
