package session

import (
	"io/fs"
	"os"
	"time"
)

// FileStat is what a listing learned of a session file: the fields of the
// index's stat gate, so that a caller need not stat the file again.
// CtimeNs, Inode and Dev are zero where the platform does not give them
// (the index then compares size and mtime alone, as it does there).
type FileStat struct {
	Size    int64
	MtimeNs int64
	CtimeNs int64
	Inode   uint64
	Dev     uint64
}

// ModTime is the modification time as a time.Time.
func (s FileStat) ModTime() time.Time { return time.Unix(0, s.MtimeNs) }

// dirHandle is a directory opened once for listing: its entries are
// stat-ed relative to it (fstatat), which spares the kernel a walk of
// the whole path for every file.
type dirHandle struct {
	path string
	f    *os.File
	fd   int
}

// openDir opens dir and reads its entries.
func openDir(dir string) (*dirHandle, []fs.DirEntry, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, nil, err
	}
	ents, err := f.ReadDir(-1)
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return &dirHandle{path: dir, f: f, fd: -1}, ents, nil
}

func (d *dirHandle) close() { d.f.Close() }

// statPath stats a file by its whole path (following symlinks), the
// portable way.
func statPath(p string) (FileStat, bool, error) {
	st, err := os.Stat(p)
	if err != nil {
		return FileStat{}, false, err
	}
	return StatOf(st), st.Mode().IsRegular(), nil
}

// StatOf converts an fs.FileInfo (from os.Stat or File.Stat) to the
// fields the stat gate compares.
func StatOf(st fs.FileInfo) FileStat {
	s := FileStat{Size: st.Size(), MtimeNs: st.ModTime().UnixNano()}
	s.CtimeNs, s.Inode, s.Dev = statExtra(st)
	return s
}
