package listing

import "golang.org/x/sys/unix"

// sysFstatat is fstatat's system call number here.
const sysFstatat = unix.SYS_FSTATAT
