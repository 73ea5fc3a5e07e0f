package listing

import (
	"cmp"
	"errors"
	"github.com/memidx/memidx/internal/session/locate"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fsnotify/fsnotify"
)

// ListCache keeps the listings of the directories a long-lived process
// has listed, and watches those directories (one inotify watch each: the
// sessions root, each bucket directory, each artifacts directory below a
// session, the explicit session dir), so that a listing re-reads only the
// directories that changed since the last one. A Resolver with a
// ListCache (Resolver.Watch) answers exactly as one without: same refs,
// same order, same errors and reasons.
//
// # Freshness
//
// A write that completed before a Resolve began is seen by it. The kernel
// queues an inotify event inside the system call that changes a watched
// directory or a file in it, before that call returns; one inotify
// instance has one queue, read in order. So at the start of each Resolve
// the cache renames a sentinel file, in a private directory watched by the
// same inotify instance, to a new name (b<N>), and waits until the event
// reader has delivered the Create event of b<N>: every event queued before
// it (every write that returned before the Resolve began) has then been
// applied, and the directories it named will be read again. fsnotify
// delivers a queue overflow on its error channel from the same goroutine,
// blocking, before the events read after it, so an overflow is seen before
// the sentinel too.
//
// A listing of a directory is kept only when its watch was added before the
// directory was read (a change after the read then raises an event), no
// event named the directory while it was read, and it met no error,
// symlink or depth limit. A Write event (a file's content changed, its
// directory's entries did not: a session growing) keeps the listing and
// notes the file; the next listing stats those files again in a copy of
// the kept one (View.withWrites), and reads the directory when a noted
// file is not among its files. Whenever the cache cannot prove freshness, the
// listing is a full one, exactly as ListSessions lists:
//
//   - the sentinel is not seen within SyncTimeout (its event was lost to an
//     overflow, or the reader is stuck);
//   - a queue overflow or any watcher error (every kept listing is
//     dropped);
//   - a watched directory is removed or renamed (the watcher is replaced:
//     a watch follows the inode, not the path);
//   - a watch cannot be added (max_user_watches, a vanished directory, a
//     network or FUSE file system whose remote writers raise no event):
//     that directory is read on every call;
//   - the platform has no usable watcher: only Linux's inotify reports a
//     write to a file through a watch on its directory (kqueue needs a
//     descriptor per file), so elsewhere a ListCache is inert.
//
// What inotify does not report is not seen until the directory changes in
// a way it does: writes through a shared mapping (mmap), writes through a
// hard link in an unwatched directory, changes to a directory mounted over
// a listed one. OMP does none of these.
type ListCache struct {
	// SyncTimeout bounds the wait for the sentinel; 0 means 2s.
	SyncTimeout time.Duration

	mu       sync.Mutex
	disabled bool
	closed   bool
	w        *fsnotify.Watcher
	gen      uint64 // watcher generation
	needNew  bool   // replace the watcher at the next sync
	sentinel string // private directory of the barrier file
	// sentinelLock holds the sentinel's lock while the directory is in
	// use (nil where there are no locks).
	sentinelLock *os.File
	seq          uint64 // last barrier written
	seen         uint64 // last barrier delivered
	wake         chan struct{}
	// epoch counts events; dirtyAt is the epoch of the last event that
	// named each directory, drops counts the drops of every listing.
	epoch   uint64
	dirtyAt map[string]uint64
	drops   uint64
	watched map[string]bool
	parts   map[string]*part
	owner   map[string][]*part
	// written are the files of kept parts written to since they were
	// listed (a Write event: the entries did not change, only those
	// files' stats), stat-ed again by the next listing (View.withWrites).
	written  map[*part]map[string]bool
	rootsKey string
	inject   chan error   // tests: an error as if from the watcher
	testDrop atomic.Int32 // tests: lose events (1: but the sentinel's, 2: all)
	stats    WatchStats
	timeouts int // barriers not seen in a row
	memo     listMemo
}

// listMemo is the last merged listing that was made of kept parts only:
// the same parts, in the same order, merge to the same refs, so a quiet
// call gets them again instead of merging and sorting every file anew.
type listMemo struct {
	key   string
	parts []*part
	refs  []Ref
}

