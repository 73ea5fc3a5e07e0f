package indexfile

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"
)

// compactPrefix names the file a compaction writes, in the index
// directory, before it takes the index file's place.
const compactPrefix = FileName + ".compact-"

// compactChunk is how many bytes of keys and values a compaction copies
// in one transaction: the new file's dirty pages are held in memory until
// it commits. A variable for tests.
var compactChunk = 16 << 20

// Compact rewrites the index file bucket by bucket into a new file and
// puts it in the old one's place. A file written batch by batch has every
// bucket's pages spread over all of it: reading the records then maps
// pages of digests too, and after a rebuild, when the kernel keeps the
// new file in large folios, a 10k recall mapped 67 MiB (56 compacted).
// The new file starts with the meta bucket and its marker, as a new file
// does (stamp). It holds the write lock throughout, so no writer commits
// meanwhile; a reader of the old file reads it to its end, and a writer
// that waited for it finds it replaced and opens the new one (update).
// On failure the old file stays as it was.
func (s *Store) Compact(ctx context.Context) error {
	if runtime.GOOS == "windows" {
		return nil // a file open elsewhere cannot be renamed over there
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	src, file, _, err := s.openWritable(time.Now().Add(s.opt.LockTimeout), false)
	if err != nil {
		return err
	}
	defer src.Close()
	if !namesFile(s.path, file) {
		return nil // replaced meanwhile: that file is as new as this one
	}
	removeLeftovers(s.dir)
	tmp, err := os.CreateTemp(s.dir, compactPrefix+"*")
	if err != nil {
		return err
	}
	path := tmp.Name()
	tmp.Close()
	st, err := file.Stat()
	if err == nil && !ownedByUs(st) {
		os.Remove(path)
		return nil // another user's file: replaced, it would be ours
	}
	if err != nil {
		os.Remove(path)
		return err
	}
	if err := s.compactInto(ctx, src, st.Size(), path); err != nil {
		os.Remove(path)
		return s.judge(err)
	}
	if !namesFile(s.path, file) {
		os.Remove(path)
		return nil // replaced meanwhile by something that takes no lock
	}
	// The copy is 0600 while written; in place, it keeps the mode the
	// file had: memidx changes only what it created, and someone may have
	// opened this one up.
	if err := os.Chmod(path, st.Mode().Perm()); err != nil {
		os.Remove(path)
		return err
	}
	if err := os.Rename(path, s.path); err != nil {
		os.Remove(path)
		return err
	}
	syncDir(s.dir)
	s.dropHeld()
	return nil
}

// compactInto copies every bucket of src, a file of size bytes, into a
// new file at path.
func (s *Store) compactInto(ctx context.Context, src *bolt.DB, size int64, path string) error {
	dst, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: s.opt.LockTimeout})
	if err != nil {
		return err
	}
	defer dst.Close()
	// Grow in a writer's small steps: bbolt's own would leave the file
	// the size of its map (up to twice its pages) or 16 MiB over them.
	dst.AllocSize = writerAllocSize
	if err := s.stamp(dst); err != nil {
		return err
	}
	err = guard(func() error {
		return src.View(func(stx *bolt.Tx) error {
			if err := s.check(stx); err != nil {
				return err
			}
			c := &copier{ctx: ctx, dst: dst, drop: func() { dropMapped(src, size) }}
			if err := c.begin(); err != nil {
				return err
			}
			defer c.rollback()
			err := stx.ForEach(func(name []byte, b *bolt.Bucket) error {
				if string(name) == string(metaBucket) {
					return nil // stamped first, as in a new file
				}
				return c.bucket(b, [][]byte{name})
			})
			if err != nil {
				return err
			}
			return c.commit()
		})
	})
	if err != nil {
		return err
	}
	return dst.Sync()
}

// copier copies buckets into dst a chunk of compactChunk bytes a
// transaction; path names the bucket being copied, for the next one.
type copier struct {
	ctx context.Context
	dst *bolt.DB
	tx  *bolt.Tx
	n   int
	// drop unmaps what the copy has read of the source so far.
	drop func()
}

func (c *copier) begin() (err error) {
	c.tx, err = c.dst.Begin(true)
	c.n = 0
	return err
}

