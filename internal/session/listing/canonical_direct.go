//go:build linux && (amd64 || arm64)

package listing

import (
	"io/fs"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// canonical is filepath.EvalSymlinks(p). A listing resolves its roots on
// every call (a server's too), and EvalSymlinks allocated a FileInfo and
// a C string for each element of each root (some 2 KB a call, a tenth of
// a rare-term recall's garbage at 100k sessions). A clean absolute path
// none of whose elements is a symlink, and whose every element but the
// last is a directory, is its own canonical path: it is checked with one
// allocation-free lstat an element (statAt). Any other path is left to
// EvalSymlinks, which gives the same answer or error as before; an
// element that cannot be lstat'ed gives the error EvalSymlinks gives for
// it.
func canonical(p string) (string, error) {
	if !filepath.IsAbs(p) || filepath.Clean(p) != p {
		return filepath.EvalSymlinks(p)
	}
	var st unix.Stat_t
	for i := 1; i <= len(p); i++ {
		if i < len(p) && p[i] != '/' {
			continue
		}
		if err := statAt(unix.AT_FDCWD, p[:i], &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
			if err == unix.EINTR {
				return filepath.EvalSymlinks(p)
			}
			// EvalSymlinks' error: its lstat of the same element failed,
			// no element before being a symlink (a missing archive root
			// is the common case).
			return "", &fs.PathError{Op: "lstat", Path: p[:i], Err: err}
		}
		switch st.Mode & unix.S_IFMT {
		case unix.S_IFLNK:
			return filepath.EvalSymlinks(p)
		case unix.S_IFDIR:
		default:
			if i < len(p) {
				return filepath.EvalSymlinks(p)
			}
		}
	}
	return p, nil
}
