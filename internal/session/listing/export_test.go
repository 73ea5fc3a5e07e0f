package listing

import (
	"strings"
	"weak"
)

// Hooks for the watch tests, which resolve scopes (package scopes) and so
// live in package listing_test.

var WatchSupported = watchSupported

const MaxTimeouts = maxTimeouts

// EnableInject gives the cache a channel of errors as if from the watcher.
func (c *ListCache) EnableInject() { c.inject = make(chan error) }

// Inject delivers err as the watcher's.
func (c *ListCache) Inject(err error) { c.inject <- err }

// DropEvents loses events: 1 all but the sentinel's, 2 all, 0 none.
func (c *ListCache) DropEvents(n int32) { c.testDrop.Store(n) }

func (c *ListCache) SentinelDir() string { return c.sentinelDir() }

func (v *View) Fresh() bool { return v.fresh }

// DisabledCache is an inert cache.
func DisabledCache() *ListCache { return &ListCache{disabled: true} }

// DirChecks is how many kept listings' directories were stat-ed so far.
func DirChecks() int64 { return dirChecks.Load() }

// BeforeWritten sets the hook withWrites runs first (nil: none).
func BeforeWritten(f func(key string)) { beforeWritten = f }

// KeptPartAlive returns whether the part now kept for the flat directory
// dir is still reachable, when asked later (nil: none kept).
func (c *ListCache) KeptPartAlive(dir string) func() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, p := range c.parts {
		if !strings.HasPrefix(k, rootKeyPrefix) && strings.Contains(k, dir+"\x00") {
			w := weak.Make(p)
			return func() bool { return w.Value() != nil }
		}
	}
	return nil
}