// maxTimeouts is how many barriers in a row may go unseen before the
// cache gives up watching: each costs a call SyncTimeout.
const maxTimeouts = 3

// WatchStats count what a ListCache did.
type WatchStats struct {
	Syncs       int // barriers passed
	Fallbacks   int // listings that could not use the cache
	Reused      int // directory listings taken from the cache
	Listed      int // directory listings read
	Overflows   int // watcher errors and queue overflows
	Restarts    int // watchers created
	WatchFailed int // watches that could not be added
	Restated    int // files of kept listings stat-ed again after a write
	Patched     int // merged listings patched after writes, not merged again
}

// part is the kept listing of one directory: the refs of a bucket or flat
// directory and its artifacts directories, or the bucket directories of a
// root.
type part struct {
	key     string
	refs    []Ref
	buckets []bucketDir
	dirs    []string
	// seq names the part (newPart); from is the seq of the part this one
	// was made from by withWrites, written the indexes of the refs it
	// stat-ed again and old their stats in that part (patchMemo). Not a
	// pointer to that part: a session growing call after call would chain
	// every copy of its directory's refs to the next.
	seq, from uint64
	written   []int
	old       []*FileStat
	// id is the directory's identity when it was listed: a rename of an
	// ancestor (or a mount over it) raises no event in a watched
	// directory, so a kept listing is used only while its path still
	// names the same directory.
	id FileStat
	// seenUnder is the root's kept part under which the path of this
	// bucket's part was last seen to name it (sameDir). While that root
	// part is kept, no entry of the root was created, removed or renamed
	// (each raises an event that drops it), so the bucket's path names
	// the same directory still and need not be stat-ed again: a quiet
	// global recall stats the root alone, not every bucket.
	seenUnder atomic.Pointer[part]
}

// watchSupported reports whether the platform's watcher sees writes to
// files through a watch on their directory.
var watchSupported = runtime.GOOS == "linux" || runtime.GOOS == "android"

// NewListCache returns a ListCache. It starts no watcher until the first
// listing; on a platform without a usable watcher it is inert (every
// listing is a full one). Close releases it.
func NewListCache() *ListCache {
	c := &ListCache{disabled: !watchSupported, wake: make(chan struct{}), needNew: true}
	c.resetLocked()
	return c
}

// Close stops the watcher and removes the sentinel directory. Listings go
// on, as full ones.
func (c *ListCache) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return nil
	}
	c.closed = true
	c.stopLocked()
	c.dropSentinelLocked()
	return nil
}

// Stats returns the counters.
func (c *ListCache) Stats() WatchStats {
	if c == nil {
		return WatchStats{}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stats
}

func (c *ListCache) resetLocked() {
	c.drops++
	c.parts = map[string]*part{}
	c.owner = map[string][]*part{}
	c.written = map[*part]map[string]bool{}
	c.dirtyAt = map[string]uint64{}
	c.memo = listMemo{}
}

func (c *ListCache) stopLocked() {
	if c.w != nil {
		c.w.Close() // its reader returns: no send waits on c.mu
		c.w = nil
	}
	c.gen++
	c.watched = map[string]bool{}
	c.resetLocked()
}

// startLocked replaces the watcher and watches the sentinel directory.
func (c *ListCache) startLocked() bool {
	c.stopLocked()
	c.needNew = true
	if c.sentinel != "" {
		if st, err := os.Stat(filepath.Join(c.sentinel, c.barrierName(c.seq))); err != nil || !st.Mode().IsRegular() {
			c.dropSentinelLocked()
		}
	}
	if c.sentinel == "" {
		d, lock, err := newSentinel()
		if err != nil {
			return false
		}
		c.sentinel, c.sentinelLock = d, lock
		if !localFS(d) {
			c.dropSentinelLocked()
			c.disabled = true // its events may never come
			return false
		}
		if err := os.WriteFile(filepath.Join(d, c.barrierName(c.seq)), nil, 0o600); err != nil {
			c.dropSentinelLocked()
			return false
		}
	}
	w, err := fsnotify.NewBufferedWatcher(256)
	if err != nil {
		return false
	}
	if err := w.Add(c.sentinel); err != nil {
		w.Close()
		return false
	}
	c.w = w
	c.watched[c.sentinel] = true
	c.needNew = false
	c.stats.Restarts++
	go c.consume(w, c.gen, c.inject)
	return true
}

// sentinelPrefix starts the name of every sentinel directory in the temp
// dir.
const sentinelPrefix = "memidx-watch-"

// newSentinel makes a sentinel directory, locked for as long as this
// process holds lock (see lockSentinel), after removing the ones that
// processes killed before they could remove theirs left behind.
func newSentinel() (dir string, lock *os.File, err error) {
	tmp := os.TempDir()
	removeLeftovers(tmp)
	dir, err = os.MkdirTemp(tmp, sentinelPrefix)
	if err != nil {
		return "", nil, err
	}
	lock, err = lockSentinel(dir)
	if err != nil {
		os.RemoveAll(dir)
		return "", nil, err
	}
	return dir, lock, nil
}

// dropSentinelLocked removes the sentinel directory, then lets its lock
// go: a sweep that takes the lock finds no directory.
func (c *ListCache) dropSentinelLocked() {
	if c.sentinel != "" {
		os.RemoveAll(c.sentinel)
		c.sentinel = ""
	}
	if c.sentinelLock != nil {
		c.sentinelLock.Close()
		c.sentinelLock = nil
	}
}

func (c *ListCache) sentinelDir() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sentinel
}

