package engine

import (
	"context"
	"errors"
	"time"

	"github.com/memidx/memidx/internal/coverage"
	"github.com/memidx/memidx/internal/index"
	"github.com/memidx/memidx/internal/jsjson"
)

// WalkResult is what a walk did.
type WalkResult struct {
	Visited int `json:"visited"`
	// Stopped: the visitor ended the walk (it returned false or an
	// error).
	Stopped bool `json:"stopped"`
	// Complete is true only when every selected entry was visited. When
	// it is false, Reasons names what ended the walk: WalkStopped (the
	// visitor), WalkCancelled (the caller's context, or Close),
	// WalkDeadline (Options.WalkTimeout) or Error's code (a failure).
	Complete bool         `json:"complete"`
	Reasons  []string     `json:"reasons"`
	Error    *ErrorObject `json:"error,omitempty"`
}

// The reasons of a walk that ended before its selection's last entry. The
// entries visited before it are whole; the ones after were not visited.
const (
	// WalkDeadline: the walk's own time budget, Options.WalkTimeout,
	// ended it. It is a result: Walk returns no error.
	WalkDeadline = "walk_deadline"
	// WalkStopped: the visitor asked to stop (it returned false, or an
	// error, which Walk returns as is).
	WalkStopped = "walk_stopped"
	// WalkCancelled: the caller's context ended (cancelled or past its
	// deadline) or Close ended the walk; Walk returns ctx.Err() or
	// ErrClosed.
	WalkCancelled = "walk_cancelled"
)

// DefaultWalkTimeout bounds a walk when Options.WalkTimeout is 0. At the
// walk's speed (well over 50,000 entries a second) it covers sessions of
// millions of entries.
const DefaultWalkTimeout = 5 * time.Minute

// walkCheckEvery is how many entries a walk visits between two checks that
// the source is still the version the walk is bound to.
const walkCheckEvery = 1024

// Walk visits complete normalized entries in order: every entry of the
// session when sel selects nothing, otherwise the selection (with its
// before/after context). The visitor always sees a whole entry: its full
// text, with the metadata expansion returns. Domain failures are results,
// as everywhere in engine: a request the walk cannot take
// (invalid_request, index_out_of_bounds) or a provider failure
// (stale_pointer, address_not_found, …) comes back in WalkResult.Error,
// with Complete false and the code as its reason. The whole walk is bound
// to the source hash and lineage of its first read, so a session that
// changes mid-walk answers stale_pointer instead of mixing two versions.
// (A walk bound to no version that finds its session rewritten before its
// first entry reads it again, as Expand does.)
//
// A walk reads the session once and costs what it visits: it does not page
// through expansion responses. It says Complete only when it visited
// every selected entry; whatever ended it sooner is named in Reasons, and
// the result always counts the entries visited:
//   - visit returning false stops the walk (WalkStopped, no error); its
//     error stops it too and is returned as is (WalkStopped);
//   - the context is checked before every entry: the caller's context
//     ending (cancelled, or past its deadline) stops the walk at once and
//     is returned as ctx.Err() (WalkCancelled), as by every method;
//   - Options.WalkTimeout, memidx's own budget, ends the walk as a
//     result, not an error (WalkDeadline).
func (e *Engine) Walk(ctx context.Context, req ExpandRequest, visit func(ExpandedEntry) (bool, error)) (*WalkResult, error) {
	res := &WalkResult{Reasons: []string{}}
	run, end, err := e.begin(ctx)
	if err == nil {
		defer end()
		err = e.walk(ctx, run, req.args(), visit, res)
		if eerr := ended(ctx, run); eerr != nil {
			err = eerr
		}
	}
	if err != nil && !res.Complete && len(res.Reasons) == 0 && (errors.Is(err, ErrClosed) || ctx.Err() != nil) {
		res.Reasons = []string{WalkCancelled}
	}
	return res, err
}

