//go:build !linux && !darwin && !windows

package indexfile

import "errors"

// renameNoReplace: no rename that refuses to replace here; placeNew falls
// back to a check before a rename (see there).
func renameNoReplace(string, string) error { return errors.ErrUnsupported }
