package indexfile

import (
	"fmt"
	"io/fs"
	"os"
)

// openFile opens the index file, as bbolt's OpenFile does, refusing what
// is not memidx's to write: a symbolic link (dangling or not: nothing is
// created through it), anything but a regular file, and a file another
// user owns (memidx changes only what it created, and another user's
// file could hand this user's session text to them). The refusal is
// ErrForeign and names the path. Where the platform has O_NOFOLLOW the
// open itself does not follow a link, so a link put in place after the
// check is refused too; elsewhere the check before the open is all there
// is.
func (s *Store) openFile(flag int, perm os.FileMode) (*os.File, error) {
	if fi, err := os.Lstat(s.path); err == nil {
		if why := notOurs(fi); why != "" {
			return nil, s.refused(why)
		}
	}
	f, err := os.OpenFile(s.path, flag|noFollow, perm)
	if err != nil {
		// ELOOP on Linux and macOS; other systems say it otherwise.
		if fi, lerr := os.Lstat(s.path); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return nil, s.refused("a symbolic link")
		}
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if why := notOurs(fi); why != "" {
		f.Close()
		return nil, s.refused(why)
	}
	return f, nil
}

// notOurs says why the file of fi is not one memidx may write ("" when it
// is).
func notOurs(fi os.FileInfo) string {
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		return "a symbolic link"
	case !fi.Mode().IsRegular():
		return "not a regular file"
	case !ownedByUs(fi):
		return "owned by another user"
	}
	return ""
}

// refused is ErrForeign for the file of s, with the reason.
func (s *Store) refused(why string) error {
	return fmt.Errorf("%w: %s (%s)", ErrForeign, s.path, why)
}