func (c *ListCache) barrierName(n uint64) string { return "b" + strconv.FormatUint(n, 10) }

// consume applies the events and errors of one watcher generation.
func (c *ListCache) consume(w *fsnotify.Watcher, gen uint64, inject chan error) {
	for {
		select {
		case ev, ok := <-w.Events:
			if !ok {
				return
			}
			if d := c.testDrop.Load(); d == 2 || d == 1 && filepath.Dir(ev.Name) != c.sentinelDir() {
				continue
			}
			c.event(gen, ev)
		case err, ok := <-w.Errors:
			if !ok {
				return
			}
			c.fail(gen, err)
		case err := <-inject:
			c.fail(gen, err)
		}
	}
}

func (c *ListCache) event(gen uint64, ev fsnotify.Event) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen != c.gen {
		return
	}
	dir := filepath.Dir(ev.Name)
	if dir == c.sentinel {
		if ev.Has(fsnotify.Create) {
			if n, err := strconv.ParseUint(strings.TrimPrefix(filepath.Base(ev.Name), "b"), 10, 64); err == nil && n > c.seen {
				c.seen = n
				c.wakeLocked()
			}
		}
		return
	}
	c.epoch++
	if ev.Op == fsnotify.Write && !c.watched[ev.Name] && c.writtenLocked(dir, ev.Name) {
		c.dirtyAt[dir] = c.epoch // a listing of dir read meanwhile is not kept
		return
	}
	c.dirtyLocked(dir)
	if c.watched[ev.Name] {
		c.dirtyLocked(ev.Name)
		if ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename) {
			// The watch follows the inode: a directory at this path
			// again would not be watched. Start over.
			c.needNew = true
			c.resetLocked()
			c.wakeLocked()
		}
	}
}

func (c *ListCache) fail(gen uint64, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen != c.gen {
		return
	}
	c.stats.Overflows++
	c.epoch++
	c.resetLocked()
	if !errors.Is(err, fsnotify.ErrEventOverflow) {
		c.needNew = true
	}
	c.wakeLocked()
}

func (c *ListCache) wakeLocked() {
	close(c.wake)
	c.wake = make(chan struct{})
}

func (c *ListCache) dirtyLocked(dir string) {
	c.dirtyAt[dir] = c.epoch
	ps := c.owner[dir]
	if len(ps) == 0 {
		return
	}
	delete(c.owner, dir)
	for _, p := range ps {
		if c.parts[p.key] == p {
			c.dropLocked(p)
		}
	}
}

