package session

import "golang.org/x/sys/unix"

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
