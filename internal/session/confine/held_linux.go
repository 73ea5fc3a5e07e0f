package confine

import (
	"os"
	"sync"

	"golang.org/x/sys/unix"
)

// Held opens files as Open does, holding each session root's directory
// open from the first file opened under it until Close: a run that opens
// every session file of an archive (a rebuild, 100k files) resolved the
// root's path and closed it again for each, two of the eight system calls
// a file took. The root is the directory its path named at that first
// open: a root moved or replaced afterwards is not followed by what a
// Held opens, which is still beneath the root the run listed (a file
// reached through a symlink the kernel refuses, or read again by path,
// is opened as Open opens it). The zero Held is ready to use; it is safe
// for concurrent use, Close included. A nil Held opens as Open.
type Held struct {
	mu     sync.Mutex
	fds    map[string]int
	closed bool
	// inUse is held (read) by each Open while it uses a root's fd, so
	// that Close cannot close it under an openat2.
	inUse sync.RWMutex
}

// Open opens path as Open does, beneath a held root.
func (h *Held) Open(path string) (*os.File, error) {
	if h == nil || noOpenat2.Load() {
		return Open(path)
	}
	return openConfined(path, h.openBeneath)
}

// openBeneath is openBeneath through the held directory of root.
func (h *Held) openBeneath(root, rel, name string, dir bool) (*os.File, error) {
	if _, err := splitRel(rel); err != nil {
		return nil, pathError(name, err)
	}
	h.inUse.RLock()
	defer h.inUse.RUnlock()
	rootfd, ok, err := h.root(root)
	if err != nil {
		return nil, pathError(root, err)
	}
	if !ok {
		return openBeneath(root, rel, name, dir) // closed: as without
	}
	return openat2Below(rootfd, root, rel, name, dir, beneathResolve)
}

// root returns the held directory of root, opening it the first time;
// ok is false once Close was called.
func (h *Held) root(root string) (fd int, ok bool, err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return -1, false, nil
	}
	if fd, ok := h.fds[root]; ok {
		return fd, true, nil
	}
	fd, err = openRoot(root)
	if err != nil {
		return -1, false, err
	}
	if h.fds == nil {
		h.fds = map[string]int{}
	}
	h.fds[root] = fd
	return fd, true, nil
}

// Close lets go of the held roots, once the Opens in flight are done; an
// Open after it opens as Open does.
func (h *Held) Close() {
	if h == nil {
		return
	}
	h.inUse.Lock()
	defer h.inUse.Unlock()
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, fd := range h.fds {
		unix.Close(fd)
	}
	h.fds, h.closed = nil, true
}