// writtenLocked notes that file, in dir, was written to (its content: a
// Write event), for every kept part that lists dir's files; false when a
// part of dir lists no files (a root's, of buckets), which is dropped then
// as for any other event.
func (c *ListCache) writtenLocked(dir, file string) bool {
	ps := c.owner[dir]
	for _, p := range ps {
		if strings.HasPrefix(p.key, rootKeyPrefix) {
			return false
		}
	}
	for _, p := range ps {
		set := c.written[p]
		if set == nil {
			set = map[string]bool{}
			c.written[p] = set
		}
		set[file] = true
	}
	return true
}

// writtenOf returns the files of p written to since it was listed, and
// the mark a part made from them is kept under; ok is false when p is no
// longer kept (an event since dropped it, and with it what was written
// before: only a read of the directory says now).
func (c *ListCache) writtenOf(p *part) (m mark, files []string, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.parts[p.key] != p {
		return mark{}, nil, false
	}
	for f := range c.written[p] {
		files = append(files, f)
	}
	return mark{c.epoch, c.drops, c.gen}, files, true
}

func (c *ListCache) dropLocked(p *part) {
	delete(c.written, p)
	delete(c.parts, p.key)
	for _, d := range p.dirs {
		if ps := c.owner[d]; len(ps) > 0 {
			c.owner[d] = slices.DeleteFunc(ps, func(q *part) bool { return q == p })
			if len(c.owner[d]) == 0 {
				delete(c.owner, d)
			}
		}
	}
}

// sync is the freshness barrier (see ListCache). It reports whether every
// event queued before it was applied, and the watcher is usable.
func (c *ListCache) sync() bool {
	c.mu.Lock()
	if c.disabled || c.closed {
		c.mu.Unlock()
		return false
	}
	if c.needNew || c.w == nil {
		if !c.startLocked() {
			c.stats.Fallbacks++
			c.mu.Unlock()
			return false
		}
	}
	c.seq++
	want := c.seq
	drops := c.drops
	err := renameBarrier(filepath.Join(c.sentinel, c.barrierName(want-1)), filepath.Join(c.sentinel, c.barrierName(want)))
	if err != nil {
		c.needNew = true
		c.stats.Fallbacks++
		c.mu.Unlock()
		return false
	}
	c.mu.Unlock()
	timeout := c.SyncTimeout
	if timeout <= 0 {
		timeout = 2 * time.Second
	}
	timer := syncTimer(timeout)
	defer putSyncTimer(timer)
	for {
		c.mu.Lock()
		switch {
		case c.drops != drops || c.needNew:
			// An overflow or a removed directory: what was kept is gone,
			// and this listing is a full one.
			if c.needNew && !c.closed {
				c.startLocked()
			}
			c.stats.Fallbacks++
			c.mu.Unlock()
			return false
		case c.seen >= want:
			c.stats.Syncs++
			c.timeouts = 0
			c.mu.Unlock()
			return true
		}
		wake := c.wake
		c.mu.Unlock()
		select {
		case <-wake:
		case <-timer.C:
			c.mu.Lock()
			c.stats.Fallbacks++
			c.needNew = true
			if c.timeouts++; c.timeouts >= maxTimeouts {
				c.disabled = true // a watcher that does not deliver
				c.stopLocked()
			}
			c.mu.Unlock()
			return false
		}
	}
}

// syncTimers keeps the barriers' timers: every call of a watching
// server waits at one, and a new timer a call was a few hundred bytes of
// its garbage.
var syncTimers sync.Pool

// syncTimer is a timer that fires after d, reused when one is kept.
func syncTimer(d time.Duration) *time.Timer {
	if t, ok := syncTimers.Get().(*time.Timer); ok {
		t.Reset(d)
		return t
	}
	return time.NewTimer(d)
}

// putSyncTimer stops t and keeps it for another barrier. A firing
// nobody received is drained: since Go 1.23 a stopped timer delivers
// nothing stale, but with GODEBUG=asynctimerchan=1 it would, and a
// barrier would count a timeout that did not happen.
func putSyncTimer(t *time.Timer) {
	if !t.Stop() {
		select {
		case <-t.C:
		default:
		}
	}
	syncTimers.Put(t)
}

