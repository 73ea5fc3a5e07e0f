package index

import (
	"errors"
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// nextData returns the offset of the first data (not a hole) at or after
// off, leaving f there; ok is false when only a hole follows (the offset is
// then meaningless). Where the file system cannot tell, it is off.
func nextData(f *os.File, off int64) (next int64, ok bool) {
	next, err := f.Seek(off, unix.SEEK_DATA)
	switch {
	case err == nil:
		return next, true
	case errors.Is(err, unix.ENXIO):
		return off, false
	}
	// Not supported: read everything.
	if _, err := f.Seek(off, io.SeekStart); err != nil {
		return off, true
	}
	return off, true
}
