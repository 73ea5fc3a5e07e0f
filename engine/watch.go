package engine

import "github.com/memidx/memidx/internal/session/listing"

// openWatch gives a watching Engine's resolver its listing cache. The
// index itself needs no watch: every call reads the stored records
// afresh (index.Refresh), so another process's rebuild is seen anyway;
// a watching Engine is a long-lived one, whose index keeps full records
// from the first call on (index.LongLived), and which keeps the titles it
// read (titleCache).
func (e *Engine) openWatch() {
	if !e.opt.Watch {
		return
	}
	e.watch = listing.NewListCache()
	e.keptTitles = &titleCache{}
	e.resolver.Watch = e.watch
	e.ix.LongLived()
}
