//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package bucket

import (
	"errors"
	"os"
	"syscall"
	"time"
)

// canHold: where flock can be dropped and taken again on an open file, and
// a shared map sees other processes' writes.
const canHold = true

// lockShared takes the shared flock on f again, waiting up to timeout as
// bbolt's own open does.
func lockShared(f *os.File, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB)
		if err == nil {
			return nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			return err
		}
		if time.Now().After(deadline) {
			return ErrLocked
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// unlock drops f's flock and keeps the file open.
func unlock(f *os.File) error { return syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }
