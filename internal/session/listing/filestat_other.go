//go:build !linux && !darwin && !freebsd

package listing

import (
	"io/fs"
	"os"
	"path/filepath"
)

// stat stats name in d by its whole path: there is no fstatat here.
func (d *dirHandle) stat(name string) (FileStat, bool, error) {
	return statPath(filepath.Join(d.path, name))
}

// statExtra has no change time, inode or device here: the stat gate
// compares size and mtime alone.
func statExtra(fs.FileInfo) (ctimeNs int64, inode, dev uint64) { return 0, 0, 0 }

// subdir opens the directory name in d, a real directory: the directory
// opened must be the one a no-follow stat of its path names.
func (d *dirHandle) subdir(name string) func() (*os.File, error) {
	return func() (*os.File, error) {
		p := filepath.Join(d.path, name)
		f, err := os.Open(p)
		if err != nil {
			return nil, err
		}
		sub := &dirHandle{path: p, f: f, fd: -1}
		if err := sub.isAt(p); err != nil {
			f.Close()
			return nil, err
		}
		return f, nil
	}
}
