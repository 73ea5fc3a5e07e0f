//go:build linux || darwin || freebsd

package confine

import (
	"errors"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// openPlain opens path read-only, following symlinks, without blocking
// on a FIFO or device.
func openPlain(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}

// lastFlags are the open flags of the file (or directory) itself.
func lastFlags(dir bool) int {
	if dir {
		return unix.O_RDONLY | unix.O_DIRECTORY | unix.O_CLOEXEC
	}
	return unix.O_RDONLY | unix.O_NONBLOCK | unix.O_CLOEXEC | unix.O_NOCTTY
}

// openRoot opens a session root. Symlinks in the root's own path are
// followed: where the root lies is the user's configuration.
func openRoot(root string) (int, error) {
	return RetryEINTR(func() (int, error) { return unix.Open(root, searchFlags, 0) })
}

// walkStrict opens rel below the directory rootfd one component at a
// time, following no symlink (a symlink in the way fails with ELOOP,
// ENOTDIR or EMLINK, as the platform has it).
func walkStrict(rootfd int, rel string, dir bool) (int, error) {
	parts, err := splitRel(rel)
	if err != nil {
		return -1, err
	}
	fd := rootfd
	for i, p := range parts {
		flags := searchFlags | unix.O_NOFOLLOW
		if i == len(parts)-1 {
			flags = lastFlags(dir) | unix.O_NOFOLLOW
		}
		next, err := RetryEINTR(func() (int, error) { return unix.Openat(fd, p, flags, 0) })
		if fd != rootfd {
			unix.Close(fd)
		}
		if err != nil {
			return -1, err
		}
		fd = next
	}
	return fd, nil
}

// openWalking is openStrict by walkStrict: the way where there is no
// openat2.
func openWalking(root, rel, name string, dir bool) (*os.File, error) {
	rootfd, err := openRoot(root)
	if err != nil {
		return nil, pathError(root, err)
	}
	defer unix.Close(rootfd)
	fd, err := walkStrict(rootfd, rel, dir)
	if err != nil {
		return nil, pathError(name, err)
	}
	return os.NewFile(uintptr(fd), name), nil
}

// linkErrno reports the errors of an open that met a symlink it was told
// not to follow, or that would leave its root.
func linkErrno(err error) bool {
	return errors.Is(err, unix.ELOOP) || errors.Is(err, unix.EMLINK) ||
		errors.Is(err, unix.ENOTDIR) || errors.Is(err, unix.EXDEV)
}

// RetryEINTR calls open again while a signal interrupts it.
func RetryEINTR(open func() (int, error)) (int, error) {
	for {
		fd, err := open()
		if err != unix.EINTR {
			return fd, err
		}
	}
}