func (c *copier) commit() error {
	err := c.tx.Commit()
	c.tx = nil
	return err
}

func (c *copier) rollback() {
	if c.tx != nil {
		_ = c.tx.Rollback()
	}
}

// at returns the bucket of dst at path, which the copy created.
func (c *copier) at(path [][]byte) *bolt.Bucket {
	b := c.tx.Bucket(path[0])
	for _, name := range path[1:] {
		b = b.Bucket(name)
	}
	b.FillPercent = 1 // keys come in order: fill each page
	return b
}

// bucket copies src, with its sequence and nested buckets, to path.
func (c *copier) bucket(src *bolt.Bucket, path [][]byte) error {
	var made *bolt.Bucket
	var err error
	if len(path) == 1 {
		made, err = c.tx.CreateBucket(path[0])
	} else {
		made, err = c.at(path[:len(path)-1]).CreateBucket(path[len(path)-1])
	}
	if err != nil {
		return err
	}
	if err := made.SetSequence(src.Sequence()); err != nil {
		return err
	}
	cur := src.Cursor()
	for k, v := cur.First(); k != nil; k, v = cur.Next() {
		if c.n >= compactChunk {
			if err := c.ctx.Err(); err != nil {
				return err
			}
			if err := c.commit(); err != nil {
				return err
			}
			c.drop()
			if err := c.begin(); err != nil {
				return err
			}
		}
		if v == nil { // a nested bucket
			if err := c.bucket(src.Bucket(k), append(path[:len(path):len(path)], k)); err != nil {
				return err
			}
			continue
		}
		if err := c.at(path).Put(k, v); err != nil {
			return err
		}
		c.n += len(k) + len(v)
	}
	return nil
}

// namesFile reports whether path still names f, the file a handle locked.
func namesFile(path string, f *os.File) bool {
	if f == nil {
		return true // a platform where bbolt hides its file: trust it
	}
	a, err1 := os.Lstat(path) // a link to f is not f's name
	b, err2 := f.Stat()
	return err1 == nil && err2 == nil && os.SameFile(a, b)
}

// removeLeftovers removes what compactions and creations that stopped half
// way (a killed process) left in dir: plaintext copies of the index, and
// new files never put in place. The caller holds the exclusive lock on the
// file the path names, which a compaction holds from before it creates its
// file until after it renamed it, so none is in flight. A creation may be
// (it takes no lock: there was no file); removing its file costs it one
// more try, or, once its file is in place, only the second name (create).
// Only what is provably memidx's is removed: a name of compactPrefix or
// newPrefix and CreateTemp's digits, a regular file (not a link) this user
// owns, empty or starting with bbolt's meta pages. The directory is
// listed, never globbed: its path is the user's, and may hold pattern
// characters.
func removeLeftovers(dir string) {
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	for _, n := range names {
		if p := filepath.Join(dir, n); isLeftoverName(n) && isLeftover(p) {
			os.Remove(p)
		}
	}
}

// isLeftoverName reports whether name is one a compaction or a creation
// gives its file.
func isLeftoverName(name string) bool {
	for _, prefix := range []string{compactPrefix, newPrefix} {
		rest, ok := strings.CutPrefix(name, prefix)
		if ok && rest != "" && strings.Trim(rest, "0123456789") == "" {
			return true
		}
	}
	return false
}

// isLeftover reports whether the file at path is one a compaction or a
// creation wrote.
func isLeftover(path string) bool {
	st, err := os.Lstat(path)
	if err != nil || notOurs(st) != "" {
		return false
	}
	f, err := os.OpenFile(path, os.O_RDONLY|noFollow, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !os.SameFile(st, fi) {
		return false
	}
	if strings.HasPrefix(filepath.Base(path), newPrefix) && time.Since(fi.ModTime()) < newFileGrace {
		return false // a creation may still be writing it: no lock guards one
	}
	return fi.Size() == 0 || len(readMetas(f)) > 0
}

// newFileGrace is how long a creation's file is left alone: a creation
// takes milliseconds, but holds no lock another process could test (the
// index file it makes is not there yet), so only a file this old is
// surely a killed creation's.
const newFileGrace = time.Minute

// syncDir makes a rename in dir durable (best effort: not every platform
// can sync a directory).
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}
