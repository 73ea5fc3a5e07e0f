//go:build !darwin && !windows

package locate

import "os"

// systemHome is the home directory the password file gives the user when
// $HOME is unset (see passwdHome: os/user would link cgo here).
func systemHome() string { return passwdHome("/etc/passwd", os.Getuid()) }
