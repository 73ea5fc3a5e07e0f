package listing

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/memidx/memidx/internal/session/confine"
)

// localFS reports whether dir lies on a file system whose every write
// raises an inotify event: not a network or FUSE one, whose other
// writers (another host, a FUSE daemon) the kernel does not see.
func localFS(dir string) bool {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return false
	}
	switch uint32(st.Type) {
	case 0x6969, // NFS
		0x517B,     // SMB
		0xFF534D42, // CIFS
		0xFE534D42, // SMB2
		0x65735546, // FUSE
		0x01021997, // 9P
		0x00C36400, // Ceph
		0x5346414F, // AFS
		0x73757245, // Coda
		0x47504653: // GPFS
		return false
	}
	return true
}

// sentinelLockName is the lock file of a sentinel directory. Its owner
// holds an exclusive flock on it for as long as it uses the directory; a
// flock dies with its process (and a later process with the same pid does
// not hold it), so a directory whose lock can be taken was left behind by
// a process that is gone.
const sentinelLockName = "lock"

// lockSentinel creates and locks the lock file of the sentinel directory
// dir. It is named sentinelLockName only once locked: a sweep never takes
// the lock of a directory still being made.
func lockSentinel(dir string) (*os.File, error) {
	tmp := filepath.Join(dir, sentinelLockName+".new")
	f, err := os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, err
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		f.Close()
		return nil, err
	}
	if err := os.Rename(tmp, filepath.Join(dir, sentinelLockName)); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// removeLeftovers removes the sentinel directories in tmp that memidx
// processes of this user left behind when they were killed: a directory
// of this user named sentinelPrefix…, holding a lock file of this user
// that no process holds, and nothing but that lock and barrier files.
// Nothing is followed through a symlink and anything else is left alone.
func removeLeftovers(tmp string) {
	t, err := os.Open(tmp)
	if err != nil {
		return
	}
	defer t.Close()
	names, _ := t.Readdirnames(-1)
	for _, name := range names {
		if strings.HasPrefix(name, sentinelPrefix) {
			removeLeftover(int(t.Fd()), name)
		}
	}
}

// removeLeftover removes the sentinel directory name in the directory
// tmpfd when it is a provable leftover (see removeLeftovers).
func removeLeftover(tmpfd int, name string) {
	uid := uint32(os.Geteuid())
	dfd, err := confine.RetryEINTR(func() (int, error) {
		return unix.Openat(tmpfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	})
	if err != nil {
		return // a symlink, no directory, or gone
	}
	dir := os.NewFile(uintptr(dfd), name)
	defer dir.Close()
	if !ownedBy(dfd, "", uid, unix.S_IFDIR) || !ownedBy(dfd, sentinelLockName, uid, unix.S_IFREG) {
		return
	}
	lfd, err := confine.RetryEINTR(func() (int, error) {
		return unix.Openat(dfd, sentinelLockName, unix.O_RDWR|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	})
	if err != nil {
		return
	}
	defer unix.Close(lfd)
	if unix.Flock(lfd, unix.LOCK_EX|unix.LOCK_NB) != nil {
		return // its owner is alive
	}
	entries, err := dir.Readdirnames(-1)
	if err != nil {
		return
	}
	for _, e := range entries {
		if e != sentinelLockName && !isBarrierName(e) || !ownedBy(dfd, e, uid, unix.S_IFREG) {
			return // not only what a sentinel holds
		}
	}
	for _, e := range entries {
		if unix.Unlinkat(dfd, e, 0) != nil {
			return
		}
	}
	// Fails, leaving it, if anything appeared in the meantime.
	unix.Unlinkat(tmpfd, name, unix.AT_REMOVEDIR)
}

// ownedBy reports whether name in the directory dfd ("" for dfd itself),
// not followed if a symlink, has file type typ and belongs to uid.
func ownedBy(dfd int, name string, uid, typ uint32) bool {
	var st unix.Stat_t
	var err error
	if name == "" {
		err = unix.Fstat(dfd, &st)
	} else {
		err = unix.Fstatat(dfd, name, &st, unix.AT_SYMLINK_NOFOLLOW)
	}
	return err == nil && st.Uid == uid && st.Mode&unix.S_IFMT == typ
}

// isBarrierName reports a barrier file's name: b and a decimal number.
func isBarrierName(name string) bool {
	if len(name) < 2 || name[0] != 'b' {
		return false
	}
	for i := 1; i < len(name); i++ {
		if name[i] < '0' || name[i] > '9' {
			return false
		}
	}
	return true
}

// renameBarrier moves the sentinel's barrier file to its next name with
// rename(2) alone: os.Rename first lstats the new name (to refuse a
// directory there), one more system call on every watched call for a name
// only this process makes.
func renameBarrier(from, to string) error { return syscall.Rename(from, to) }
