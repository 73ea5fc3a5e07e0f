package engine

import (
	"errors"
	"os"
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
// A watching Engine's recall and expand titles also go through its kept
// ones (titleCache); a sessions listing reads its own.
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
	title := t.kept.of(path, titleOf)
	if t.read != nil {
		t.read[path] = title
	}
	return title
}

// titleOf reads the title of the session file f at path (opened with
// session.OpenRegular; st is its stat); settled says whether the answer
// holds for as long as the file's identity does: a title, or a file that
// has no session header, but not a read that failed for the moment (too
// many open files in a busy server, an I/O error).
func titleOf(f *os.File, st os.FileInfo, path string) (title string, settled bool) {
	h, err := session.HeaderOf(f, st, path)
	switch {
	case err == nil:
		return boundString(h.Title, maxTitleChars), true
	case errors.Is(err, session.ErrNoHeader):
		return "", true
	}
	return "", false
}

// titleCache keeps the titles a watching Engine read, by file, while the
// file's stat identity is the one they were read under and was not racy
// then (a write within the clock tick of the read could leave it
// unchanged): a rewrite of the slot changes the identity. The identity is
// the open file's, opened as its header is read (confined to the session
// roots: a directory swapped for a symlink out of them answers no title,
// kept or not). A hit costs that open instead of an open and a read of
// its header, which were most of a page's cost in a server at 100k
// sessions (10 hits: 0.3 ms of 0.9).
type titleCache struct {
	mu sync.Mutex
	m  map[string]keptTitle
}

type keptTitle struct {
	id    index.Identity
	title string
}

// titleCacheSize bounds the titles kept (typically a few hundred KB, at
// most ~7 MB of 512-character titles); past it the cache starts again.
const titleCacheSize = 4096

// of returns path's title: "" when the file does not open as a session
// file, else kept for the file's identity now, or read (titleOf). A nil
// cache just reads.
func (c *titleCache) of(path string, read func(*os.File, os.FileInfo, string) (string, bool)) string {
	at := time.Now()
	f, st, err := session.OpenRegular(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	id, err := index.IdentityOf(st)
	if c == nil || err != nil {
		title, _ := read(f, st, path)
		return title
	}
	c.mu.Lock()
	k, ok := c.m[path]
	c.mu.Unlock()
	if ok && k.id == id {
		return k.title
	}
	title, settled := read(f, st, path)
	if !settled || id.RacyAt(at.UnixNano(), 0) {
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
