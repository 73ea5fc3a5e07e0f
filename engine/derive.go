package engine

import (
	"context"
	"fmt"
	"reflect"

	"github.com/memidx/memidx/internal/search"
)

// NotDerivableError is Derive's refusal: the options do not resolve to
// the directories and configuration of the Engine asked.
type NotDerivableError struct {
	// Reason names what differs.
	Reason string
}

func (e *NotDerivableError) Error() string { return "engine: cannot derive: " + e.Reason }

// Derive returns an Engine that answers exactly as one opened with opt
// would (its own working directory, live session, walk timeout, catalog
// and configuration notices, shown by its first answer), sharing e's
// index, session-listing watches and caches: a server answering a shell's
// one-shot question with the shell's settings. opt must resolve to e's
// directories and effective configuration (index directory included);
// otherwise Derive answers a *NotDerivableError naming what differs.
// opt.Watch, Workers, LockTimeout, BuildCharged and RecordsHeld are e's. Closing the
// derived Engine releases nothing of e's; closing e ends the derived
// Engine's calls as its own.
func (e *Engine) Derive(opt Options) (*Engine, error) {
	if e.isClosed() {
		return nil, ErrClosed
	}
	opt.Watch = false
	d, err := Open(opt)
	if err != nil {
		return nil, err
	}
	switch {
	case d.dirs != e.dirs:
		return nil, &NotDerivableError{Reason: fmt.Sprintf("the OMP directories differ (agent dir %s, not %s)", d.dirs.AgentDir, e.dirs.AgentDir)}
	case d.cfg.IndexDir != e.cfg.IndexDir:
		return nil, &NotDerivableError{Reason: fmt.Sprintf("the index directory differs (%s, not %s)", d.cfg.IndexDir, e.cfg.IndexDir)}
	case !reflect.DeepEqual(d.cfg, e.cfg):
		return nil, &NotDerivableError{Reason: "the effective configuration differs"}
	}
	d.base = e
	d.ix, d.snaps = e.ix, e.snaps
	d.resolver.Watch = e.watch
	return d, nil
}

// beginDerived admits a call of a derived Engine on its base too, so that
// the base's Close ends it and waits for it before releasing the index.
func (e *Engine) beginDerived(ctx context.Context) (context.Context, func(), error) {
	bctx, bend, err := e.base.begin(ctx)
	if err != nil {
		return nil, nil, err
	}
	run, end, err := e.beginOwn(bctx)
	if err != nil {
		bend()
		return nil, nil, err
	}
	return run, func() { end(); bend() }, nil
}

// docMemo is the doc index memo of the Engine's searches: its base's.
func (e *Engine) docMemo() *search.DocMemo { return &e.shared().docs }

// shared is the Engine whose caches of the index this one uses: its base,
// or itself.
func (e *Engine) shared() *Engine {
	if e.base != nil {
		return e.base.shared()
	}
	return e
}
