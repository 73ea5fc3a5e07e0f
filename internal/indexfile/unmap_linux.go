package indexfile

import (
	bolt "go.etcd.io/bbolt"
	"golang.org/x/sys/unix"
)

// dropMapped drops the first size bytes of db's mapping from this
// process's page tables (the pages stay in the page cache; a later read
// maps them again): a compaction reads the whole file once, and would
// otherwise keep all of it counted in its RSS.
func dropMapped(db *bolt.DB, size int64) {
	if size > 0 {
		_, _, _ = unix.Syscall(unix.SYS_MADVISE, db.Info().Data, uintptr(size), unix.MADV_DONTNEED)
	}
}

// DropMapped drops what tx has read of its file from this process's page
// tables (see dropMapped): a long write transaction that reads much of the
// file (every record, a merge's segments) would otherwise keep all of it
// counted in the process's RSS until it ends. What tx reads afterwards is
// mapped again from the page cache.
func DropMapped(tx *bolt.Tx) { dropMapped(tx.DB(), tx.Size()) }