// walk is Walk under run, the context Walk admitted the caller's context
// with: it fills res and sets res.Complete when it visited the whole
// selection. The caller's context is checked itself too: its end reaches
// run a moment after its Done channel closes, and a visitor that waited
// on it must not see another entry.
func (e *Engine) walk(caller, run context.Context, sel expandArgs, visit func(ExpandedEntry) (bool, error), res *WalkResult) error {
	fail := func(eo *ErrorObject) error {
		res.Error, res.Reasons = eo, []string{eo.Code}
		return nil
	}
	if sel.TextOffset != nil && *sel.TextOffset != 0 {
		return fail(badRequest("walk starts from an original selection: textOffset must be 0"))
	}
	none := !sel.hasSelector()
	if none && (sel.EntryOffset != nil || sel.Before != nil || sel.After != nil) {
		return fail(badRequest("entryOffset, before and after need a selection"))
	}
	ctx, cancel := e.walkBudget(run)
	defer cancel()
	// outOfTime tells the walk's own budget, a result, from the
	// caller's context or Close ending run, which Walk reports.
	outOfTime := func() error {
		if err := caller.Err(); err != nil {
			return err
		}
		if run.Err() != nil {
			return run.Err()
		}
		res.Reasons = []string{WalkDeadline}
		return nil
	}
	if ctx.Err() != nil {
		return outOfTime()
	}
	p, rd, eo, err := e.walkOpen(ctx, sel, none)
	switch {
	case err != nil:
		return err
	case eo != nil:
		return fail(eo)
	case rd == nil:
		res.Complete = true // nothing selected
		return nil
	}
	defer rd.close()
	snap := p.snap
	for k := p.opts.entryOffset; k < p.sel.Len(); k++ {
		if ctx.Err() != nil || caller.Err() != nil {
			return outOfTime()
		}
		if k > p.opts.entryOffset && (k-p.opts.entryOffset)%walkCheckEvery == 0 && changed(snap) {
			// The file changed since it was read: is it still the
			// version the walk is bound to?
			now, eo, err := e.readSnapshot(snap.path, snap.mode)
			if err != nil {
				return err
			}
			if eo == nil {
				eo = checkExpectations(bound{snap.path, now.hash, now.fp}, snap.hash, snap.fp)
			}
			if eo != nil {
				return fail(eo)
			}
		}
		en, eo := rd.entry(p.sel.At(k))
		if eo != nil {
			return fail(eo)
		}
		out := expandedEntry(en, p.anchor)
		out.Text = en.Text
		total := jsjson.UTF16Len(en.Text)
		out.TextRange = TextRange{Start: 0, End: total, Total: total, Complete: true}
		res.Visited++
		if more, err := visit(out); err != nil || !more {
			res.Stopped, res.Reasons = true, []string{WalkStopped}
			return err
		}
	}
	res.Complete = true
	return nil
}

// walkBudget is run bounded by Options.WalkTimeout.
func (e *Engine) walkBudget(run context.Context) (context.Context, context.CancelFunc) {
	timeout := e.opt.WalkTimeout
	if timeout == 0 {
		timeout = DefaultWalkTimeout
	}
	if timeout < 0 {
		return context.WithCancel(run)
	}
	return context.WithTimeout(run, timeout)
}

// walkOpen is walkStart, read again while it finds a session bound to no
// version rewritten before its first entry, as an expansion does (see
// rewrittenMeanwhile); once an entry is visited the walk is bound to what
// it read.
func (e *Engine) walkOpen(ctx context.Context, sel expandArgs, none bool) (*preparedExpand, *entryReader, *ErrorObject, error) {
	for try := 1; ; try++ {
		p, rd, eo, err := e.walkStart(ctx, sel, none)
		if err != nil || eo == nil || !rewrittenMeanwhile(&sel, eo) || try == maxExpandTries {
			return p, rd, eo, err
		}
	}
}

// walkStart reads a walk's session, resolves its selection (the whole
// session when none is the request has no selector) and opens its
// entries. A nil reader without an error object means nothing to walk.
func (e *Engine) walkStart(ctx context.Context, sel expandArgs, none bool) (*preparedExpand, *entryReader, *ErrorObject, error) {
	p, page, err := e.prepareExpand(ctx, &sel)
	if err != nil {
		return nil, nil, nil, err
	}
	if p == nil {
		if page.Error != nil {
			return nil, nil, page.Error, nil
		}
		if !none || page.EntryCount == nil || *page.EntryCount == 0 {
			return nil, nil, nil, nil
		}
		// No selector: the whole session.
		sel.EntryRange = &Range{First: 0, Last: *page.EntryCount - 1}
		sel.ExpectedSourceHash, sel.ExpectedLineageFingerprint = page.SourceHash, page.LineageFingerprint
		sel.Session, sel.Branches = page.Session, Branches(page.Branches)
		p, page, err = e.prepareExpand(ctx, &sel)
		if err != nil {
			return nil, nil, nil, err
		}
		if p == nil {
			return nil, nil, page.Error, nil
		}
	}
	if p.opts.entryOffset > p.sel.Len() {
		n := p.snap.count()
		return nil, nil, &ErrorObject{Code: coverage.IndexOutOfBounds, EntryCount: &n,
			Message: "entryOffset is past the selected entries."}, nil
	}
	if afterSnapshot != nil {
		afterSnapshot()
	}
	rd, eo := p.snap.open()
	if eo != nil {
		return nil, nil, eo, nil
	}
	return p, rd, nil, nil
}

// changed reports whether snap's source no longer has the stat identity it
// was read with (or cannot be stat'ed).
func changed(snap *snapshot) bool {
	id, err := index.StatIdentity(snap.path)
	return err != nil || id != snap.id
}
