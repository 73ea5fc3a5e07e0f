package indexfile

import (
	"errors"

	"golang.org/x/sys/unix"
)

// renameNoReplace renames old to new unless new exists (EEXIST then);
// errors.ErrUnsupported where the file system cannot.
func renameNoReplace(old, new string) error {
	err := unix.RenamexNp(old, new, unix.RENAME_EXCL)
	if errors.Is(err, unix.ENOTSUP) || errors.Is(err, unix.EINVAL) {
		return errors.ErrUnsupported
	}
	return err
}
