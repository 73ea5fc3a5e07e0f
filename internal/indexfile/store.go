package indexfile

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
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
//	3: the meta bucket holds a marker that says the file is memidx's,
//	   on a page of its own near the start of the file (see own.go).
//	4: hot shard dictionaries hold the stemmed field (natural.Key).
//	5: the manifest bucket beside the records (what the stat gate reads);
//	   small cold digests packed many to a value (coldpacks).
//	6: a stored cold digest's vocabulary is empty: the archive lexicon
//	   holds its terms (coldvocab.Stored).
//	7: a stored cold digest's addresses are in the compact form
//	   (coldvocab.Stored): ids, operations and timestamps as columns.
//	8: a record holds only what its manifest entry does not (record
//	   format 6: session id, cwd, lineage fingerprint, cache bytes,
//	   timestamps; the hashes as bytes).
const LayoutVersion = 8

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
	// ErrForeign: the index file is not memidx's (another program's
	// database, random bytes, a directory); it is never written nor
	// deleted. The error names the path.
	ErrForeign = errors.New("bucket: the index file is not memidx's and is left untouched")
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
	held *held
	// files are the files of the read handles open now (Stat).
	files *sync.Map
	// trim bounds what the kept handle's map holds (SetMapBudget).
	trim mapTrim
}

// New returns the store of dir. It touches nothing on disk.
func New(dir string, opt Options) *Store {
	if opt.LockTimeout <= 0 {
		opt.LockTimeout = 2 * time.Second
	}
	files := new(sync.Map) // apart from s: the cleanup's held must not keep s alive
	s := &Store{dir: dir, path: filepath.Join(dir, FileName), opt: opt, held: &held{files: files}, files: files}
	// A Store dropped without Close still lets go of its file.
	runtime.AddCleanup(s, func(h *held) { h.close() }, s.held)
	return s
}

// Close lets go of the read handle the Store keeps between reads (see
// held). The Store still works after Close, opening the file for each read.
func (s *Store) Close() error {
	s.held.close()
	s.trim.close()
	return nil
}

// Path returns the index file's path.
func (s *Store) Path() string { return s.path }

// Dir returns the index directory.
func (s *Store) Dir() string { return s.dir }

// View runs fn in a read-only transaction on a freshly opened file. It
// returns ErrMissing when there is no index file, ErrLocked when the lock
// was not had in time, ErrCorrupt for memidx's file damaged or of another
// version, ErrForeign for a file that is not memidx's.
func (s *Store) View(ctx context.Context, fn func(tx *bolt.Tx) error) error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if err := ctx.Err(); err != nil {
		return err
	}
	return s.read(s.opt.LockTimeout, fn)
}

// DropPages drops the pages of tx's file from this process's map (they
// stay in the page cache; a later read faults them in again). A read that
// walks a whole bucket calls it when done, so that a long-lived host's
// kept map counts only the pages its calls touch again. Nothing read
// before becomes invalid: the map stays.
func DropPages(tx *bolt.Tx) { dropMapped(tx.DB(), tx.Size()) }

// Update runs fn in a read-write transaction, creating the directory and
// the file when needed. A file that is not memidx's is never opened for
// writing: Update returns ErrForeign.
func (s *Store) Update(ctx context.Context, fn func(tx *bolt.Tx) error) error {
	return s.update(ctx, fn, false)
}

// UpdateScrub is Update for a transaction that deletes what must not
// outlive it (the records of deleted sessions): once it has committed,
// every free page of the file is overwritten with zeros, since bbolt only
// unlinks a deleted value and leaves its bytes in the file. The scrub is
// best effort; whatever it misses, the next one covers, as it zeroes every
// free page.
func (s *Store) UpdateScrub(ctx context.Context, fn func(tx *bolt.Tx) error) error {
	return s.update(ctx, fn, true)
}

