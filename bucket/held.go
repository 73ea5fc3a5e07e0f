package bucket

import (
	"errors"
	"os"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"
)

// held is the read-only handle a Store keeps between reads, so that a
// long-lived host does not open, map, fault in and unmap the index file on
// every call (in a profile of a watched recall, that was a third of it).
//
// Between reads it holds no lock, so writers in this process and in others
// go ahead exactly as if it were closed. A read takes the shared lock again
// and reuses the handle only when the path still names the open file with
// the size and modification time it had when mapped; anything else (a
// commit, another file at the path, a grown or cut file, a failed read)
// closes the handle and opens the file afresh, as every read did before.
// A commit within the clock tick of the one before may leave the time as
// it was; that is still safe: no writer runs while the shared lock is held,
// the map is shared, so the commit is seen through it (bbolt reads the meta
// pages from the map at each transaction), and a file of unchanged size has
// no page beyond the map.
//
// A read that panicked (damage bbolt meets while starting a transaction
// can leave the handle's locks taken) abandons the handle: its file is
// closed, which drops the flock, and its map is left to the process.
type held struct {
	mu      sync.Mutex
	db      *bolt.DB
	file    *os.File    // db's file, for the lock
	info    os.FileInfo // file as mapped
	users   int         // reads in flight on db
	broken  bool        // a read on db failed: close it when the last ends
	abandon bool        // a read on db panicked: close only its file
	closed  bool        // Store.Close: hold nothing from now on
}

// acquire returns a handle for one read, under the shared lock. release
// must be called with the read's outcome.
func (h *held) acquire(s *Store, timeout time.Duration) (*bolt.DB, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed || !canHold {
		db, _, err := s.open(true, timeout)
		return db, err
	}
	if h.users > 0 { // the lock is held already
		h.users++
		return h.db, nil
	}
	if h.db != nil {
		if err := lockShared(h.file, timeout); err != nil {
			return nil, err
		}
		if h.current(s.path) {
			h.users = 1
			return h.db, nil
		}
		h.drop()
	}
	db, f, err := s.open(true, timeout)
	if err != nil {
		return nil, err
	}
	info, err := f.Stat()
	if err != nil {
		_ = db.Close()
		return nil, err
	}
	h.db, h.file, h.info, h.users, h.broken = db, f, info, 1, false
	return db, nil
}

// current tells whether path still names the mapped file, as it was when
// mapped.
func (h *held) current(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && os.SameFile(fi, h.info) && fi.Size() == h.info.Size() &&
		fi.ModTime().Equal(h.info.ModTime())
}

// release ends one read on db with its outcome. The last read out drops
// the shared lock, or the handle itself when a read failed or the Store
// was closed.
func (h *held) release(db *bolt.DB, err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if db != h.db {
		_ = db.Close() // opened for this read alone, just checked by Open
		return
	}
	var d *damaged
	if errors.As(err, &d) {
		h.abandon = true
	}
	h.broken = h.broken || err != nil
	if h.users--; h.users > 0 {
		return
	}
	if h.broken || h.closed || unlock(h.file) != nil {
		h.drop()
	}
}

// drop closes the handle; it must not be in use.
func (h *held) drop() {
	switch {
	case h.abandon:
		_ = h.file.Close()
	case h.db != nil:
		_ = h.db.Close()
	}
	h.db, h.file, h.info, h.users, h.broken, h.abandon = nil, nil, nil, 0, false, false
}

// close stops holding: the handle is closed now, or by the last read in
// flight.
func (h *held) close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.closed = true
	if h.users == 0 {
		h.drop()
	}
}
