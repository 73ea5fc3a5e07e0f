package listing

import (
	"fmt"
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
func openDir(dir string) (*dirHandle, []dirEntry, error) {
	return openDirFile(dir, func() (*os.File, error) { return os.Open(dir) })
}

// openDirFile opens the directory dir with open and reads its entries.
func openDirFile(dir string, open func() (*os.File, error)) (*dirHandle, []dirEntry, error) {
	f, err := open()
	if err != nil {
		return nil, nil, err
	}
	d := &dirHandle{path: dir, f: f, fd: -1}
	ents, err := d.entries()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return d, ents, nil
}

// dirEntry is a directory entry: its name and type bits (fs.FileMode's
// type, as fs.DirEntry.Type has them).
type dirEntry struct {
	name string
	typ  fs.FileMode
}

func (e dirEntry) Name() string      { return e.name }
func (e dirEntry) Type() fs.FileMode { return e.typ }
func (e dirEntry) IsDir() bool       { return e.typ.IsDir() }

// readEntries reads the entries of d the portable way.
func (d *dirHandle) readEntries() ([]dirEntry, error) {
	des, err := d.f.ReadDir(-1)
	if err != nil {
		return nil, err
	}
	ents := make([]dirEntry, len(des))
	for i, e := range des {
		ents[i] = dirEntry{e.Name(), e.Type()}
	}
	return ents, nil
}

func (d *dirHandle) close() { d.f.Close() }

// isAt checks that d is the directory at canon, a canonical path: not
// something swapped in between the open of d and canon's resolution.
func (d *dirHandle) isAt(canon string) error {
	opened, err := d.f.Stat()
	if err != nil {
		return err
	}
	named, err := os.Lstat(canon)
	if err != nil {
		return err
	}
	if !os.SameFile(opened, named) {
		return fmt.Errorf("session: %s changed while it was listed", d.path)
	}
	return nil
}

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
