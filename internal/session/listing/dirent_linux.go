package listing

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io/fs"
	"slices"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// direntBuffers hold what getdents64 writes, one directory at a time.
var direntBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 32<<10); return &b }}

// entries reads the entries of d with getdents64, a pooled buffer at a
// time, and copies their names into one allocation a buffer:
// os.File.ReadDir allocated an entry and a name for each, which in a
// fresh process is a page fault every few dozen entries. Parsing each
// buffer as it comes keeps the buffer small: one grown to hold a whole
// directory of thousands of sessions was megabytes of garbage each time
// a collection emptied the pool.
func (d *dirHandle) entries() ([]dirEntry, error) {
	fd := d.descriptor()
	buf := direntBuffers.Get().(*[]byte)
	defer direntBuffers.Put(buf)
	raw := (*buf)[:cap(*buf)]
	var ents []dirEntry
	for {
		n, err := unix.Getdents(fd, raw)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return d.readAgain(err)
		}
		if n <= 0 {
			break
		}
		if ents, err = appendDirents(ents, raw[:n], d.lstatType); err != nil {
			return nil, &fs.PathError{Op: "lstat", Path: d.path, Err: err}
		}
	}
	return ents, nil
}

// readAgain reads the entries the portable way after getdents64 failed
// (a file system that does not have it, say), from the start.
func (d *dirHandle) readAgain(err error) ([]dirEntry, error) {
	if _, serr := d.f.Seek(0, 0); serr != nil {
		return nil, &fs.PathError{Op: "readdirent", Path: d.path, Err: err}
	}
	return d.readEntries()
}

// parseDirents returns the entries of raw, a run of linux_dirent64
// records (see appendDirents).
func parseDirents(raw []byte, typeOf func(name string) (fs.FileMode, error)) ([]dirEntry, error) {
	return appendDirents(nil, raw, typeOf)
}

// appendDirents appends to ents the entries of raw, a run of
// linux_dirent64 records, without "." and "..", deleted entries (inode 0)
// or entries that vanished before an unknown type could be asked (typeOf
// says fs.ErrNotExist); any other failure to ask is the directory's, as
// os.File.ReadDir has it. Their names share one new allocation.
func appendDirents(ents []dirEntry, raw []byte, typeOf func(name string) (fs.FileMode, error)) ([]dirEntry, error) {
	n, size := 0, 0
	eachDirent(raw, func(ino uint64, typ byte, name []byte) {
		n++
		size += len(name)
	})
	if n == 0 {
		return ents, nil
	}
	// Doubled, not by append's quarter for large slices: a directory of
	// thousands comes a buffer of a few hundred at a time.
	if cap(ents)-len(ents) < n {
		ents = slices.Grow(ents, max(n, len(ents)))
	}
	names := make([]byte, 0, size)
	var err error
	eachDirent(raw, func(ino uint64, t byte, nameb []byte) {
		if err != nil || ino == 0 || string(nameb) == "." || string(nameb) == ".." {
			return
		}
		start := len(names)
		names = append(names, nameb...)
		name := unsafe.String(&names[start], len(nameb))
		typ, ok := direntType(t)
		if !ok {
			var terr error
			switch typ, terr = typeOf(name); {
			case errors.Is(terr, fs.ErrNotExist):
				return
			case terr != nil:
				err = terr
				return
			}
		}
		ents = append(ents, dirEntry{name, typ})
	})
	if err != nil {
		return nil, err
	}
	return ents, nil
}

// eachDirent calls fn with each linux_dirent64 record of raw; a record
// cut short, or one whose length is not a record's, ends the run.
func eachDirent(raw []byte, fn func(ino uint64, typ byte, name []byte)) {
	const header = 19 // d_ino 8, d_off 8, d_reclen 2, d_type 1
	for off := 0; off+header <= len(raw); {
		reclen := int(binary.NativeEndian.Uint16(raw[off+16:]))
		if reclen < header || off+reclen > len(raw) {
			return // the kernel never writes one
		}
		rec := raw[off : off+reclen]
		off += reclen
		name := rec[header:]
		if i := bytes.IndexByte(name, 0); i >= 0 {
			name = name[:i]
		}
		if len(name) > 0 {
			fn(binary.NativeEndian.Uint64(rec), rec[18], name)
		}
	}
}

// direntType is the type bits of a d_type; ok is false for DT_UNKNOWN
// (file systems that do not fill it in), which needs an lstat.
func direntType(t byte) (typ fs.FileMode, ok bool) {
	switch t {
	case unix.DT_REG:
		return 0, true
	case unix.DT_DIR:
		return fs.ModeDir, true
	case unix.DT_LNK:
		return fs.ModeSymlink, true
	case unix.DT_FIFO:
		return fs.ModeNamedPipe, true
	case unix.DT_SOCK:
		return fs.ModeSocket, true
	case unix.DT_CHR:
		return fs.ModeDevice | fs.ModeCharDevice, true
	case unix.DT_BLK:
		return fs.ModeDevice, true
	}
	return 0, false
}

// lstatType asks the type of name in d, without following a symlink.
func (d *dirHandle) lstatType(name string) (fs.FileMode, error) {
	var st unix.Stat_t
	if err := d.fstatat(name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return 0, err // an Errno: ENOENT is fs.ErrNotExist
	}
	// A d_type is the file type bits of st_mode, shifted (DT_REG is
	// S_IFREG>>12, and so on).
	if typ, ok := direntType(byte(st.Mode & unix.S_IFMT >> 12)); ok {
		return typ, nil
	}
	return fs.ModeIrregular, nil
}
