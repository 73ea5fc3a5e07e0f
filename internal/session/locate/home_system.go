//go:build darwin || windows

package locate

import "os/user"

// systemHome is the home directory the system gives the user when $HOME
// is unset. On darwin and Windows os/user needs no cgo (it calls
// libSystem's getpwuid_r, which sees the Open Directory accounts that
// /etc/passwd on macOS does not list, or the token's profile directory on
// Windows, where $HOME is usually unset), so it is asked, as before.
func systemHome() string {
	u, err := user.Current()
	if err != nil {
		return ""
	}
	return u.HomeDir
}
