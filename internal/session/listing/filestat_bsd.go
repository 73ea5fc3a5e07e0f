//go:build darwin || freebsd

package listing

import "syscall"

func statTimes(sys *syscall.Stat_t) (ctimeNs int64, inode, dev uint64) {
	return sys.Ctimespec.Nano(), uint64(sys.Ino), uint64(sys.Dev)
}
