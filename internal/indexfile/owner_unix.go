//go:build unix

package indexfile

import (
	"os"
	"syscall"
)

// noFollow makes an open fail on a symbolic link as the last component.
const noFollow = syscall.O_NOFOLLOW

// ownedByUs reports whether this process's effective user owns the file of
// fi: memidx reads and writes only such a file, and a compaction's new
// file is ours.
func ownedByUs(fi os.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Geteuid()
}
