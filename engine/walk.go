package engine

import (
	"context"
	"errors"
	"time"

	"github.com/memidx/memidx/coverage"
	"github.com/memidx/memidx/index"
	"github.com/memidx/memidx/jsjson"
)

// WalkResult is what a walk did.
type WalkResult struct {
	Visited int  `json:"visited"`
	Stopped bool `json:"stopped"`
	// Complete is false when the selection was not all visited: a budget
	// ended the walk (Reasons names it: WalkDeadline) or it failed
	// (Reasons holds Error's code).
	Complete bool         `json:"complete"`
	Reasons  []string     `json:"reasons"`
	Error    *ErrorObject `json:"error,omitempty"`
}

// WalkDeadline is the reason of a walk that its time budget ended: the
// context's deadline or Options.WalkTimeout, whichever comes first. The
// entries visited before it are whole; the ones after were not visited.
const WalkDeadline = "walk_deadline"

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
// text, with the metadata expansion returns. visit returning false stops
// the walk; its error ends the walk and is returned as is. Domain failures
// are results, as everywhere in engine: a request the walk cannot take
// (invalid_request, index_out_of_bounds) or a provider failure
// (stale_pointer, address_not_found, …) comes back in WalkResult.Error,
// with Complete false and the code as its reason. The whole walk is bound to the source hash and lineage
// of its first read, so a session that changes mid-walk answers
// stale_pointer instead of mixing two versions. (A walk bound to no
// version that finds its session rewritten before its first entry reads
// it again, as Expand does.)
//
// A walk reads the session once and costs what it visits: it does not page
// through expansion responses. The context is checked before every entry:
// cancelling it stops the walk at once, with the entries visited so far and
// ctx.Err(). A deadline (the context's, or Options.WalkTimeout) ends the
// walk as a result, not an error: Complete false and the reason
// WalkDeadline.
func (e *Engine) Walk(ctx context.Context, req ExpandRequest, visit func(ExpandedEntry) (bool, error)) (*WalkResult, error) {
	sel := req.args()
	res := &WalkResult{Complete: true, Reasons: []string{}}
	fail := func(eo *ErrorObject) (*WalkResult, error) {
		res.Error, res.Complete, res.Reasons = eo, false, []string{eo.Code}
		return res, nil
	}
	if sel.TextOffset != nil && *sel.TextOffset != 0 {
		return fail(badRequest("walk starts from an original selection: textOffset must be 0"))
	}
	none := !sel.hasSelector()
	if none && (sel.EntryOffset != nil || sel.Before != nil || sel.After != nil) {
		return fail(badRequest("entryOffset, before and after need a selection"))
	}
	timeout := e.opt.WalkTimeout
	if timeout == 0 {
		timeout = DefaultWalkTimeout
	}
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	ended := func(err error) (*WalkResult, error) {
		if errors.Is(err, context.DeadlineExceeded) {
			res.Complete = false
			res.Reasons = []string{WalkDeadline}
			return res, nil
		}
		return res, err
	}
	if err := ctx.Err(); err != nil {
		return ended(err)
	}
	// A walk bound to no version that finds its session rewritten before
	// its first entry starts again, as an expansion does (see
	// rewrittenMeanwhile); once an entry is visited it is bound to what
	// it read.
	var p *preparedExpand
	var rd *entryReader
	for try := 1; ; try++ {
		var eo *ErrorObject
		var err error
		p, rd, eo, err = e.walkStart(ctx, sel, none)
		if err != nil {
			return nil, err
		}
		if eo == nil {
			break
		}
		if !rewrittenMeanwhile(&sel, eo) || try == maxExpandTries {
			return fail(eo)
		}
	}
	if rd == nil {
		return res, nil // nothing selected
	}
	snap := p.snap
	rec := &index.Record{Path: snap.path}
	defer rd.close()
	for k := p.opts.entryOffset; k < p.sel.Len(); k++ {
		if err := ctx.Err(); err != nil {
			return ended(err)
		}
		if k > p.opts.entryOffset && (k-p.opts.entryOffset)%walkCheckEvery == 0 && changed(snap) {
			// The file changed since it was read: is it still the
			// version the walk is bound to?
			now, eo, err := e.readSnapshot(snap.path, snap.mode)
			if err != nil {
				return res, err
			}
			if eo != nil {
				return fail(eo)
			}
			rec.SourceHash, rec.LineageFingerprint = now.hash, now.fp
			if eo := checkExpectations(rec, snap.hash, snap.fp); eo != nil {
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
		more, err := visit(out)
		if err != nil {
			return res, err
		}
		if !more {
			res.Stopped = true
			return res, nil
		}
	}
	return res, nil
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
