//go:build darwin || freebsd || (linux && !amd64 && !arm64)

package listing

import "golang.org/x/sys/unix"

// statAt is unix.Fstatat (see fstatat_direct.go).
func statAt(dirfd int, name string, st *unix.Stat_t, flags int) error {
	return unix.Fstatat(dirfd, name, st, flags)
}
