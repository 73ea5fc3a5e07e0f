//go:build darwin || freebsd

package confine

import (
	"os"

	"golang.org/x/sys/unix"
)

// searchFlags open a directory to resolve names in.
const searchFlags = unix.O_RDONLY | unix.O_DIRECTORY | unix.O_CLOEXEC

// openBeneath opens rel below root. There is no openat2 here: no symlink
// below the root is followed (O_NOFOLLOW on every component); the caller
// resolves one it meets and opens its target by openStrict.
func openBeneath(root, rel, name string, dir bool) (*os.File, error) {
	return openWalking(root, rel, name, dir)
}

// openStrict opens rel below root following no symlink.
func openStrict(root, rel, name string, dir bool) (*os.File, error) {
	return openWalking(root, rel, name, dir)
}
