package engine

import (
	"errors"

	"github.com/memidx/memidx/session"
)

// openWatch gives a watching Engine's resolver its listing cache. The
// index itself needs no watch: every call reads the stored records
// afresh (index.Refresh), so another process's rebuild is seen anyway.
func (e *Engine) openWatch() {
	if !e.opt.Watch {
		return
	}
	e.watch = session.NewListCache()
	e.resolver.Watch = e.watch
}

// Close releases what the Engine holds between calls: the index file's
// read handle, the watches of Options.Watch and the cached session reads.
// An Engine still answers after Close, opening the index and listing every
// session file of a scope on each call as one without Watch does.
func (e *Engine) Close() error {
	e.snaps.close()
	ixErr := e.ix.Close()
	if e.watch == nil {
		return ixErr
	}
	return errors.Join(e.watch.Close(), ixErr)
}

// WatchStats counts what Options.Watch did (zero without it).
func (e *Engine) WatchStats() session.WatchStats { return e.watch.Stats() }