// addWatch watches dir before a lister reads it.
func (c *ListCache) addWatch(dir string) bool {
	c.mu.Lock()
	if c.watched[dir] {
		c.mu.Unlock()
		return true
	}
	w, gen := c.w, c.gen
	c.mu.Unlock()
	if w == nil || !localFS(dir) {
		return false
	}
	err := w.Add(dir)
	c.mu.Lock()
	defer c.mu.Unlock()
	if err != nil || gen != c.gen {
		c.stats.WatchFailed++
		return false
	}
	c.watched[dir] = true
	return true
}

// mark is the state a listing starts from: a part read after it is kept
// only if nothing named its directories since.
type mark struct{ epoch, drops, gen uint64 }

func (c *ListCache) mark() mark {
	c.mu.Lock()
	defer c.mu.Unlock()
	return mark{c.epoch, c.drops, c.gen}
}

// store keeps p when its directories were watched throughout its reading.
func (c *ListCache) store(m mark, p *part) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed || m.drops != c.drops || m.gen != c.gen {
		return
	}
	for _, d := range p.dirs {
		if c.dirtyAt[d] > m.epoch || !c.watched[d] {
			return
		}
	}
	if old := c.parts[p.key]; old != nil {
		c.dropLocked(old)
	}
	c.parts[p.key] = p
	for _, d := range p.dirs {
		c.owner[d] = append(c.owner[d], p)
	}
}

// get is the kept part of key, nil when none. The key is spelled in
// bytes and the lookup copies nothing: a listing looks up its root's and
// each bucket directory's part on every call.
func (c *ListCache) get(key []byte) *part {
	c.mu.Lock()
	defer c.mu.Unlock()
	p := c.parts[string(key)]
	if p != nil {
		c.stats.Reused++
	}
	return p
}

// View is one resolution's use of a ListCache (Begin): after one barrier, the
// listings it makes may take kept directory listings when fresh is set.
type View struct {
	c     *ListCache
	fresh bool
	// used are the kept parts this listing took, in order; missed is set
	// when any directory was read instead.
	used   []*part
	missed bool
	// groups are the listings of directories still to be merged, each
	// with whether the lister was linked when it listed them: a memoized
	// listing never merges them (see flush).
	groups []takeGroup
}

type takeGroup struct {
	parts  []listed
	linked bool
}

// flush merges the listed directories into l, in the order listed and as
// lister.listBuckets would have merged them one listing at a time.
func (v *View) flush(l *lister) {
	for _, g := range v.groups {
		l.linked = l.linked || g.linked
		l.take(g.parts)
	}
	v.groups = nil
}

// Begin starts a resolution's use of the cache; nil (a nil, closed or
// disabled cache) means list without it.
func (c *ListCache) Begin() *View {
	if c == nil || c.disabled {
		return nil
	}
	return &View{c: c, fresh: c.sync()}
}

// lister is newLister, watching; kept listings made under other roots
// are dropped.
func (v *View) lister(dirs locate.Dirs, opts ListOptions) *lister {
	l := newLister(dirs, opts)
	l.watch = v.c.addWatch
	key := l.rootsKey()
	v.c.mu.Lock()
	if v.c.rootsKey != key {
		v.c.rootsKey = key
		v.c.resetLocked()
	}
	v.c.mu.Unlock()
	return l
}

func (v *View) cached(key []byte) *part {
	if !v.fresh {
		return nil
	}
	return v.c.get(key)
}

// ListSessions is ListSessions through the cache. The refs it returns may
// be shared with earlier and later calls (see listMemo): callers must not
// change them (the slice is clipped, so appending copies).
func (v *View) ListSessions(dirs locate.Dirs, opts ListOptions) ([]Ref, error) {
	v.used, v.missed, v.groups = nil, false, nil
	l := v.lister(dirs, opts)
	v.listRoot(l, dirs.SessionsRoot)
	if dirs.SessionDir != "" {
		l.linked = true // it may lie inside the sessions root
		v.listDirs(l, []bucketDir{{dirs.SessionDir, "", 0}}, nil)
	}
	key := "S\x00" + l.rootsKey() + "\x00" + dirs.SessionDir + "\x00" + opts.key()
	linked := l.linked
	for _, g := range v.groups {
		linked = linked || g.linked
	}
	if refs, ok := v.memoized(key, linked); ok {
		return refs, nil
	}
	v.flush(l)
	refs, err := l.result()
	if err == nil {
		refs = slices.Clip(refs)
		v.memoize(key, refs)
	}
	return refs, err
}

