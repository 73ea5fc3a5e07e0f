//go:build linux || darwin || freebsd

package sockserve

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"

	"golang.org/x/sys/unix"
)

// Listener is a server's socket in an index directory.
type Listener struct {
	f    *os.File // the listening socket
	made os.FileInfo
	lock *os.File
	path string
}

// Listen makes the index directory dir (0700) when it is missing, takes
// the lock beside the socket and listens on <dir>/memidx.sock, mode 0600.
// It answers ErrBusy when another server holds the lock (or answers on
// the socket), *ForeignFileError when a file that is not this user's
// socket or lock is in the way.
func Listen(dir string) (*Listener, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	lock, err := takeLock(filepath.Join(dir, LockName))
	if err != nil {
		return nil, err
	}
	path := filepath.Join(dir, SocketName)
	l, err := listenAt(path)
	if err != nil {
		lock.Close() // releases the flock
		return nil, err
	}
	l.lock = lock
	return l, nil
}

// takeLock opens (or creates, 0600) the lock file and locks it
// exclusively without waiting.
func takeLock(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
	if errors.Is(err, syscall.ELOOP) {
		return nil, &ForeignFileError{Path: path}
	}
	if err != nil {
		return nil, err
	}
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() || !ours(st) {
		f.Close()
		return nil, &ForeignFileError{Path: path}
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			return nil, ErrBusy
		}
		return nil, err
	}
	return f, nil
}

// listenAt listens on path, replacing a stale socket of this user that a
// killed server left (the caller holds the lock, and nobody answers on
// it).
func listenAt(path string) (*Listener, error) {
	st, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, err
	case st.Mode()&fs.ModeSocket == 0 || !ours(st):
		return nil, &ForeignFileError{Path: path}
	default:
		if c, err := dialPath(path); err == nil {
			c.Close()
			return nil, ErrBusy
		}
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
	}
	fd, err := newSocket()
	if err != nil {
		return nil, err
	}
	if err := bindListen(fd, path); err != nil {
		unix.Close(fd)
		return nil, &os.PathError{Op: "listen", Path: path, Err: err}
	}
	l := &Listener{f: os.NewFile(uintptr(fd), path), path: path}
	if l.made, err = os.Lstat(path); err != nil {
		l.f.Close()
		return nil, err
	}
	return l, nil
}

// bindListen binds fd to path, mode 0600, and listens. The directory is
// 0700 already and peers are checked; 0600 says the same to anyone
// looking.
func bindListen(fd int, path string) error {
	if err := unix.Bind(fd, &unix.SockaddrUnix{Name: path}); err != nil {
		return err
	}
	if err := os.Chmod(path, 0o600); err != nil {
		os.Remove(path)
		return err
	}
	if err := unix.Listen(fd, listenBacklog); err != nil {
		os.Remove(path)
		return err
	}
	return nil
}

// listenBacklog is the connections the kernel queues before Accept.
const listenBacklog = 64

func ours(st fs.FileInfo) bool {
	s, ok := st.Sys().(*syscall.Stat_t)
	return ok && int(s.Uid) == os.Geteuid()
}

// Path is the socket's path.
func (l *Listener) Path() string { return l.path }

// Accept waits for the next connection of a peer of this user; peers of
// other users are closed unanswered. After Close it fails.
func (l *Listener) Accept() (*Conn, error) {
	raw, err := l.f.SyscallConn()
	if err != nil {
		return nil, err
	}
	for {
		nfd, aerr := -1, error(nil)
		err := raw.Read(func(fd uintptr) bool {
			nfd, _, aerr = unix.Accept(int(fd))
			return !errors.Is(aerr, unix.EAGAIN)
		})
		if err == nil {
			err = aerr
		}
		if errors.Is(err, unix.ECONNABORTED) || errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return nil, err
		}
		c, err := adopt(nfd)
		if err != nil {
			return nil, err
		}
		if uid, err := c.peerUID(); err == nil && uid == os.Geteuid() {
			return c, nil
		}
		c.Close()
	}
}

// adopt makes an accepted descriptor a pollable Conn.
func adopt(fd int) (*Conn, error) {
	unix.CloseOnExec(fd)
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		return nil, err
	}
	return &Conn{os.NewFile(uintptr(fd), "memidx.sock peer")}, nil
}

// Close stops listening, removes the socket file it made (not one that
// replaced it since) and releases the lock (the lock file stays:
// removing it would race with the next server).
func (l *Listener) Close() error {
	err := l.f.Close()
	if st, serr := os.Lstat(l.path); serr == nil && os.SameFile(st, l.made) {
		err = errors.Join(err, os.Remove(l.path))
	}
	return errors.Join(err, l.lock.Close())
}

// Dial connects to the server of index directory dir and checks that it
// runs as this user. A connect to a Unix socket does not wait.
func Dial(dir string) (*Conn, error) {
	c, err := dialPath(filepath.Join(dir, SocketName))
	if err != nil {
		return nil, err
	}
	if uid, err := c.peerUID(); err != nil || uid != os.Geteuid() {
		c.Close()
		return nil, errors.New("sockserve: the socket's server runs as another user")
	}
	return c, nil
}
