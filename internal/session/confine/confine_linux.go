package confine

import (
	"errors"
	"os"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// searchFlags open a directory to resolve names in, not to read it.
const searchFlags = unix.O_PATH | unix.O_DIRECTORY | unix.O_CLOEXEC

// noOpenat2 is set once the kernel (or a seccomp filter) refused openat2.
var noOpenat2 atomic.Bool

// openBeneath opens rel below root, following symlinks only while they
// stay beneath it (openat2 RESOLVE_BENEATH): an absolute symlink, or one
// that leaves the root, fails with EXDEV.
func openBeneath(root, rel, name string, dir bool) (*os.File, error) {
	return openResolving(root, rel, name, dir, beneathResolve)
}

// beneathResolve are openBeneath's resolve flags.
const beneathResolve = unix.RESOLVE_BENEATH | unix.RESOLVE_NO_MAGICLINKS

// openStrict opens rel below root following no symlink at all.
func openStrict(root, rel, name string, dir bool) (*os.File, error) {
	return openResolving(root, rel, name, dir, unix.RESOLVE_BENEATH|unix.RESOLVE_NO_SYMLINKS|unix.RESOLVE_NO_MAGICLINKS)
}

// openat2Retries bounds the retries of an openat2 that could not rule out
// a race on "..": the kernel asks to try again.
const openat2Retries = 16

func openResolving(root, rel, name string, dir bool, resolve uint64) (*os.File, error) {
	if _, err := splitRel(rel); err != nil {
		return nil, pathError(name, err)
	}
	if noOpenat2.Load() {
		return openWalking(root, rel, name, dir)
	}
	rootfd, err := openRoot(root)
	if err != nil {
		return nil, pathError(root, err)
	}
	defer unix.Close(rootfd)
	return openat2Below(rootfd, root, rel, name, dir, resolve)
}

// openat2Below opens rel below rootfd, the root directory at root, with
// openat2's resolve flags.
func openat2Below(rootfd int, root, rel, name string, dir bool, resolve uint64) (*os.File, error) {
	how := &unix.OpenHow{Flags: uint64(lastFlags(dir)), Resolve: resolve}
	for range openat2Retries {
		fd, err := RetryEINTR(func() (int, error) { return unix.Openat2(rootfd, rel, how) })
		switch {
		case err == nil:
			return os.NewFile(uintptr(fd), name), nil
		case errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EPERM):
			// No openat2 (before Linux 5.6), or a filter that forbids it.
			noOpenat2.Store(true)
			return openWalking(root, rel, name, dir)
		case !errors.Is(err, unix.EAGAIN):
			return nil, pathError(name, err)
		}
	}
	return nil, pathError(name, unix.EAGAIN)
}
