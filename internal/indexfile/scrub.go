package indexfile

import (
	"os"
	"slices"

	bolt "go.etcd.io/bbolt"
)

// scrub overwrites every free page of db's file with zeros, so that what
// earlier transactions deleted is gone from the file's bytes, not only
// from its tree.
//
// Why this is safe: it runs after the deleting transaction committed (and
// was synced), inside a write transaction, so bbolt's writer lock keeps
// every allocation out meanwhile; the Store's mutex keeps this process's
// readers out, and bbolt's exclusive flock every other process. A free page
// is then part of no tree the newest meta page reaches, which is the one
// bbolt opens the file with; the older meta page may still reach pages the
// last transaction freed, but bbolt itself reuses those pages in its next
// transaction in the same way. The transaction is rolled back: the scrub
// changes no page bbolt uses. With Options.NoSync the last commit may not
// be on disk yet, so a crash may leave the older meta page pointing at
// zeroed pages: a damaged index, detected and rebuilt, which NoSync
// already risks (bbolt reuses the same pages without a sync).
//
// Why not bolt.Compact into a new file: it rewrites the whole index (160
// MB for a large archive) for each deletion, and replacing the file under
// other processes that hold it open would need a protocol of its own. This
// writes only the free pages.
//
// It writes through the file bbolt opened and locked, never the path
// again, which another process may have pointed elsewhere meanwhile.
//
// The free pages are read from the freelist page (O(free pages), not a
// walk of the whole file), and each must be one that bbolt itself calls
// free: on any disagreement nothing is written.
func (s *Store) scrub(db *bolt.DB, f *os.File) error {
	if f == nil {
		return errLayout // a platform where bbolt hides its file
	}
	tx, err := db.Begin(true)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	m, ok := currentMeta(f)
	if !ok || m.txid+1 != uint64(tx.ID()) || int(m.pageSize) != db.Info().PageSize {
		return errLayout
	}
	ids, err := freelistIDs(f, m)
	if err != nil {
		return err
	}
	for _, id := range ids {
		if info, err := tx.Page(int(id)); err != nil || info == nil || info.Type != "free" {
			return errLayout
		}
	}
	if err := zeroPages(f, ids, int64(m.pageSize)); err != nil {
		return err
	}
	if s.opt.NoSync {
		return nil
	}
	return f.Sync()
}

// zeroPages writes zeros over the pages ids, a run of adjacent pages at a
// time.
func zeroPages(f *os.File, ids []uint64, pageSize int64) error {
	slices.Sort(ids)
	zeros := make([]byte, 64*pageSize)
	for i := 0; i < len(ids); {
		j := i + 1
		for j < len(ids) && ids[j] == ids[j-1]+1 && j-i < 64 {
			j++
		}
		if _, err := f.WriteAt(zeros[:int64(j-i)*pageSize], int64(ids[i])*pageSize); err != nil {
			return err
		}
		i = j
	}
	return nil
}
