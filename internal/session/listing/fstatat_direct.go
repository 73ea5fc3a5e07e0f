//go:build linux && (amd64 || arm64)

package listing

import (
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"
)

// statAt is unix.Fstatat with the name's C copy on the stack: a listing
// stats every session file, and unix.Fstatat allocated that copy on the
// heap each time (8 MB of garbage at 100k files).
func statAt(dirfd int, name string, st *unix.Stat_t, flags int) error {
	var buf [256]byte
	if len(name) >= len(buf) || strings.IndexByte(name, 0) >= 0 {
		return unix.Fstatat(dirfd, name, st, flags)
	}
	copy(buf[:], name) // the rest of buf is zero: the name ends in NUL
	_, _, errno := unix.Syscall6(sysFstatat, uintptr(dirfd), uintptr(unsafe.Pointer(&buf[0])),
		uintptr(unsafe.Pointer(st)), uintptr(flags), 0, 0)
	if errno != 0 {
		return errno
	}
	return nil
}
