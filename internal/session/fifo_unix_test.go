//go:build unix

package session_test

import "syscall"

func syscallMkfifo(p string) error { return syscall.Mkfifo(p, 0o600) }
