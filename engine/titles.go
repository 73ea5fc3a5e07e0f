package engine

import (
	"sync"
	"time"

	"github.com/memidx/memidx/internal/index"
	"github.com/memidx/memidx/internal/session"
)

// maxTitleChars bounds a session title on the wire, as the reference
// bounds string metadata.
const maxTitleChars = 512

// sessionTitles reads session titles (OMP's title slot, else the header's
// title) from the session files' headers, once per file and call: OMP
// rewrites the slot in place, so the index does not keep a title that
// would go stale. Only files a scope resolved (and so checked) are read.
// A watching Engine's titles also go through its kept ones (titleCache).
type sessionTitles struct {
	read map[string]string
	kept *titleCache
}

// titles are the titles of one call of e.
func (e *Engine) titles() sessionTitles {
	return sessionTitles{read: map[string]string{}, kept: e.shared().keptTitles}
}

// of is the title of the session file at path, "" when it has none or its
// header cannot be read.
func (t sessionTitles) of(path string) string {
	if title, ok := t.read[path]; ok {
		return title
	}
	title := t.kept.of(path, readTitle)
	if t.read != nil {
		t.read[path] = title
	}
	return title
}

func readTitle(path string) string {
	if h, err := session.ReadHeader(path); err == nil {
		return boundString(h.Title, maxTitleChars)
	}
	return ""
}

// titleCache keeps the titles a watching Engine read, by file, while the
// file's stat identity is the one they were read under and was not racy
// then (a write within the clock tick of the read could leave it
// unchanged): a rewrite of the slot changes the identity. A hit then costs
// a stat instead of an open and a read of its header, which were most of
// a page's cost in a server at 100k sessions (10 hits: 0.3 ms of 0.9).
type titleCache struct {
	mu sync.Mutex
	m  map[string]keptTitle
}

type keptTitle struct {
	id    index.Identity
	title string
}

// titleCacheSize bounds the titles kept (a few hundred KB); past it the
// cache starts again.
const titleCacheSize = 4096

// of returns path's title, from read unless it is kept for the file's
// identity now. A nil cache just reads.
func (c *titleCache) of(path string, read func(string) string) string {
	if c == nil {
		return read(path)
	}
	at := time.Now()
	id, err := index.StatIdentity(path)
	if err != nil {
		return read(path)
	}
	c.mu.Lock()
	k, ok := c.m[path]
	c.mu.Unlock()
	if ok && k.id == id {
		return k.title
	}
	title := read(path)
	if id.RacyAt(at.UnixNano(), 0) {
		return title
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= titleCacheSize {
		c.m = map[string]keptTitle{}
	}
	c.m[path] = keptTitle{id: id, title: title}
	return title
}
