//go:build !unix

package indexfile

import "os"

// noFollow: no such open flag here; openFile's check before the open is
// what there is (see open.go).
const noFollow = 0

// ownedByUs is true where files have no owner mode bits describe (see
// owner_unix.go): the directory's ACLs are what protects the file there.
func ownedByUs(os.FileInfo) bool { return true }