func (s *Store) update(ctx context.Context, fn func(tx *bolt.Tx) error, scrub bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := s.ensureDir(); err != nil {
		return err
	}
	deadline := time.Now().Add(s.opt.LockTimeout)
	db, file, pre, err := s.openWriter(deadline)
	if err != nil {
		return err
	}
	removeLeftovers(s.dir) // under the lock: no compaction is in flight
	err = guard(func() error {
		if errors.Is(pre, ErrMissing) { // a new file
			if err := s.stamp(db); err != nil {
				return err
			}
		}
		return db.Update(func(tx *bolt.Tx) error {
			if err := s.check(tx); err != nil {
				return err
			}
			return fn(tx)
		})
	})
	if err == nil && scrub {
		// Best effort, but a fault means the file is damaged now.
		if serr := guard(func() error { return s.scrub(db, file) }); isDamaged(serr) {
			err = serr
		}
	}
	closeWriter(db, file, err)
	jerr := s.judge(err)
	if isDamaged(err) && errors.Is(jerr, ErrMissing) {
		// Emptied while written: the write is lost, as with damage.
		return fmt.Errorf("%w: the file was emptied while written: %v", ErrCorrupt, err)
	}
	return jerr
}

// isDamaged reports whether err is a panic or a memory fault in bbolt.
func isDamaged(err error) bool {
	var d *damaged
	return errors.As(err, &d)
}

// closeWriter closes a writer's handle after its transaction ended with
// err. A panic or a fault (another process cut the file) may have left
// bbolt's own lock taken: its rollback reads the freelist page through
// the map, and faults again. Close would then wait for that lock forever
// with the file's exclusive flock held, and every other process would find
// the index busy. So after damage the flock is dropped first, and when
// Close does not return promptly the file is closed without it: its map
// (and a goroutine waiting in Close) are left to the process, and the
// next call opens the file afresh.
func closeWriter(db *bolt.DB, file *os.File, err error) {
	if !isDamaged(err) {
		_ = db.Close()
		return
	}
	if file != nil {
		_ = unlock(file)
	}
	closed := make(chan struct{})
	go func() {
		_ = db.Close()
		close(closed)
	}()
	select {
	case <-closed:
	case <-time.After(faultCloseWait):
		if file != nil {
			_ = file.Close()
		}
	}
}

// faultCloseWait is how long closeWriter lets Close run after damage;
// one that can return does so in well under a millisecond.
const faultCloseWait = 100 * time.Millisecond

// openWriter opens the index file for writing, by deadline; pre is what
// a read found before (nil, or ErrMissing for no file yet). A file another
// process replaced or removed while this one waited for its lock (Compact,
// Reset) is left for the one at the path: a commit to it would be lost.
func (s *Store) openWriter(deadline time.Time) (db *bolt.DB, file *os.File, pre error, err error) {
	for try := 1; ; try++ {
		db, file, pre, err := s.openWritable(deadline, true)
		if err != nil {
			return nil, nil, nil, err
		}
		if afterWriterOpen != nil {
			afterWriterOpen()
		}
		if namesFile(s.path, file) {
			return db, file, pre, nil
		}
		db.Close()
		if try == maxReplacedOpens {
			return nil, nil, nil, ErrLocked // the file keeps being replaced
		}
	}
}

// openWritable opens the index file for writing, by deadline, with its
// exclusive lock, and returns the file it locked; pre is what a read found
// before (nil, or ErrMissing for no file yet, which only create allows).
// It tells whose the file is before opening it for writing: bbolt writes
// to a file it opens read-write (it initialises an empty one and saves the
// freelist of a file that lacks one). A missing file is made whole under
// another name first (create), so no half-made file is ever at the path.
func (s *Store) openWritable(deadline time.Time, create bool) (db *bolt.DB, file *os.File, pre error, err error) {
	pre = s.read(max(time.Until(deadline), 0), func(*bolt.Tx) error { return nil })
	switch {
	case pre == nil:
	case create && errors.Is(pre, ErrMissing):
		made, err := s.create()
		if err != nil {
			return nil, nil, nil, err
		}
		if made {
			pre = nil // stamped already
		}
	case errors.Is(pre, ErrUnreadable):
		return nil, nil, nil, fmt.Errorf("%w: %v", ErrReadOnly, pre)
	default:
		return nil, nil, nil, pre
	}
	db, file, err = s.open(false, time.Until(deadline))
	if err != nil {
		return nil, nil, nil, s.judge(err)
	}
	return db, file, pre, nil
}

