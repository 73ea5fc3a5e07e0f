//go:build !(linux || darwin || freebsd)

package sockserve

import (
	"net"
	"time"
)

// Listener is a server's socket; there is none on this platform.
type Listener struct{}

// Listen answers ErrUnsupported: no socket here.
func Listen(dir string) (*Listener, error) { return nil, ErrUnsupported }

// Path is "".
func (l *Listener) Path() string { return "" }

// Accept answers ErrUnsupported.
func (l *Listener) Accept() (*net.UnixConn, error) { return nil, ErrUnsupported }

// Close does nothing.
func (l *Listener) Close() error { return nil }

// Dial answers ErrUnsupported: the command answers itself.
func Dial(dir string, timeout time.Duration) (*net.UnixConn, error) { return nil, ErrUnsupported }
