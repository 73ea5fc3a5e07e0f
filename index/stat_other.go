//go:build !linux && !darwin && !freebsd

package index

import "io/fs"

// statExtra has no change time, inode or device here: the stat gate
// relies on size and mtime, and the racy re-hash covers a rewrite within
// the clock tick.
func statExtra(fs.FileInfo) (ctimeNs int64, inode, dev uint64) { return 0, 0, 0 }
