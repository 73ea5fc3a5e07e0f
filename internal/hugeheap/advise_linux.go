package hugeheap

import (
	"bytes"
	"os"

	"golang.org/x/sys/unix"
)

// supported reports whether huge pages can be asked for: a 64-bit
// process (a 32-bit one has no address space to spare for the block)
// whose kernel's THP mode is not "never".
func supported() bool {
	if ^uint(0)>>32 == 0 {
		return false
	}
	mode, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	return err == nil && !bytes.Contains(mode, []byte("[never]"))
}

// advise marks b's pages MADV_HUGEPAGE.
func advise(b []byte) bool { return unix.Madvise(b, unix.MADV_HUGEPAGE) == nil }
