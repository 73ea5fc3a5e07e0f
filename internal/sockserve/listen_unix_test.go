//go:build linux || darwin || freebsd

package sockserve

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// shortDir is a temporary directory with a path short enough for a socket
// (sun_path holds 104 bytes on macOS).
func shortDir(t *testing.T) string {
	t.Helper()
	d, err := os.MkdirTemp("", "ss")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return filepath.Join(d, "index")
}

func TestListenDialAndFrames(t *testing.T) {
	dir := shortDir(t)
	l, err := Listen(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path string
		mode fs.FileMode
	}{{dir, fs.ModeDir | 0o700}, {l.Path(), fs.ModeSocket | 0o600}, {filepath.Join(dir, LockName), 0o600}} {
		st, err := os.Lstat(c.path)
		if err != nil || st.Mode() != c.mode {
			t.Errorf("%s: mode %v (%v), want %v", c.path, st.Mode(), err, c.mode)
		}
	}
	done := make(chan error, 1)
	go func() {
		c, err := l.Accept()
		if err != nil {
			done <- err
			return
		}
		defer c.Close()
		kind, p, err := ReadFrame(c, 16)
		if err == nil {
			err = WriteFrame(c, kind+1, bytes.ToUpper(p))
		}
		done <- err
	}()
	c, err := Dial(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := WriteFrame(c, 'a', []byte("hello")); err != nil {
		t.Fatal(err)
	}
	kind, p, err := ReadFrame(c, 16)
	if err != nil || kind != 'b' || string(p) != "HELLO" {
		t.Errorf("got %q %q %v, want 'b' HELLO", kind, p, err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(l.Path()); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the socket file is still there after Close (%v)", err)
	}
	if _, err := Dial(dir); err == nil {
		t.Error("Dial succeeded after Close")
	}
}

func TestReadFrameBound(t *testing.T) {
	var b bytes.Buffer
	WriteFrame(&b, 'o', make([]byte, 100))
	_, _, err := ReadFrame(&b, 99)
	var tl *FrameTooLong
	if !errors.As(err, &tl) || tl.Len != 100 || tl.Max != 99 {
		t.Errorf("got %v, want a FrameTooLong of 100 > 99", err)
	}
}

// A live server keeps a second one out; a killed server's socket is
// replaced; anything else at the socket's or the lock's name is left as
// it is.
func TestListenOnlyReplacesAStaleSocketOfOurs(t *testing.T) {
	tests := []struct {
		name string
		// prepare leaves something in dir; it returns a cleanup.
		prepare func(t *testing.T, dir string) func()
		wantErr func(error) bool
		// kept is a file that must be unchanged afterwards.
		kept string
	}{
		{"a live server", func(t *testing.T, dir string) func() {
			l, err := Listen(dir)
			if err != nil {
				t.Fatal(err)
			}
			return func() { l.Close() }
		}, isBusy, SocketName},
		{"a server without the lock", func(t *testing.T, dir string) func() {
			ln := rawSocket(t, dir)
			return func() { ln.Close() }
		}, isBusy, SocketName},
		{"a killed server's socket", func(t *testing.T, dir string) func() {
			ln := rawSocket(t, dir)
			ln.SetUnlinkOnClose(false)
			ln.Close()
			return func() {}
		}, nil, ""},
		{"a regular file", func(t *testing.T, dir string) func() {
			os.WriteFile(filepath.Join(dir, SocketName), []byte("mine"), 0o600)
			return func() {}
		}, isForeign, SocketName},
		{"a symbolic link", func(t *testing.T, dir string) func() {
			os.Symlink("/dev/null", filepath.Join(dir, SocketName))
			return func() {}
		}, isForeign, SocketName},
		{"a linked lock", func(t *testing.T, dir string) func() {
			os.Symlink(filepath.Join(dir, "elsewhere"), filepath.Join(dir, LockName))
			return func() {}
		}, isForeign, LockName},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := shortDir(t)
			os.MkdirAll(dir, 0o700)
			defer tt.prepare(t, dir)()
			var before fs.FileInfo
			if tt.kept != "" {
				before, _ = os.Lstat(filepath.Join(dir, tt.kept))
			}
			l, err := Listen(dir)
			if tt.wantErr == nil {
				if err != nil {
					t.Fatalf("Listen: %v, want a listener", err)
				}
				l.Close()
				return
			}
			if err == nil {
				l.Close()
				t.Fatal("Listen succeeded")
			}
			if !tt.wantErr(err) {
				t.Errorf("Listen: %v", err)
			}
			after, _ := os.Lstat(filepath.Join(dir, tt.kept))
			if after == nil || !os.SameFile(before, after) || after.Mode() != before.Mode() {
				t.Errorf("%s was changed", tt.kept)
			}
		})
	}
}

func rawSocket(t *testing.T, dir string) *net.UnixListener {
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: filepath.Join(dir, SocketName), Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	return ln
}

func isBusy(err error) bool { return errors.Is(err, ErrBusy) }
func isForeign(err error) bool {
	var f *ForeignFileError
	return errors.As(err, &f)
}

func TestPeerIsThisUser(t *testing.T) {
	dir := shortDir(t)
	l, err := Listen(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	accepted := make(chan *Conn, 1)
	go func() {
		c, _ := l.Accept()
		accepted <- c
	}()
	c, err := Dial(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s := <-accepted
	if s == nil {
		t.Fatal("Accept failed")
	}
	defer s.Close()
	for _, c := range []*Conn{c, s} {
		if uid, err := c.peerUID(); err != nil || uid != os.Geteuid() {
			t.Errorf("peerUID = %d, %v; want %d", uid, err, os.Geteuid())
		}
	}
	// The end of input reaches the other side.
	if err := c.CloseWrite(); err != nil {
		t.Fatal(err)
	}
	s.SetReadDeadline(time.Now().Add(5 * time.Second))
	if n, err := s.Read(make([]byte, 1)); n != 0 || !errors.Is(err, io.EOF) {
		t.Errorf("read %d, %v after CloseWrite; want EOF", n, err)
	}
}

// Close removes the socket it made, not one that replaced it.
func TestCloseLeavesAnotherSocket(t *testing.T) {
	dir := shortDir(t)
	l, err := Listen(dir)
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(l.Path())
	other := rawSocket(t, dir)
	other.SetUnlinkOnClose(false)
	defer other.Close()
	l.Close()
	if _, err := os.Lstat(l.Path()); err != nil {
		t.Errorf("the other socket was removed: %v", err)
	}
}
