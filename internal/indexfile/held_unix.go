//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package indexfile

import (
	"os"
	"syscall"
)

// canHold: where flock can be dropped and taken again on an open file, and
// a shared map sees other processes' writes.
const canHold = true

// errWouldBlock: the lock is taken.
var errWouldBlock = syscall.EWOULDBLOCK

// tryLockShared takes the shared flock on f again, without waiting.
func tryLockShared(f *os.File) error {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB)
}

// unlock drops f's flock and keeps the file open.
func unlock(f *os.File) error { return syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }

// tryLockExclusive takes the exclusive flock on f, without waiting.
func tryLockExclusive(f *os.File) error {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
}
