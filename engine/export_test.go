package engine

import (
	"time"

	"github.com/memidx/memidx/internal/index"
	"github.com/memidx/memidx/internal/lineage"
	"github.com/memidx/memidx/internal/session/listing"
)

// SetBeforeSearch makes f run between each recall's refresh and its
// search, until the returned func restores the previous hook.
func SetBeforeSearch(f func()) (restore func()) {
	old := beforeSearch
	beforeSearch = f
	return func() { beforeSearch = old }
}

// SetNoLexicon makes recall open every cold digest, as without an archive
// lexicon, until the returned func restores it.
func SetNoLexicon(off bool) (restore func()) {
	old := noLexicon
	noLexicon = off
	return func() { noLexicon = old }
}

// LexiconUses counts the recalls the archive lexicon answered for.
func LexiconUses() int64 { return lexiconUses.Load() }

// SetAfterSnapshot makes f run between each expansion's (and walk's) read
// of its session and its read of the entries, until the returned func restores
// the previous hook.
func SetAfterSnapshot(f func()) (restore func()) {
	old := afterSnapshot
	afterSnapshot = f
	return func() { afterSnapshot = old }
}

// IndexConfig is c under the index's type.
func IndexConfig(c Config) index.Config { return indexConfig(c) }

// RecordIndexedAt is when the source of r was read (Unix ns).
func RecordIndexedAt(r *SessionRecord) int64 { return r.indexedAtNs }

// SnapCacheHeld is the estimated memory and the entries of e's cache of
// session reads.
func SnapCacheHeld(e *Engine) (bytes int64, entries int) { return e.snaps.held() }

// SnapCacheBudget is the memory e's cache of session reads may hold.
func SnapCacheBudget(e *Engine) int64 { return e.snaps.maxBytes }

// AgeSnapCache moves e's cache clock d ahead and runs its idle sweep.
func AgeSnapCache(e *Engine, d time.Duration) {
	e.snaps.mu.Lock()
	e.snaps.now = func() time.Time { return time.Now().Add(d) }
	e.snaps.mu.Unlock()
	e.snaps.sweep()
}

// Reopen opens a new Engine with e's options (e closed, to let another
// process have the index file).
func Reopen(e *Engine) (*Engine, error) { return Open(e.opt) }

// WatchStats counts what Options.Watch did for e (zero without it).
func WatchStats(e *Engine) listing.WatchStats { return e.watch.Stats() }

// SetBeforeWalkPage makes f run between a walk page's read of its
// session's version and its walk, until the returned func restores it.
func SetBeforeWalkPage(f func()) (restore func()) {
	old := beforeWalkPage
	beforeWalkPage = f
	return func() { beforeWalkPage = old }
}

// KeptRefs is how many listing refs e keeps between calls (livePathOf).
func KeptRefs(e *Engine) int {
	lt := &e.shared().lastTargets
	lt.Lock()
	defer lt.Unlock()
	return len(lt.refs)
}

// KeptTitle reports whether a watching e keeps a title for path.
func (e *Engine) KeptTitle(path string) bool {
	c := e.shared().keptTitles
	if c == nil {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	_, ok := c.m[path]
	return ok
}

// QuietStats counts e's refreshes answered from a kept quiet refresh and
// the targets compared one by one to decide.
func QuietStats(e *Engine) (hits, walked int64) { return e.shared().ix.QuietStats() }

// Every carried stat gate of the engine's tests is matched again and
// compared (index.VerifyCarry), and every lookup a sole write skips is
// made and checked (index.VerifySole).
func init() {
	index.VerifyCarry(true)
	index.VerifySole(true)
}

// ResolvedTargets resolves scope as a recall would, and reports whether
// its targets are the listing's refs themselves (the same array) and
// which target is the live session ("" for none).
func ResolvedTargets(e *Engine, scope string) (shared bool, livePath string, err error) {
	r, err := e.resolve(scope, lineage.Active)
	if err != nil {
		return false, "", err
	}
	shared = len(r.targets) > 0 && len(r.targets) == len(r.res.Refs) && &r.targets[0] == &r.res.Refs[0]
	return shared, r.live.Path, nil
}
