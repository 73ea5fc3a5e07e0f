package indexfile

import (
	"errors"

	"golang.org/x/sys/unix"
)

// renameNoReplace renames old to new unless new exists (EEXIST then);
// errors.ErrUnsupported where the kernel or the file system cannot.
func renameNoReplace(old, new string) error {
	err := unix.Renameat2(unix.AT_FDCWD, old, unix.AT_FDCWD, new, unix.RENAME_NOREPLACE)
	if errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EINVAL) || errors.Is(err, unix.EOPNOTSUPP) {
		return errors.ErrUnsupported
	}
	return err
}
