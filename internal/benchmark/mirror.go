package benchmark

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// mirrorStats counts what mirror did.
type mirrorStats struct{ copied int }

// mirror recreates the corpus directory src (symlinks resolved) in dst,
// which must not exist, so that the bench can write without touching the
// user's files. Directories are made fresh and regular files copied, with
// their modification times. Not hard-linked: a new link changes the
// file's ctime, which every other memidx index over the corpus takes for a
// change (it re-reads the session), and memidx changes nothing it did not
// create. Symlinks and special files are left out, so that nothing in dst
// leads out of the corpus (and no pipe is ever opened).
func mirror(src, dst string) (mirrorStats, error) {
	var st mirrorStats
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		to := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			return os.Mkdir(to, 0o755)
		case !d.Type().IsRegular():
			return nil
		default:
			st.copied++
			return copyFile(p, to)
		}
	})
	return st, err
}

// copyFile copies the regular file src to the new file dst, keeping its
// modification time (the bench picks the newest session by mtime, and
// refresh orders sessions by it) and its permissions, made writable by its
// owner: a copy is the bench's own and may be appended to.
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	info, err := in.Stat()
	if err != nil {
		return err
	}
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, info.Mode().Perm()|0o200)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Chtimes(dst, time.Time{}, info.ModTime())
}
