//go:build !linux && !darwin && !freebsd

package confine

import (
	"fmt"
	"github.com/memidx/memidx/internal/session/locate"
	"os"
	"path/filepath"
	"syscall"
)

// openPlain opens path read-only, following symlinks, without blocking
// on a FIFO or device where the platform has them.
func openPlain(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}

// openBeneath opens rel below root. There is no openat here: the file is
// opened by path, then its canonical path must lie below root and name
// the very file opened; anything else (a symlink, or a swap between the
// open and the check) is refused as a symlink not followed, which the
// caller resolves and opens by openStrict.
func openBeneath(root, rel, name string, dir bool) (*os.File, error) {
	return openChecked(root, rel, name, dir, false)
}

// openStrict opens rel below root, a canonical path, when rel holds no
// symlink: the file opened must be the one the path names canonically.
func openStrict(root, rel, name string, dir bool) (*os.File, error) {
	return openChecked(root, rel, name, dir, true)
}

func openChecked(root, rel, name string, dir, strict bool) (*os.File, error) {
	if _, err := splitRel(rel); err != nil {
		return nil, pathError(name, err)
	}
	p := filepath.Join(root, rel)
	f, err := openPlain(p)
	if err != nil {
		return nil, err
	}
	if err := sameCanonical(f, root, p, strict); err != nil {
		f.Close()
		return nil, pathError(name, err)
	}
	return f, nil
}

// sameCanonical checks that f, opened at p, is the file p names once its
// symlinks are resolved, and that this canonical path lies below root
// (and, when strict, is p itself).
func sameCanonical(f *os.File, root, p string, strict bool) error {
	canon, err := filepath.EvalSymlinks(p)
	if err != nil {
		return err
	}
	canonRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return err
	}
	if rel, ok := locate.Within(canonRoot, canon); !ok || rel == "" || strict && canon != p {
		return fmt.Errorf("%w: %s resolves to %s", errLinkRefused, p, canon)
	}
	opened, err := f.Stat()
	if err != nil {
		return err
	}
	named, err := os.Lstat(canon)
	if err != nil {
		return err
	}
	if !os.SameFile(opened, named) {
		return fmt.Errorf("%w: %s changed while it was opened", errLinkRefused, p)
	}
	return nil
}

// linkErrno: the checks above say errLinkRefused themselves.
func linkErrno(error) bool { return false }
