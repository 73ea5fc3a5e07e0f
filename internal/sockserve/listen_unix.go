//go:build linux || darwin || freebsd

package sockserve

import (
	"errors"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// staleProbe bounds the connect that tells a stale socket file from a
// server that listens without holding the lock (an older memidx).
const staleProbe = 100 * time.Millisecond

// Listener is a server's socket in an index directory.
type Listener struct {
	ln   *net.UnixListener
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
	ln, err := listenAt(path)
	if err != nil {
		lock.Close() // releases the flock
		return nil, err
	}
	return &Listener{ln: ln, lock: lock, path: path}, nil
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
func listenAt(path string) (*net.UnixListener, error) {
	st, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, err
	case st.Mode()&fs.ModeSocket == 0 || !ours(st):
		return nil, &ForeignFileError{Path: path}
	default:
		if c, err := net.DialTimeout("unix", path, staleProbe); err == nil {
			c.Close()
			return nil, ErrBusy
		}
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
	}
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		return nil, err
	}
	// The directory is 0700 already and peers are checked; 0600 says the
	// same to anyone looking.
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, err
	}
	return ln, nil
}

func ours(st fs.FileInfo) bool {
	s, ok := st.Sys().(*syscall.Stat_t)
	return ok && int(s.Uid) == os.Geteuid()
}

// Path is the socket's path.
func (l *Listener) Path() string { return l.path }

// Accept waits for the next connection of a peer of this user; peers of
// other users are closed unanswered.
func (l *Listener) Accept() (*net.UnixConn, error) {
	for {
		c, err := l.ln.AcceptUnix()
		if err != nil {
			return nil, err
		}
		if uid, err := peerUID(c); err == nil && uid == os.Geteuid() {
			return c, nil
		}
		c.Close()
	}
}

// Close stops listening, removes the socket file and releases the lock
// (the lock file stays: removing it would race with the next server).
func (l *Listener) Close() error {
	err := l.ln.Close() // unlinks the socket it created
	return errors.Join(err, l.lock.Close())
}

// Dial connects to the server of index directory dir within timeout and
// checks that it runs as this user.
func Dial(dir string, timeout time.Duration) (*net.UnixConn, error) {
	c, err := net.DialTimeout("unix", filepath.Join(dir, SocketName), timeout)
	if err != nil {
		return nil, err
	}
	uc := c.(*net.UnixConn)
	if uid, err := peerUID(uc); err != nil || uid != os.Geteuid() {
		uc.Close()
		return nil, errors.New("sockserve: the socket's server runs as another user")
	}
	return uc, nil
}

// peerUID is the user id of the process at the other end of c.
func peerUID(c *net.UnixConn) (int, error) {
	raw, err := c.SyscallConn()
	if err != nil {
		return -1, err
	}
	uid, uerr := -1, error(nil)
	if err := raw.Control(func(fd uintptr) { uid, uerr = peerUIDOf(int(fd)) }); err != nil {
		return -1, err
	}
	return uid, uerr
}
