//go:build darwin || freebsd

package sockserve

import "golang.org/x/sys/unix"

// peerUIDOf reads the peer's credentials (LOCAL_PEERCRED, as getpeereid
// does).
func peerUIDOf(fd int) (int, error) {
	cred, err := unix.GetsockoptXucred(fd, unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
	if err != nil {
		return -1, err
	}
	return int(cred.Uid), nil
}
