package engine

import (
	"sync"
	"time"

	"github.com/memidx/memidx/index"
	"github.com/memidx/memidx/lineage"
)

// snapCache keeps the last few lossless reads of sessions, so that paging
// through an expansion (and a walk, which pages through a whole session)
// parses the source once instead of once per page. A cached read is used
// only while the file's stat identity is unchanged and was not racy (a
// write within the clock tick of the read could leave it unchanged); the
// integrity bindings of every call are still checked against it.
type snapCache struct {
	mu      sync.Mutex
	entries []cachedSnap
}

type cachedSnap struct {
	key    string
	id     index.Identity
	readAt time.Time
	snap   *snapshot
}

const snapCacheSize = 4

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
		if e.id != id || e.id.RacyAt(e.readAt.UnixNano(), index.DefaultRacyWindow) {
			c.entries = append(c.entries[:i], c.entries[i+1:]...)
			return nil
		}
		// Most recently used first.
		copy(c.entries[1:i+1], c.entries[:i])
		c.entries[0] = e
		return e.snap
	}
	return nil
}

func (c *snapCache) put(key string, id index.Identity, readAt time.Time, s *snapshot) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, e := range c.entries {
		if e.key == key {
			c.entries = append(c.entries[:i], c.entries[i+1:]...)
			break
		}
	}
	c.entries = append([]cachedSnap{{key, id, readAt, s}}, c.entries...)
	if len(c.entries) > snapCacheSize {
		c.entries = c.entries[:snapCacheSize]
	}
}
