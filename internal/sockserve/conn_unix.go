//go:build linux || darwin || freebsd

package sockserve

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// The socket is driven with system calls rather than package net, whose
// import links cgo into memidx (internal/deps TestNoCgo): a non-blocking
// descriptor wrapped in an *os.File is pollable, with deadlines.

// Conn is one connection: an *os.File over the socket.
type Conn struct{ *os.File }

// CloseWrite shuts the sending side: the peer reads the end of input.
func (c *Conn) CloseWrite() error {
	return c.control(func(fd int) error { return unix.Shutdown(fd, unix.SHUT_WR) })
}

// control runs f on the connection's descriptor.
func (c *Conn) control(f func(fd int) error) error {
	raw, err := c.SyscallConn()
	if err != nil {
		return err
	}
	var ferr error
	if err := raw.Control(func(fd uintptr) { ferr = f(int(fd)) }); err != nil {
		return err
	}
	return ferr
}

// peerUID is the user id of the process at the other end of c.
func (c *Conn) peerUID() (int, error) {
	uid := -1
	err := c.control(func(fd int) error {
		var err error
		uid, err = peerUIDOf(fd)
		return err
	})
	return uid, err
}

// newSocket is a non-blocking, close-on-exec Unix stream socket.
func newSocket() (int, error) {
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	if err != nil {
		return -1, err
	}
	unix.CloseOnExec(fd)
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		return -1, err
	}
	return fd, nil
}

// dialPath connects to the socket at path. A non-blocking connect to a
// Unix socket completes at once or fails (EAGAIN: the server's backlog is
// full), so it never waits.
func dialPath(path string) (*Conn, error) {
	fd, err := newSocket()
	if err != nil {
		return nil, err
	}
	if err := unix.Connect(fd, &unix.SockaddrUnix{Name: path}); err != nil {
		unix.Close(fd)
		if errors.Is(err, unix.EINPROGRESS) {
			err = unix.EAGAIN
		}
		return nil, &os.PathError{Op: "connect", Path: path, Err: err}
	}
	return &Conn{os.NewFile(uintptr(fd), path)}, nil
}