// memoized returns the memo's refs when this listing took exactly its
// parts; when it took some made from them by withWrites, and nothing was
// linked (no path listed twice), the memo's refs with those files' refs
// moved to where their new times sort them (patchMemo).
func (v *View) memoized(key string, linked bool) ([]Ref, bool) {
	if v.missed {
		return nil, false
	}
	v.c.mu.Lock()
	m := v.c.memo
	v.c.mu.Unlock()
	switch {
	case m.key != key || len(m.parts) != len(v.used):
		return nil, false
	case slices.Equal(m.parts, v.used):
		return m.refs, true
	case linked:
		return nil, false
	}
	refs, ok := patchMemo(m, v.used)
	if !ok {
		return nil, false
	}
	v.c.mu.Lock()
	defer v.c.mu.Unlock()
	if cur := v.c.memo; cur.key == key && sameRefs(cur.refs, m.refs) {
		v.c.memo = listMemo{key: key, parts: v.used, refs: refs}
		v.c.stats.Patched++
	}
	return refs, true
}

// patchMemo is m's refs for parts, each of which is m's part at its place
// or was made from it by withWrites: the refs of the files written to are
// taken out and put back with their new stats where sortRuns puts them
// (newest first, ties by path). The refs between are copied in runs, not
// sorted again nor looked at one by one but for their stats' pointers.
func patchMemo(m listMemo, parts []*part) ([]Ref, bool) {
	var old []*FileStat // the written files' stats in m's refs
	var moved []Ref     // and their refs now
	for i, q := range parts {
		if q == m.parts[i] {
			continue
		}
		if q.from != m.parts[i].seq {
			return nil, false
		}
		old = append(old, q.old...)
		for _, j := range q.written {
			moved = append(moved, q.refs[j])
		}
	}
	// Where each leaves and where each goes, as positions in m.refs.
	isOld := func(st *FileStat) bool { return slices.Contains(old, st) }
	if len(old) > 4 {
		set := make(map[*FileStat]bool, len(old))
		for _, st := range old {
			set[st] = true
		}
		isOld = func(st *FileStat) bool { return set[st] }
	}
	var out []int
	for i := range m.refs {
		if isOld(m.refs[i].Stat) {
			out = append(out, i)
		}
	}
	if len(out) != len(old) {
		return nil, false
	}
	slices.SortFunc(moved, func(a, b Ref) int {
		switch {
		case refBefore(a, b):
			return -1
		case refBefore(b, a):
			return 1
		}
		return 0
	})
	in := make([]int, len(moved))
	for k, r := range moved {
		in[k], _ = slices.BinarySearchFunc(m.refs, r, func(e, target Ref) int {
			if refBefore(e, target) {
				return -1
			}
			return 1
		})
	}
	refs := make([]Ref, 0, len(m.refs))
	from, o, k := 0, 0, 0
	for o < len(out) || k < len(in) {
		// The next event: a ref put back before position in[k], or the
		// ref at out[o] left out (a put back first at the same place).
		if k < len(in) && (o == len(out) || in[k] <= out[o]) {
			refs = append(append(refs, m.refs[from:in[k]]...), moved[k])
			from = in[k]
			k++
			continue
		}
		refs = append(refs, m.refs[from:out[o]]...)
		from = out[o] + 1
		o++
	}
	return append(refs, m.refs[from:]...), true
}

// refBefore reports whether a comes before b in a listing (Before).
func refBefore(a, b Ref) bool { return Before(a.mtimeNs(), a.Path, b.mtimeNs(), b.Path) }

// Before reports whether a listing puts the file at pathA, modified at
// mtimeA (Unix ns), before the one at pathB modified at mtimeB: newer
// first, as new and first by path (the order sortRuns gives).
func Before(mtimeA int64, pathA string, mtimeB int64, pathB string) bool {
	if mtimeA != mtimeB {
		return mtimeA > mtimeB
	}
	return pathA < pathB
}

