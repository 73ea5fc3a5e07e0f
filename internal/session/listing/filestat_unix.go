//go:build linux || darwin || freebsd

package listing

import (
	"io/fs"
	"os"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/memidx/memidx/internal/session/confine"
)

// stat stats name in d, following symlinks, with one fstatat.
func (d *dirHandle) stat(name string) (FileStat, bool, error) {
	var st unix.Stat_t
	if err := d.fstatat(name, &st, 0); err != nil {
		return FileStat{}, false, &fs.PathError{Op: "stat", Path: d.path + "/" + name, Err: err}
	}
	s := FileStat{
		Size:    st.Size,
		MtimeNs: st.Mtim.Nano(),
		CtimeNs: st.Ctim.Nano(),
		Inode:   uint64(st.Ino),
		Dev:     uint64(st.Dev),
	}
	return s, uint32(st.Mode)&unix.S_IFMT == unix.S_IFREG, nil
}

// fstatat stats name in d into st (flags as fstatat's), again when a
// signal interrupts it.
func (d *dirHandle) fstatat(name string, st *unix.Stat_t, flags int) error {
	for {
		if err := statAt(d.descriptor(), name, st, flags); err != unix.EINTR {
			return err
		}
	}
}

// subdir opens the directory name in d, a real directory: a symlink
// swapped in for it since d was read is not followed.
func (d *dirHandle) subdir(name string) func() (*os.File, error) {
	return func() (*os.File, error) {
		fd, err := confine.RetryEINTR(func() (int, error) {
			return unix.Openat(d.descriptor(), name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		})
		p := d.path + "/" + name
		if err != nil {
			return nil, &fs.PathError{Op: "open", Path: p, Err: err}
		}
		return os.NewFile(uintptr(fd), p), nil
	}
}

// descriptor is d's file descriptor, for the *at calls.
func (d *dirHandle) descriptor() int {
	if d.fd < 0 {
		d.fd = int(d.f.Fd())
	}
	return d.fd
}

// statExtra returns the change time, inode and device of a stat: the same
// values (and conversions) as the index's stat gate takes from a file it
// reads, so that a listed identity and a read one compare equal.
func statExtra(st fs.FileInfo) (ctimeNs int64, inode, dev uint64) {
	if sys, ok := st.Sys().(*syscall.Stat_t); ok {
		return statTimes(sys)
	}
	return 0, 0, 0
}
