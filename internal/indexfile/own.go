package indexfile

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"

	bolt "go.etcd.io/bbolt"
)

// memidx changes only files it created and deletes only a file it
// recognises as its own. Its file is one of:
//
//   - an empty file, or a bbolt file without any bucket: memidx stopped
//     right after creating it;
//   - a bbolt file whose meta bucket holds the marker (layout 3 on), or the
//     cache version key of layouts 1 and 2: memidx's, of this version or
//     of another one, which is rebuilt;
//   - a file bbolt cannot open or read that still has, by bbolt's
//     structure, the meta bucket with the marker on a leaf page of its own
//     near the start (see stamp), or, reached from a meta page with
//     bbolt's magic, the meta bucket of layout 2: memidx's, damaged, which
//     is rebuilt (see memidxLayout). The marker's text elsewhere in a
//     file proves nothing.
//
// and in every case a regular file this user owns, not reached through a
// symbolic link (see openFile).
//
// Anything else (a SQLite database, random bytes, another program's bbolt
// file, a directory) is foreign: never written, never deleted; the caller
// answers from the session files.

var (
	// markerKey holds markerText in the meta bucket.
	markerKey  = []byte("memidx")
	markerText = []byte("memidx index file: derived from OMP session files, rebuilt when deleted\n")
)

// foreign is ErrForeign for the file of s.
func (s *Store) foreign() error { return fmt.Errorf("%w: %s", ErrForeign, s.path) }

// sameVersion reports whether the meta bucket names this build's cache
// version and layout.
func sameVersion(b *bolt.Bucket) bool {
	return bytes.Equal(b.Get(versionKey), []byte{CacheVersion}) && bytes.Equal(b.Get(layoutKey), []byte{LayoutVersion})
}

// check tells whose file tx reads: nil for memidx's of this version,
// ErrMissing for a bbolt file without any bucket yet, ErrCorrupt for
// memidx's of another version, ErrForeign for another program's.
func (s *Store) check(tx *bolt.Tx) error {
	b := tx.Bucket(metaBucket)
	switch {
	case b == nil:
		if k, _ := tx.Cursor().First(); k == nil {
			return ErrMissing // created but never written
		}
		return s.foreign()
	case b.Get(markerKey) == nil && len(b.Get(versionKey)) != 1:
		return s.foreign() // another program's "meta" bucket
	case !sameVersion(b):
		return ErrCorrupt
	}
	return nil
}

// stamp writes the meta bucket into a new file, in a transaction of its
// own, before anything else: so the marker lands in the first pages of the
// file, where memidxLayout finds it even when bbolt's meta pages are gone or
// the file was cut short. The marker text is padded to a quarter page so
// that bbolt gives the bucket a page of its own instead of inlining it in
// the root page, which every later transaction moves: the meta bucket is
// never written again, so its page stays where it is.
func (s *Store) stamp(db *bolt.DB) error {
	return db.Update(func(tx *bolt.Tx) error {
		if tx.Bucket(metaBucket) != nil {
			return nil // another process was first
		}
		if k, _ := tx.Cursor().First(); k != nil {
			return s.foreign()
		}
		b, err := tx.CreateBucket(metaBucket)
		if err != nil {
			return err
		}
		marker := make([]byte, max(len(markerText), db.Info().PageSize/4))
		copy(marker, markerText)
		for _, kv := range [][2][]byte{{versionKey, {CacheVersion}}, {layoutKey, {LayoutVersion}}, {markerKey, marker}} {
			if err := b.Put(kv[0], kv[1]); err != nil {
				return err
			}
		}
		return nil
	})
}

// judge decides whose a file is that bbolt could not open or read (err is
// *damaged): ErrCorrupt when it is memidx's, damaged; ErrMissing when there
// is no file to speak of; ErrForeign otherwise. Any other err is returned
// as it is.
func (s *Store) judge(err error) error {
	var d *damaged
	if !errors.As(err, &d) {
		return err
	}
	if own := s.ownBytes(); own != nil {
		return own
	}
	return fmt.Errorf("%w: %v", ErrCorrupt, d.cause)
}

// ownBytes tells from the file's structure alone whether it is memidx's:
// nil when it is (see memidxLayout), ErrMissing when there is no file or
// an empty one, ErrForeign or a read error otherwise. A symbolic link,
// anything but a regular file and another user's file are foreign
// whatever they hold.
func (s *Store) ownBytes() error {
	st, err := os.Lstat(s.path)
	switch {
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, syscall.ENOTDIR):
		return ErrMissing
	case err != nil:
		return fmt.Errorf("%w: %v", ErrUnreadable, err)
	case notOurs(st) != "":
		return s.refused(notOurs(st))
	case st.Size() == 0:
		return ErrMissing // memidx stopped right after creating it
	}
	f, err := s.openFile(os.O_RDONLY, 0)
	switch {
	case errors.Is(err, ErrForeign):
		return err
	case err != nil:
		return fmt.Errorf("%w: %v", ErrUnreadable, err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && memidxLayout(f, fi.Size()) {
		return nil
	}
	return s.foreign()
}

// owned reports (nil) whether the file may be deleted: there is none, or
// it is memidx's. The bytes answer first, without waiting for the lock;
// bbolt answers for a file without the marker (layouts before 3, a file
// without buckets).
func (s *Store) owned() error {
	switch err := s.ownBytes(); {
	case err == nil, errors.Is(err, ErrMissing):
		return nil
	case !errors.Is(err, ErrForeign):
		return err
	}
	switch err := s.read(s.opt.LockTimeout, func(*bolt.Tx) error { return nil }); {
	case err == nil, errors.Is(err, ErrMissing), errors.Is(err, ErrCorrupt):
		return nil
	default:
		return err
	}
}
