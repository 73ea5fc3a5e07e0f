//go:build !(linux || darwin || freebsd)

package sockserve

import "os"

// Listener is a server's socket; there is none on this platform.
type Listener struct{}

// Conn is one connection; there is none on this platform.
type Conn struct{ *os.File }

// CloseWrite answers ErrUnsupported.
func (c *Conn) CloseWrite() error { return ErrUnsupported }

// Listen answers ErrUnsupported: no socket here.
func Listen(dir string) (*Listener, error) { return nil, ErrUnsupported }

// Path is "".
func (l *Listener) Path() string { return "" }

// Accept answers ErrUnsupported.
func (l *Listener) Accept() (*Conn, error) { return nil, ErrUnsupported }

// Close does nothing.
func (l *Listener) Close() error { return nil }

// Dial answers ErrUnsupported: the command answers itself.
func Dial(dir string) (*Conn, error) { return nil, ErrUnsupported }
