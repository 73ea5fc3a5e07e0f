package indexfile

import (
	bolt "go.etcd.io/bbolt"
	"golang.org/x/sys/unix"
)

// dropMapped drops the first size bytes of db's mapping from this
// process's page tables (the pages stay in the page cache; a later read
// maps them again): a compaction reads the whole file once, and would
// otherwise keep all of it counted in its RSS. Never past the map (see
// Mapped): a file cut short under a reader left a transaction's size
// past it, and the advice zeroed the Go runtime's memory there ("bad
// sweepgen in refill" in the serve soak with a truncating neighbour).
func dropMapped(db *bolt.DB, size int64) {
	if size = min(size, mapLen(db)); size > 0 {
		dontNeed(db.Info().Data, uintptr(size))
	}
}

// dontNeed gives back the n bytes of pages at addr, which must lie in a
// file's map (MADV_DONTNEED: they stay in the page cache).
func dontNeed(addr, n uintptr) {
	_, _, _ = unix.Syscall(unix.SYS_MADVISE, addr, n, unix.MADV_DONTNEED)
}
