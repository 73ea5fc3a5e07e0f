package engine

import (
	"runtime/debug"
	"sync"
	"time"
	"unsafe"

	"github.com/memidx/memidx/internal/index"
	"github.com/memidx/memidx/internal/lineage"
	"github.com/memidx/memidx/internal/normalize"
	"github.com/memidx/memidx/internal/session"
)

// snapCache keeps the last few lossless reads of sessions, so that paging
// through an expansion (and a walk, which pages through a whole session)
// parses the source once instead of once per page. A cached read is used
// only while the file's stat identity is unchanged and was not racy (a
// write within the clock tick of the read could leave it unchanged), or
// once two reads the racy window apart found the same identity and content
// (a file dated in the future); the integrity bindings of every call are
// still checked against it.
//
// What it holds is charged against the build memory bound: at most
// maxBytes (a share of maxBuildBytes) of estimated snapshot memory, a read
// larger than that is used once and not kept, and entries unused for idle
// are dropped, so that a long-lived server at rest gives their memory back.
type snapCache struct {
	mu       sync.Mutex
	entries  []cachedSnap
	bytes    int64
	maxBytes int64
	idle     time.Duration
	timer    *time.Timer
	closed   bool
	now      func() time.Time
}

type cachedSnap struct {
	key    string
	id     index.Identity
	readAt time.Time
	// firstAt is the first of the reads that found this identity and
	// content: a source dated in the future settles once two are the
	// racy window apart (index.Identity.Settled).
	firstAt time.Time
	usedAt  time.Time
	snap    *snapshot
}

// snapCacheSize bounds the entries of the cache, whatever their size.
const snapCacheSize = 4

// snapCacheShare is the share of maxBuildBytes the cache may hold (256 MiB
// of the default 1 GiB): a build and a full cache stay within 1.25 times the
// bound a configuration sets.
const snapCacheShare = 4

// snapCacheIdle is how long an unused entry is kept: long enough for a
// host paging through a walk, short enough that a server at rest holds
// nothing of it.
const snapCacheIdle = 30 * time.Second

// freeAfterIdleBytes: an idle sweep that drops at least this much returns
// the memory to the system at once rather than over minutes.
const freeAfterIdleBytes = 16 << 20

func newSnapCache(maxBuildBytes int) *snapCache {
	if maxBuildBytes <= 0 {
		maxBuildBytes = index.DefaultMaxBuildBytes
	}
	return &snapCache{maxBytes: int64(maxBuildBytes) / snapCacheShare, idle: snapCacheIdle, now: time.Now}
}

func snapKey(path string, mode lineage.Mode, live *lineage.Live) string {
	k := path + "\x00" + string(mode)
	if live != nil && mode == lineage.Active {
		k += "\x00" + live.LeafID
		for _, id := range live.BranchIDs {
			k += "\x00" + id
		}
	}
	return k
}

func (c *snapCache) get(key string, id index.Identity) *snapshot {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, e := range c.entries {
		if e.key != key {
			continue
		}
		if e.id != id {
			c.removeAt(i)
			return nil
		}
		if !e.id.Settled(e.firstAt.UnixNano(), e.readAt.UnixNano()) {
			return nil // read again; put keeps when it was first read
		}
		// Most recently used first.
		e.usedAt = c.now()
		copy(c.entries[1:i+1], c.entries[:i])
		c.entries[0] = e
		return e.snap
	}
	return nil
}

func (c *snapCache) put(key string, id index.Identity, readAt time.Time, s *snapshot) {
	c.mu.Lock()
	defer c.mu.Unlock()
	firstAt := readAt
	for i, e := range c.entries {
		if e.key == key {
			if e.id == id && e.snap.hash == s.hash {
				firstAt = e.firstAt
			}
			c.removeAt(i)
			break
		}
	}
	if c.closed || s.cost > c.maxBytes {
		return // used by the call that read it, then collected
	}
	c.entries = append([]cachedSnap{{key: key, id: id, readAt: readAt, firstAt: firstAt, usedAt: c.now(), snap: s}}, c.entries...)
	c.bytes += s.cost
	for len(c.entries) > snapCacheSize || c.bytes > c.maxBytes {
		c.removeAt(len(c.entries) - 1)
	}
	c.arm()
}

func (c *snapCache) removeAt(i int) {
	c.bytes -= c.entries[i].snap.cost
	c.entries = append(c.entries[:i], c.entries[i+1:]...)
}

// arm schedules the next idle sweep, if none is scheduled.
func (c *snapCache) arm() {
	if c.timer == nil && len(c.entries) > 0 && !c.closed {
		c.timer = time.AfterFunc(c.idle, c.sweep)
	}
}

// sweep drops the entries unused for idle and schedules the next sweep.
func (c *snapCache) sweep() {
	c.mu.Lock()
	c.timer = nil
	freed := c.dropIdle()
	c.arm()
	c.mu.Unlock()
	if freed >= freeAfterIdleBytes {
		debug.FreeOSMemory()
	}
}

// dropIdle drops the entries unused for idle and returns their cost.
func (c *snapCache) dropIdle() int64 {
	now := c.now()
	var freed int64
	for i := len(c.entries) - 1; i >= 0; i-- {
		if now.Sub(c.entries[i].usedAt) >= c.idle {
			freed += c.entries[i].snap.cost
			c.removeAt(i)
		}
	}
	return freed
}

// close drops every entry and stops the sweeps.
func (c *snapCache) close() {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.closed = true
	if c.timer != nil {
		c.timer.Stop()
		c.timer = nil
	}
	c.entries, c.bytes = nil, 0
}

// held is the estimated memory the cache holds, and its entries.
func (c *snapCache) held() (bytes int64, entries int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.bytes, len(c.entries)
}

// wholeSnapshotCost estimates what a whole read holds: the source bytes
// (strings and values of the entries may point into them) and each entry
// with its text.
func wholeSnapshotCost(sourceBytes int64, entries []normalize.Entry) int64 {
	cost := sourceBytes
	for i := range entries {
		e := &entries[i]
		cost += int64(unsafe.Sizeof(*e)) + int64(len(e.Text))
		for _, c := range e.ArgsCuts {
			cost += int64(len(c.Rest))
		}
	}
	return cost
}

// slimSnapshotCost estimates what a slim read holds: its records with
// their ids, and a record index per entry.
func slimSnapshotCost(s *session.Slim, entries int) int64 {
	const idBytes = 64 // two ids a record, with their string headers
	return int64(len(s.Records))*(int64(unsafe.Sizeof(session.SlimRecord{}))+idBytes) + int64(entries)*8
}