// afterWriterOpen, when set (by tests only), runs once a writer holds the
// file's lock.
var afterWriterOpen func()

// maxReplacedOpens bounds how often a writer, or a reset, opens the file
// again after finding it replaced under its lock.
const maxReplacedOpens = 3

// read runs fn in a read-only transaction once the file is known to be
// memidx's, of this version, on the handle kept between reads (or a fresh
// one).
func (s *Store) read(timeout time.Duration, fn func(tx *bolt.Tx) error) error {
	l, err := s.held.acquire(s, timeout) // a missing file is ErrMissing
	if err == nil {
		entered := false
		err = guard(func() error {
			return l.db.View(func(tx *bolt.Tx) error {
				entered = true
				if err := s.check(tx); err != nil {
					return err
				}
				err := fn(tx)
				if l.own == nil { // a read's own handle is closed after it
					s.trim.after(tx)
				}
				return err
			})
		})
		var d *damaged
		s.held.release(s, l, err, !entered && errors.As(err, &d))
	}
	return s.judge(err)
}

// openLease opens the file read-only for one read, by deadline.
func (s *Store) openLease(deadline time.Time) (lease, error) {
	db, f, err := s.open(true, max(time.Until(deadline), 0))
	if err != nil {
		return lease{}, err
	}
	s.files.Store(db, f)
	return lease{db: db, own: f}, nil
}

// closeDB closes a read handle and forgets its file.
func (s *Store) closeDB(db *bolt.DB) {
	s.forget(db)
	_ = db.Close()
}

// forget forgets a read handle's file.
func (s *Store) forget(db *bolt.DB) { s.files.Delete(db) }

// Stat describes the file a read transaction reads: the open file, which
// the path may no longer name (another process reset the index meanwhile),
// so that what a caller remembers of a commit is of the file it read.
func (s *Store) Stat(tx *bolt.Tx) (os.FileInfo, error) {
	if f, ok := s.files.Load(tx.DB()); ok {
		return f.(*os.File).Stat()
	}
	return os.Stat(s.path)
}

// Reset deletes the index file, a damaged one or one of another version,
// so that the next Update starts empty. It deletes only memidx's own file:
// for any other it returns ErrForeign and leaves the file as it is.
// Session files are never touched.
//
// It removes the file under its exclusive lock, as Compact replaces it:
// only the holder of that lock on the file the path names changes the
// path, so a compaction in flight never puts its copy of the old file
// over a newer one, and a reset never removes a file a compaction just
// put in place of the one it judged.
func (s *Store) Reset() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dropHeld()
	deadline := time.Now().Add(s.opt.LockTimeout)
	for try := 1; ; try++ {
		if err := s.owned(); err != nil {
			return err
		}
		f, err := s.openFile(os.O_RDONLY, 0)
		switch {
		case errors.Is(err, os.ErrNotExist):
			return nil
		case errors.Is(err, ErrForeign):
			return err
		case err != nil:
			return s.remove() // unreadable: remove it as it is
		}
		err = lockExclusive(f, deadline)
		switch {
		case errors.Is(err, ErrLocked):
			f.Close()
			return err
		case err == nil && !namesFile(s.path, f) && try < maxReplacedOpens:
			unlock(f)
			f.Close()
			continue // replaced while this waited: judge the new one
		}
		err = s.remove()
		_ = unlock(f)
		f.Close()
		return err
	}
}

