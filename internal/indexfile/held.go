package indexfile

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
// the size and modification time it had when mapped, and a transaction
// can begin on it; anything else (a commit, another file at the path, a
// grown or cut file, a failed read) closes the handle and opens the file
// afresh, as every read did before. A commit within the clock tick of the
// one before may leave the time as it was; that is still safe: no writer
// runs while the shared lock is held, the map is shared, so the commit is
// seen through it (bbolt reads the meta pages from the map at each
// transaction), and a file of unchanged size has no page beyond the map.
//
// Damage that bbolt meets while beginning a transaction (both meta pages)
// panics with its locks taken: the handle can then neither be used nor
// closed, and a transaction still open on it would hang in its rollback.
// So one read at a time uses the kept handle (a read that finds it in use
// opens the file for itself, as every read did before), the handle is
// probed with a transaction of its own before each use, and a handle whose
// probe or whose read panicked while beginning is abandoned: its flock is
// dropped and its file closed, and its map is left to the process. A
// panic inside a read's own function leaves bbolt's locks released (its
// transaction is rolled back), so that handle is closed.
type held struct {
	files  *sync.Map // the Store's open handles' files (Store.Stat)
	mu     sync.Mutex
	db     *bolt.DB
	file   *os.File    // db's file, for the lock
	info   os.FileInfo // file as mapped
	busy   bool        // a read is using db
	closed bool        // Store.Close: hold nothing from now on
}

// lease is one read's handle: the kept one, or one opened for that read
// alone (own is then its file).
type lease struct {
	db  *bolt.DB
	own *os.File
}

// lockPoll is how long a read waits between tries of a taken lock, as
// bbolt's own open does.
const lockPoll = 50 * time.Millisecond

// acquire returns a handle for one read, under the shared lock; release
// must be called with the read's outcome. Reads waiting for the lock wait
// side by side (the mutex is not held while they sleep).
func (h *held) acquire(s *Store, timeout time.Duration) (lease, error) {
	deadline := time.Now().Add(timeout)
	for {
		h.mu.Lock()
		switch {
		case h.closed || !canHold || h.busy:
			h.mu.Unlock()
			return s.openLease(deadline)
		case h.db == nil:
			h.mu.Unlock()
			return h.install(s, deadline)
		}
		err := tryLockShared(h.file)
		if err == nil {
			if h.current(s.path) && h.probe() {
				h.busy = true
				h.mu.Unlock()
				return lease{db: h.db}, nil
			}
			h.drop() // and open afresh
			h.mu.Unlock()
			continue
		}
		h.mu.Unlock()
		if !errors.Is(err, errWouldBlock) {
			return lease{}, err
		}
		if time.Now().After(deadline) {
			return lease{}, ErrLocked
		}
		time.Sleep(lockPoll)
	}
}

// install opens the file and keeps the handle, unless another read kept
// one meanwhile: this one is then for this read alone.
func (h *held) install(s *Store, deadline time.Time) (lease, error) {
	l, err := s.openLease(deadline)
	if err != nil {
		return lease{}, err
	}
	info, err := l.own.Stat()
	if err != nil {
		s.closeDB(l.db)
		return lease{}, err
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.db != nil || h.closed {
		return l, nil
	}
	h.db, h.file, h.info, h.busy = l.db, l.own, info, true
	return lease{db: l.db}, nil
}

// current tells whether path still names the mapped file, as it was when
// mapped.
func (h *held) current(path string) bool {
	fi, err := os.Lstat(path)
	return err == nil && os.SameFile(fi, h.info) && fi.Size() == h.info.Size() &&
		fi.ModTime().Equal(h.info.ModTime())
}

// probe begins and ends a transaction on the kept handle, abandoning the
// handle when that panics (see held).
func (h *held) probe() bool {
	err := guard(func() error {
		tx, err := h.db.Begin(false)
		if err != nil {
			return err
		}
		return tx.Rollback()
	})
	var d *damaged
	if errors.As(err, &d) {
		h.abandon()
	}
	return err == nil
}

// release ends one read with its outcome; inBegin says the read panicked
// before its function ran (bbolt's locks may be taken). The kept handle's
// shared lock is dropped, or the handle itself when the read failed or the
// Store was closed.
func (h *held) release(s *Store, l lease, err error, inBegin bool) {
	if l.own != nil { // opened for this read alone
		if inBegin {
			s.forget(l.db)
			_ = unlock(l.own)
			_ = l.own.Close()
		} else {
			s.closeDB(l.db)
		}
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if l.db != h.db { // not the kept handle any more: nothing of it is ours
		return
	}
	h.busy = false
	switch {
	case inBegin:
		h.abandon()
	case err != nil || h.closed || unlock(h.file) != nil:
		h.drop()
	}
}

// abandon lets go of a handle bbolt may have left locked (no read is using
// it): its flock is dropped (the map it leaves keeps the file open) and its
// file closed.
func (h *held) abandon() {
	if h.db == nil {
		return
	}
	h.files.Delete(h.db)
	_ = unlock(h.file)
	_ = h.file.Close()
	h.db, h.file, h.info, h.busy = nil, nil, nil, false
}

// drop closes the handle; it must not be in use.
func (h *held) drop() {
	if h.db != nil {
		h.files.Delete(h.db)
		_ = h.db.Close()
	}
	h.db, h.file, h.info, h.busy = nil, nil, nil, false
}

// close stops holding: the handle is closed now, or by the last read in
// flight.
func (h *held) close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.closed = true
	if !h.busy {
		h.drop()
	}
}
