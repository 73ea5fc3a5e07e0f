//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package bucket

import (
	"errors"
	"os"
	"time"
)

// canHold is false here: every read opens the file afresh.
const canHold = false

func lockShared(*os.File, time.Duration) error { return errors.ErrUnsupported }

func unlock(*os.File) error { return errors.ErrUnsupported }
