//go:build unix

package bucket

import (
	"os"
	"syscall"
)

// ownedByUs reports whether this process's user owns the file of fi: a
// compaction replaces only such a file, since the new one is ours.
func ownedByUs(fi os.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid()
}
