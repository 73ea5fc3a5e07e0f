package bucket

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// CacheVersion is the version of everything stored, the spec's Cache V6. A
// change to the tokenizer or normalization bumps it; older files are
// rebuilt.
const CacheVersion = 6

// LayoutVersion is the version of memidx's storage layout within a cache
// version; a file of another layout is rebuilt like one of another cache
// version.
//
//	1: first memidx layout (no "layout" key).
//	2: records and tier data sealed with block checksums (blocksum).
const LayoutVersion = 2

// FileName is the index file inside the index directory.
const FileName = "index.db"

var (
	// ErrLocked: another process held the index longer than the timeout.
	ErrLocked = errors.New("bucket: index is locked by another process")
	// ErrCorrupt: the index file is damaged or of another version.
	ErrCorrupt = errors.New("bucket: index file is damaged or of another version")
	// ErrMissing: a read found no index file yet.
	ErrMissing = errors.New("bucket: no index file yet")
	// ErrReadOnly: the index file or directory cannot be written.
	ErrReadOnly = errors.New("bucket: index cannot be written")
	// ErrUnreadable: the index file cannot be read (permissions).
	ErrUnreadable = errors.New("bucket: index cannot be read")
)

var (
	metaBucket = []byte("meta")
	versionKey = []byte("cacheVersion")
	layoutKey  = []byte("layout")
)

// Options configure a Store.
type Options struct {
	// LockTimeout bounds each wait for the file lock. Zero means 2s.
	LockTimeout time.Duration
	// NoSync skips fsync on commit. Faster for a batch rebuild; a crash may
	// then lose the last commits (never corrupt the file's structure
	// beyond what bbolt detects).
	NoSync bool
}

// Store is the index file of one index directory. Its methods are safe for
// concurrent use.
type Store struct {
	dir  string
	path string
	opt  Options
	mu   sync.RWMutex
}

// New returns the store of dir. It touches nothing on disk.
func New(dir string, opt Options) *Store {
	if opt.LockTimeout <= 0 {
		opt.LockTimeout = 2 * time.Second
	}
	return &Store{dir: dir, path: filepath.Join(dir, FileName), opt: opt}
}

// Path returns the index file's path.
func (s *Store) Path() string { return s.path }

// Dir returns the index directory.
func (s *Store) Dir() string { return s.dir }

// View runs fn in a read-only transaction on a freshly opened file. It
// returns ErrMissing when there is no index file, ErrLocked when the lock
// was not had in time, ErrCorrupt for a damaged or foreign file.
func (s *Store) View(ctx context.Context, fn func(tx *bolt.Tx) error) error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if err := ctx.Err(); err != nil {
		return err
	}
	db, err := s.open(true) // a missing file is ErrMissing
	if err != nil {
		return err
	}
	defer db.Close()
	return guard(func() error {
		return db.View(func(tx *bolt.Tx) error {
			if err := checkVersion(tx); err != nil {
				return err
			}
			return fn(tx)
		})
	})
}

// Update runs fn in a read-write transaction, creating the directory and
// the file when needed.
func (s *Store) Update(ctx context.Context, fn func(tx *bolt.Tx) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := s.ensureDir(); err != nil {
		return err
	}
	db, err := s.open(false)
	if err != nil {
		return err
	}
	defer db.Close()
	return guard(func() error {
		return db.Update(func(tx *bolt.Tx) error {
			if err := initVersion(tx); err != nil {
				return err
			}
			return fn(tx)
		})
	})
}

// Reset deletes the index file (a damaged or foreign one) so that the next
// Update starts empty. Session files are never touched.
func (s *Store) Reset() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	err := os.Remove(s.path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("bucket: reset: %w", err)
	}
	return nil
}

// ensureDir creates the index directory and its missing parents 0700 (the
// umask may only narrow that). An existing directory keeps its mode:
// memidx changes only what it created, and a shared directory (a 1777
// /tmp) must keep its sticky bit. DirWarning tells about one that others
// can read.
func (s *Store) ensureDir() error {
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		if errors.Is(err, os.ErrPermission) {
			return fmt.Errorf("%w: %v", ErrReadOnly, err)
		}
		return err
	}
	return nil
}

// open opens the file with bbolt. A new file is created 0600 (bbolt
// passes the mode to open(2)); an existing file's mode is left as it is.
func (s *Store) open(readOnly bool) (*bolt.DB, error) {
	o := &bolt.Options{
		Timeout:  s.opt.LockTimeout,
		ReadOnly: readOnly,
		NoSync:   s.opt.NoSync,
	}
	if !readOnly {
		// A writer grows the file batch by batch; every remap copies the
		// inline values of all open buckets. Reserve address space once
		// (virtual only: nothing is read until touched).
		o.InitialMmapSize = 1 << 30
	}
	var db *bolt.DB
	err := guard(func() error {
		var oerr error
		db, oerr = bolt.Open(s.path, 0o600, o)
		return oerr
	})
	if err != nil {
		if errors.Is(err, ErrCorrupt) {
			return nil, err // a panic while opening (a damaged freelist)
		}
		switch {
		case errors.Is(err, berrors.ErrTimeout):
			return nil, ErrLocked
		case errors.Is(err, os.ErrPermission), errors.Is(err, berrors.ErrDatabaseReadOnly):
			if readOnly {
				return nil, fmt.Errorf("%w: %v", ErrUnreadable, err)
			}
			return nil, fmt.Errorf("%w: %v", ErrReadOnly, err)
		case errors.Is(err, os.ErrNotExist):
			return nil, ErrMissing
		}
		return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	if !readOnly {
		// With the large mmap above, bbolt would grow the file 16 MiB at a
		// time; grow it in small steps instead, so that a small index
		// stays small.
		db.AllocSize = 1 << 20
	}
	return db, nil
}

// guard turns a panic inside bbolt (it panics on some damaged pages) into
// ErrCorrupt, and so does a memory fault: a truncated file leaves pages of
// the map past its end, and touching one would otherwise kill the process.
func guard(fn func() error) (err error) {
	old := debug.SetPanicOnFault(true)
	defer func() {
		debug.SetPanicOnFault(old)
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: %v", ErrCorrupt, r)
		}
	}()
	return fn()
}

// sameVersion reports whether the meta bucket names this build's cache
// version and layout.
func sameVersion(b *bolt.Bucket) bool {
	return bytes.Equal(b.Get(versionKey), []byte{CacheVersion}) && bytes.Equal(b.Get(layoutKey), []byte{LayoutVersion})
}

func checkVersion(tx *bolt.Tx) error {
	b := tx.Bucket(metaBucket)
	if b == nil {
		return ErrMissing // created but never written
	}
	if !sameVersion(b) {
		return ErrCorrupt
	}
	return nil
}

// initVersion stamps a new file, and refuses a file of another version.
func initVersion(tx *bolt.Tx) error {
	b := tx.Bucket(metaBucket)
	if b == nil {
		var err error
		if b, err = tx.CreateBucket(metaBucket); err != nil {
			return err
		}
		if err := b.Put(versionKey, []byte{CacheVersion}); err != nil {
			return err
		}
		return b.Put(layoutKey, []byte{LayoutVersion})
	}
	if !sameVersion(b) {
		return ErrCorrupt
	}
	return nil
}
