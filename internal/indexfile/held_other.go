//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package indexfile

import (
	"errors"
	"os"
)

// canHold is false here: every read opens the file afresh.
const canHold = false

var errWouldBlock = errors.ErrUnsupported

func tryLockShared(*os.File) error { return errors.ErrUnsupported }

func unlock(*os.File) error { return errors.ErrUnsupported }

func tryLockExclusive(*os.File) error { return errors.ErrUnsupported }