// dropHeld closes the kept read handle; the caller holds s.mu, so no
// read is in flight.
func (s *Store) dropHeld() {
	s.held.mu.Lock()
	s.held.drop()
	s.held.mu.Unlock()
}

// remove removes the file at the path.
func (s *Store) remove() error {
	err := os.Remove(s.path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("bucket: reset: %w", err)
	}
	return nil
}

// lockExclusive takes f's exclusive flock by deadline (ErrLocked after
// it); where flock is not to be had it does nothing.
func lockExclusive(f *os.File, deadline time.Time) error {
	for {
		err := tryLockExclusive(f)
		switch {
		case err == nil, errors.Is(err, errors.ErrUnsupported):
			return nil
		case !errors.Is(err, errWouldBlock):
			return nil // a lock the file system cannot give: as before locks
		case time.Now().After(deadline):
			return ErrLocked
		}
		time.Sleep(2 * time.Millisecond)
	}
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

// open opens the file with bbolt, through openFile: never through a
// symbolic link, never another user's file. A new file is created 0600
// (bbolt passes the mode to open(2)); an existing file's mode is left as
// it is.
// Errors that may mean damage come back as *damaged, for judge. The file
// bbolt opened is returned too, for held's locking.
func (s *Store) open(readOnly bool, timeout time.Duration) (*bolt.DB, *os.File, error) {
	var file *os.File
	o := &bolt.Options{
		// Zero would mean no timeout at all.
		Timeout:  max(timeout, time.Millisecond),
		ReadOnly: readOnly,
		NoSync:   s.opt.NoSync,
		OpenFile: func(_ string, flag int, perm os.FileMode) (*os.File, error) {
			f, err := s.openFile(flag, perm)
			file = f
			return f, err
		},
	}
	if !readOnly {
		// A writer grows the file batch by batch; every remap copies the
		// inline values of all open buckets. Reserve address space once
		// (virtual only: nothing is read until touched).
		o.InitialMmapSize = writerMmapSize
	}
	var db *bolt.DB
	err := guard(func() error {
		var oerr error
		db, oerr = bolt.Open(s.path, 0o600, o)
		return oerr
	})
	if err != nil {
		var d *damaged
		switch {
		case errors.As(err, &d):
			// A panic while opening (a damaged freelist): bbolt did not
			// close the file it locked.
			if file != nil {
				_ = unlock(file)
				_ = file.Close()
			}
			return nil, nil, err
		case errors.Is(err, ErrForeign): // refused by openFile
			return nil, nil, err
		case errors.Is(err, berrors.ErrTimeout):
			return nil, nil, ErrLocked
		case errors.Is(err, os.ErrPermission), errors.Is(err, berrors.ErrDatabaseReadOnly):
			if readOnly {
				return nil, nil, fmt.Errorf("%w: %v", ErrUnreadable, err)
			}
			return nil, nil, fmt.Errorf("%w: %v", ErrReadOnly, err)
		case errors.Is(err, os.ErrNotExist):
			return nil, nil, ErrMissing
		}
		return nil, nil, &damaged{err}
	}
	if !readOnly {
		// With the large mmap above, bbolt would grow the file 16 MiB at a
		// time; grow it in small steps instead, so that a small index
		// stays small.
		db.AllocSize = writerAllocSize
	}
	return db, file, nil
}

// writerMmapSize and writerAllocSize are a writer's map and the step its
// file grows by (see open); a new file is made with them too (initNew).
const (
	writerMmapSize  = 1 << 30
	writerAllocSize = 1 << 20
)

// damaged is a file that bbolt could not open or read: memidx's damaged
// index, or some other file; only its bytes tell which (see judge).
type damaged struct{ cause any }

func (d *damaged) Error() string { return fmt.Sprintf("bucket: index file is damaged: %v", d.cause) }
