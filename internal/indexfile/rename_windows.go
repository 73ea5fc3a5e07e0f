package indexfile

import "golang.org/x/sys/windows"

// renameNoReplace renames old to new unless new exists
// (ERROR_ALREADY_EXISTS, which is fs.ErrExist): MoveFileEx without
// MOVEFILE_REPLACE_EXISTING.
func renameNoReplace(old, new string) error {
	from, err := windows.UTF16PtrFromString(old)
	if err != nil {
		return err
	}
	to, err := windows.UTF16PtrFromString(new)
	if err != nil {
		return err
	}
	return windows.MoveFileEx(from, to, 0)
}
