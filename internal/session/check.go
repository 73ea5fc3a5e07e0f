package session

import (
	"errors"
	"fmt"
	"io"
)

// CheckFile applies the header part of the check every file passes before
// memidx reads it for a caller (package confine) to the regular file at
// path of the given size: a valid header, or no value at all.
func CheckFile(path string, size int64) error {
	if size == 0 {
		return nil
	}
	if _, err := ReadHeader(path); !errors.Is(err, ErrNoHeader) {
		return err
	}
	// No header: only a blank file (a fresh session) passes.
	if size <= blankProbeBytes {
		if f, _, err := OpenRegular(path); err == nil {
			b, rerr := io.ReadAll(io.LimitReader(f, blankProbeBytes+1))
			f.Close()
			if rerr == nil && jsBlank(b) {
				return nil
			}
		}
	}
	return fmt.Errorf("%w: %s is not an OMP session file", ErrNoHeader, path)
}

// blankProbeBytes bounds the read that tells a blank file from a
// headerless one.
const blankProbeBytes = 64 << 10

// IsSessionData reports whether data, a whole file, is one OMP would open
// as a session: a valid header after any garbage lines, or no value at all.
// Readers call it before hashing or keeping anything of the file.
func IsSessionData(data []byte) bool {
	if jsBlank(data) {
		return true
	}
	h, _ := headerFromPrefix(data, true, len(data) >= StreamThreshold)
	return h != nil
}
