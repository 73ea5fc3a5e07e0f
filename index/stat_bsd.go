//go:build darwin || freebsd

package index

import (
	"io/fs"
	"syscall"
)

// statExtra returns the change time, inode and device of a stat, which
// catch a rewrite that keeps the size and mtime (or a file replaced by
// another).
func statExtra(st fs.FileInfo) (ctimeNs int64, inode, dev uint64) {
	if sys, ok := st.Sys().(*syscall.Stat_t); ok {
		return sys.Ctimespec.Nano(), uint64(sys.Ino), uint64(sys.Dev)
	}
	return 0, 0, 0
}
