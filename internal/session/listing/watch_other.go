//go:build !linux

package listing

import "os"

// localFS is never consulted where watching is not supported.
func localFS(string) bool { return false }

// lockSentinel has nothing to do: no sentinel is made where watching is
// not supported.
func lockSentinel(string) (*os.File, error) { return nil, nil }

// removeLeftovers has nothing to remove: no sentinel is made here.
func removeLeftovers(string) {}

// renameBarrier is never called where watching is not supported.
func renameBarrier(from, to string) error { return os.Rename(from, to) }
