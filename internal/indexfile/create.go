package indexfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	bolt "go.etcd.io/bbolt"
)

// newPrefix names the file a writer makes, in the index directory, before
// it becomes the index file.
const newPrefix = FileName + ".new-"

// errNotMade: the file a creation made is no longer the one at its name.
var errNotMade = errors.New("bucket: the new index file was replaced while it was made")

// create puts a new index file, bbolt's first pages and the meta bucket
// with its marker written and synced, at the path when nothing is there;
// made says whether it did. A disk that fills up, or a killed process,
// would otherwise leave a half-made file at the path that no later run can
// tell from another program's, and none would ever delete. The file is
// made under a name of its own and put in place only when no file is at
// the path; when another process was first, its file is the one used.
func (s *Store) create() (made bool, err error) {
	for try := 1; ; try++ {
		if _, err := os.Lstat(s.path); !errors.Is(err, fs.ErrNotExist) {
			return false, nil // a file, or what opening it will say
		}
		tmp, err := s.makeNew()
		if err != nil {
			return false, err
		}
		switch err := placeNew(tmp, s.path); {
		case err == nil:
			syncDir(s.dir)
			return true, nil
		case errors.Is(err, fs.ErrExist):
			os.Remove(tmp)
			return false, nil // another process was first
		case errors.Is(err, fs.ErrNotExist) && try < maxReplacedOpens:
			// A writer of an index file put in place meanwhile, and
			// removed since, took this one for a killed creation's.
			continue
		default:
			os.Remove(tmp)
			return false, fmt.Errorf("bucket: creating %s: %w", s.path, err)
		}
	}
}

// makeNew makes a new index file in the index directory, 0600, under a
// name no other file has (O_EXCL, which follows no link), and returns its
// path. A file it cannot finish is removed.
func (s *Store) makeNew() (string, error) {
	f, err := os.CreateTemp(s.dir, newPrefix+"*")
	if err != nil {
		if errors.Is(err, fs.ErrPermission) {
			return "", fmt.Errorf("%w: %v", ErrReadOnly, err)
		}
		return "", fmt.Errorf("bucket: creating %s: %w", s.path, err)
	}
	path := f.Name()
	st, err := f.Stat()
	f.Close()
	if err == nil {
		err = s.initNew(path, st)
	}
	if err != nil {
		os.Remove(path)
		return "", fmt.Errorf("bucket: creating %s: %w", s.path, err)
	}
	return path, nil
}

// initNew writes bbolt's first pages into the file made at path (st) and
// stamps it; each commit is synced. It opens the file again by its name,
// without following a link, and only while the name is still that file's.
func (s *Store) initNew(path string, st os.FileInfo) error {
	opt := &bolt.Options{
		Timeout:         s.opt.LockTimeout,
		InitialMmapSize: writerMmapSize, // it grows as it would at the path
		OpenFile: func(name string, flag int, perm os.FileMode) (*os.File, error) {
			f, err := os.OpenFile(name, flag|noFollow, perm)
			if err != nil {
				return nil, err
			}
			if fi, err := f.Stat(); err != nil || !os.SameFile(fi, st) {
				f.Close()
				return nil, errNotMade
			}
			return f, nil
		},
	}
	return guard(func() error {
		db, err := bolt.Open(path, 0o600, opt)
		if err != nil {
			return err
		}
		db.AllocSize = writerAllocSize
		err = s.stamp(db)
		if cerr := db.Close(); err == nil {
			err = cerr
		}
		return err
	})
}

// placeNew gives the file at tmp the name path, unless a file has that
// name (fs.ErrExist then): by a hard link and the removal of tmp where
// the file system has hard links, else by a rename that does not replace
// (renameNoReplace). Where neither is to be had, it renames only when
// nothing was at path just before: a file another process puts there in
// between is replaced, and a commit made to it is lost (the index is
// derived data; that run's next write sees the file it lost).
func placeNew(tmp, path string) error {
	err := os.Link(tmp, path)
	switch {
	case err == nil:
		os.Remove(tmp)
		return nil
	case errors.Is(err, fs.ErrExist), errors.Is(err, fs.ErrNotExist):
		return err
	}
	if err := renameNoReplace(tmp, path); !errors.Is(err, errors.ErrUnsupported) {
		return err
	}
	switch _, err := os.Lstat(path); {
	case err == nil:
		return fs.ErrExist
	case !errors.Is(err, fs.ErrNotExist):
		return err
	}
	return os.Rename(tmp, path)
}
