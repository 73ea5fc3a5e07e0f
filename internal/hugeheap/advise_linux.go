package hugeheap

import "golang.org/x/sys/unix"

// advise marks b's pages MADV_HUGEPAGE.
func advise(b []byte) bool { return unix.Madvise(b, unix.MADV_HUGEPAGE) == nil }
