//go:build !linux && !darwin && !freebsd

package session

import (
	"io/fs"
	"path/filepath"
)

// stat stats name in d by its whole path: there is no fstatat here.
func (d *dirHandle) stat(name string) (FileStat, bool, error) {
	return statPath(filepath.Join(d.path, name))
}

// statExtra has no change time, inode or device here: the stat gate
// compares size and mtime alone.
func statExtra(fs.FileInfo) (ctimeNs int64, inode, dev uint64) { return 0, 0, 0 }