// sameRefs reports whether a and b are one slice.
func sameRefs(a, b []Ref) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// memoize keeps refs when they were merged from kept parts only.
func (v *View) memoize(key string, refs []Ref) {
	if v.missed {
		return
	}
	v.c.mu.Lock()
	defer v.c.mu.Unlock()
	v.c.memo = listMemo{key: key, parts: v.used, refs: refs}
}

// ListBuckets is ListBuckets through the cache.
func (v *View) ListBuckets(dirs locate.Dirs, buckets []string, opts ListOptions) (refs []Ref, existing []string, err error) {
	l := v.lister(dirs, opts)
	l.linked = true // a bucket may be named twice
	var todo []bucketDir
	for _, b := range buckets {
		if b == "" || b == "." || b == ".." || strings.ContainsAny(b, `/\`) {
			continue
		}
		dir := filepath.Join(dirs.SessionsRoot, b)
		if st, err := os.Stat(dir); err == nil && st.IsDir() {
			existing = append(existing, dir)
			todo = append(todo, bucketDir{dir, b, st.Size()})
		}
	}
	v.listDirs(l, todo, nil)
	v.flush(l)
	refs, err = l.result()
	return refs, existing, err
}

// ListExplicit is ListExplicit through the cache.
func (v *View) ListExplicit(dirs locate.Dirs, opts ListOptions) ([]Ref, error) {
	l := v.lister(dirs, opts)
	v.listDirs(l, []bucketDir{{dirs.SessionDir, "", 0}}, nil)
	v.flush(l)
	refs, err := l.result()
	if errors.Is(err, fs.ErrNotExist) {
		err = nil
	}
	return refs, err
}

// listRoot is lister.listRoot through the cache. The root's identity is
// checked on every call: an unmount raises no event fsnotify passes on.
func (v *View) listRoot(l *lister, root string) {
	if root == "" {
		return
	}
	root = filepath.Clean(root)
	var kb [128]byte
	if p := v.cached(append(append(kb[:0], rootKeyPrefix...), root...)); p != nil {
		if sameDir(root, p.id) {
			v.used = append(v.used, p)
			v.listDirs(l, p.buckets, p)
			return
		}
	}
	v.missed = true
	m := v.c.mark()
	st, serr := os.Stat(root) // before the watch and the read
	watched := v.c.addWatch(root)
	ents, err := os.ReadDir(root)
	if err != nil {
		l.fail(err)
		return
	}
	buckets, linked := bucketDirs(root, ents)
	// A linked bucket's target may change without an event here.
	var kept *part
	if watched && serr == nil && !linked {
		kept = newPart(&part{key: rootKeyPrefix + root, buckets: buckets, dirs: []string{root}, id: StatOf(st)})
		v.c.store(m, kept) // kept only while nothing named root since m
	}
	v.listDirs(l, buckets, kept)
}

// partSeq numbers the parts (newPart).
var partSeq atomic.Uint64

// newPart is p, numbered.
func newPart(p *part) *part {
	p.seq = partSeq.Add(1)
	return p
}

// withWrites returns p with the stats of the files written to since it was
// listed taken again: p itself when there are none, a new kept part when
// there are (its refs a copy: p's are shared), nil when one of them is not
// among p's files or no longer a regular file (the directory is read
// again). A session that grows call after call costs a stat, not a read of
// its directory (at 100k sessions 8,000 stats).
func (v *View) withWrites(p *part) *part {
	if beforeWritten != nil {
		beforeWritten(p.key)
	}
	m, files, ok := v.c.writtenOf(p)
	switch {
	case !ok:
		return nil
	case len(files) == 0:
		return p
	}
	at := make(map[string]int, len(files))
	for _, f := range files {
		at[f] = -1
	}
	refs := slices.Clone(p.refs)
	for i := range refs {
		if _, ok := at[refs[i].Path]; ok {
			at[refs[i].Path] = i
		}
	}
	written, old := make([]int, 0, len(at)), make([]*FileStat, 0, len(at))
	for f, i := range at {
		if i < 0 {
			return nil
		}
		st, err := os.Lstat(f)
		if err != nil || !st.Mode().IsRegular() {
			return nil
		}
		now := StatOf(st)
		old = append(old, refs[i].Stat)
		refs[i].Stat = &now
		written = append(written, i)
	}
	q := newPart(&part{key: p.key, refs: refs, buckets: p.buckets, dirs: p.dirs, id: p.id, from: p.seq, written: written, old: old})
	q.seenUnder.Store(p.seenUnder.Load())
	v.c.store(m, q)
	v.c.mu.Lock()
	v.c.stats.Restated += len(files)
	v.c.mu.Unlock()
	return q
}

// beforeWritten, when set, runs before withWrites asks for a part's
// written files (tests: an event that drops the part just then).
var beforeWritten func(key string)

// stillNames reports whether dir still names the directory p was listed
// from: known when it was seen to under the same kept root part, else
// stat-ed (and remembered under that part).
func (v *View) stillNames(dir string, p, under *part) bool {
	if under != nil && p.seenUnder.Load() == under {
		return true
	}
	if !sameDir(dir, p.id) {
		return false
	}
	if under != nil {
		p.seenUnder.Store(under)
	}
	return true
}

// dirChecks counts sameDir's stats (the tests' measure of a quiet call).
var dirChecks atomic.Int64

// rootKeyPrefix starts the key of a root's kept part (its buckets).
const rootKeyPrefix = "R\x00"

// sameDir reports whether dir is still the directory of identity id.
func sameDir(dir string, id FileStat) bool {
	dirChecks.Add(1)
	st, err := os.Stat(dir)
	if err != nil {
		return false
	}
	now := StatOf(st)
	return now.Inode == id.Inode && now.Dev == id.Dev
}

// listDirs is lister.listBuckets through the cache: kept listings for the
// directories that did not change, the others read (in parallel) and
// kept, all taken in directory order. under is the root's kept part the
// dirs are the buckets of (nil for dirs named by the caller).
func (v *View) listDirs(l *lister, dirs []bucketDir, under *part) {
	parts := make([]listed, len(dirs))
	var todo []int
	var kb [256]byte // a key fits, most of the time: no allocation
	key := kb[:0]
	for i, d := range dirs {
		key = appendFlatKey(key[:0], d, l.opts)
		p := v.cached(key)
		if p != nil && v.stillNames(d.dir, p, under) {
			p = v.withWrites(p)
		} else {
			p = nil // another directory at its path now: read it
		}
		if p != nil {
			parts[i] = listed{refs: p.refs}
			v.used = append(v.used, p)
		} else {
			v.missed = true
			todo = append(todo, i)
		}
	}
	if len(todo) > 0 {
		m := v.c.mark()
		list := func(i int) {
			st, serr := os.Stat(dirs[i].dir) // before the watch and the read
			pl := l.fork()
			pl.listFlat(dirs[i].dir, dirs[i].bucket)
			parts[i] = pl.listed()
			if serr == nil && !pl.linked && !pl.unwatched && len(pl.errs) == 0 {
				// The kept refs are shared: nobody writes a Ref's Stat.
				v.c.store(m, newPart(&part{key: flatKey(dirs[i], l.opts), refs: pl.refs, dirs: pl.read, id: StatOf(st)}))
			}
		}
		slices.SortStableFunc(todo, func(a, b int) int { return cmp.Compare(dirs[b].size, dirs[a].size) }) // largest first
		inParallel(len(todo), func(k int) { list(todo[k]) })
		v.c.mu.Lock()
		v.c.stats.Listed += len(todo)
		v.c.mu.Unlock()
	}
	v.groups = append(v.groups, takeGroup{parts, l.linked})
}

func flatKey(d bucketDir, opts ListOptions) string { return string(appendFlatKey(nil, d, opts)) }

// appendFlatKey appends the key of d's kept part (flatKey) to b.
func appendFlatKey(b []byte, d bucketDir, opts ListOptions) []byte {
	b = append(b, "F\x00"...)
	b = append(b, filepath.Clean(d.dir)...)
	b = append(b, 0)
	b = append(b, d.bucket...)
	b = append(b, 0)
	return append(b, opts.key()...)
}
