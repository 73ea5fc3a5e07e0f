package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/memidx/memidx/internal/coverage"
	"github.com/memidx/memidx/internal/index"
	"github.com/memidx/memidx/internal/jsjson"
	"github.com/memidx/memidx/internal/lineage"
	"github.com/memidx/memidx/internal/normalize"
	"github.com/memidx/memidx/internal/search"
	"github.com/memidx/memidx/internal/session/scopes"
)

// Per-call candidate budgets (package search holds them).
const (
	MaxEntryCandidates  = search.MaxEntryCandidates
	MaxDigestCandidates = search.MaxDigestCandidates
	MaxRankedItems      = search.MaxRankedItems
)

// recallQuery is a validated request.
type recallQuery struct {
	req          recallArgs
	mode         lineage.Mode
	scope        string
	plan         search.Plan
	filt         search.Filters
	offset       int
	pageSize     int
	snippetChars int
}

// prepareRecall validates a request. Every caller mistake is an
// invalid_request (or index_out_of_bounds) error, never a silent default.
func (e *Engine) prepareRecall(req recallArgs) (*recallQuery, *ErrorObject) {
	q := &recallQuery{req: req}
	mode, err := lineage.ParseMode(string(req.Branches))
	if err != nil {
		return nil, &ErrorObject{Code: coverage.InvalidRequest, Message: err.Error()}
	}
	q.mode = mode
	q.scope = string(req.Scope)
	if q.scope == "" {
		q.scope = "session"
	}
	q.req.Scope = Scope(q.scope)
	q.req.Branches = Branches(mode)
	switch req.QueryMode {
	case "", "literal", "phrase", "regex", "natural":
	default:
		return nil, badRequest("queryMode must be literal, natural, phrase or regex, not %q", req.QueryMode)
	}
	if q.req.QueryMode == "" {
		q.req.QueryMode = "literal"
	}
	switch req.QueryMatch {
	case "", "any", "all":
	default:
		return nil, badRequest("queryMatch must be any or all, not %q", req.QueryMatch)
	}
	if req.QueryMatch != "" && q.req.QueryMode != "literal" && !(q.req.QueryMode == "natural" && req.QueryMatch == "any") {
		return nil, badRequest("queryMatch is only valid with literal queryMode (natural takes any)")
	}
	if q.req.QueryMode == "literal" && q.req.QueryMatch == "" {
		q.req.QueryMatch = "any"
	}
	if req.Query != nil && jsjson.UTF16Len(*req.Query) > MaxQueryChars {
		return nil, badRequest("query is %d characters; the limit is %d", jsjson.UTF16Len(*req.Query), MaxQueryChars)
	}
	if (req.ExpectedSourceHash != "" || req.ExpectedLineageFingerprint != "") && !strings.HasPrefix(q.scope, "session:") {
		return nil, badRequest("memory.recall integrity expectations require scope session:<id-or-path>")
	}
	if req.Outcome != nil && !normalize.ValidOutcome(*req.Outcome) {
		return nil, badRequest("outcome must be succeeded, failed, aborted or timed_out, not %q", *req.Outcome)
	}
	if req.Role != nil && !validRole(*req.Role) {
		return nil, badRequest("unknown role %q", *req.Role)
	}
	if eo := checkTimeBounds(req.Since, req.Until); eo != nil {
		return nil, eo
	}
	if req.EntryRange != nil {
		if !strings.HasPrefix(q.scope, "session:") {
			return nil, badRequest("entryRange requires scope session:<id-or-path>")
		}
		if eo := req.EntryRange.check(); eo != nil {
			return nil, eo
		}
	}
	if req.Context != nil {
		if eo := req.Context.check(); eo != nil {
			return nil, eo
		}
		if req.Context.Next == 0 {
			q.req.Context = nil // the default, spelt out
		}
	}
	q.offset = intArg(req.Offset, 0, 0, min(1<<53-1, math.MaxInt)) // a JS safe integer, or what int holds
	q.pageSize = intArg(req.PageSize, DefaultPageSize, 1, MaxPageSize)
	q.snippetChars = intArg(req.SnippetChars, DefaultSnippetChars, MinSnippetChars, MaxSnippetChars)
	q.req.PageSize = ptrF(float64(q.pageSize))
	q.req.SnippetChars = ptrF(float64(q.snippetChars))

	q.filt = filtersOf(req)
	query := ""
	if req.Query != nil {
		query = *req.Query
	}
	var eo *ErrorObject
	q.plan, eo = e.plan(query, q.req.QueryMode, q.req.QueryMatch)
	return q, eo
}

// filtersOf is a request's structural and time filters.
func filtersOf(req recallArgs) search.Filters {
	var f search.Filters
	for _, k := range [...]struct {
		prefix string
		v      *string
	}{
		{normalize.KeyRole, req.Role},
		{normalize.KeyTool, req.Tool},
		{normalize.KeyRef, req.Ref},
		{normalize.KeyProvider, req.Provider},
		{normalize.KeyAction, req.Action},
		{normalize.KeyOutcome, req.Outcome},
	} {
		if k.v != nil {
			f.Keys = append(f.Keys, k.prefix+*k.v)
			f.Operational = f.Operational || k.prefix != normalize.KeyRole
		}
	}
	f.Since, f.Until = req.Since, req.Until
	return f
}

// plan is search's plan of query in mode (and match), with the engine's
// configuration; an invalid or oversized pattern is a regex plan without
// its pattern, and its error.
func (e *Engine) plan(query string, mode QueryMode, match QueryMatch) (search.Plan, *ErrorObject) {
	nc := e.cfg.Natural
	p, cerr := search.PlanOf(query, search.Planning{
		Mode:  string(mode),
		All:   match == "all",
		Regex: e.regexLimits(),
		Natural: search.NaturalFields{
			Canonical: search.Field{Weight: nc.CanonicalWeight, B: nc.CanonicalB},
			Stem:      search.Field{Weight: nc.StemWeight, B: nc.StemB},
		},
	})
	return p, codedError(cerr)
}

func ptrF(f float64) *float64 { return &f }

func badRequest(format string, a ...any) *ErrorObject {
	return &ErrorObject{Code: coverage.InvalidRequest, Message: fmt.Sprintf(format, a...)}
}

// Recall locates ranked, bounded evidence. Domain failures (a bad request,
// an unknown or ambiguous session, a stale pointer) come back as a page
// with Error set; a Go error means the engine itself failed. An index file,
// or a session's tier data, found damaged while answering is dropped and
// the call answers again from a rebuilt index (reason index_reset).
func (e *Engine) Recall(ctx context.Context, req RecallRequest) (*RecallPage, error) {
	return guard(e, ctx, func(ctx context.Context) (*RecallPage, error) { return e.recall(ctx, req.args()) })
}

func (e *Engine) recall(ctx context.Context, req recallArgs) (*RecallPage, error) {
	q, eo := e.prepareRecall(req)
	if eo != nil && eo.Code != coverage.InvalidRegex && eo.Code != coverage.RegexPatternTooLarge {
		return e.withNotices(failurePage(eo)), nil
	}
	if eo := e.checkLive(req.Live); eo != nil {
		return e.withNotices(failurePage(eo)), nil
	}
	// The stored records are decoded while the files are listed.
	pre := e.preload(ctx, q)
	r, err := e.resolve(q.scope, q.mode)
	if err != nil {
		if eo := DomainError(err); eo != nil {
			return e.withNotices(failurePage(eo)), nil
		}
		return nil, err
	}
	r.pre = pre
	single := (r.scope.Kind == scopes.ScopeSessionTarget || r.scope.Kind == scopes.ScopeSession) && len(r.targets) == 1
	// An invalid or oversized pattern searches nothing.
	sq := e.searchQuery(q, single, eo != nil)
	res, reasons, err := search.Recall(ctx, e.ix, e.need(r, true), sq)
	if res != nil {
		lexiconUses.Add(int64(res.LexiconRuns))
	}
	if err != nil || res == nil {
		return nil, err
	}
	page := e.pageOf(q, r, res, single, eo)
	markIncomplete(&page.Coverage.Reasons, &page.Coverage.Complete, reasons...)
	page.Notices = append(page.Notices, r.notices...)
	return e.withNotices(page), nil
}

// preload starts reading the stored records of q's branch mode (see
// index.Preload): for a global scope, by key (index.PreloadArchive),
// since nearly every record will be a target's.
func (e *Engine) preload(ctx context.Context, q *recallQuery) *index.Preloaded {
	if sc, err := scopes.ParseScope(q.scope); err == nil && sc.Kind == scopes.ScopeGlobal {
		return e.ix.PreloadArchive(ctx, q.mode)
	}
	return e.ix.Preload(ctx, q.mode)
}

// searchQuery is q as search ranks it.
func (e *Engine) searchQuery(q *recallQuery, single, unsearched bool) search.Query {
	sq := search.Query{Plan: q.plan, Filters: q.filt, Offset: q.offset, PageSize: q.pageSize,
		Unsearched: unsearched, Single: single, Docs: e.docMemo(), NoLexicon: noLexicon,
		Expect: search.Expect{SourceHash: q.req.ExpectedSourceHash, LineageFingerprint: q.req.ExpectedLineageFingerprint}}
	if rg := q.req.EntryRange; rg != nil {
		sq.Range = &search.Range{First: int(rg.First), Last: int(rg.Last)}
	}
	if c := q.req.Context; c != nil {
		sq.Context = c.Next
	}
	return sq
}

// withNotices adds the notices not yet shown to page, before its own.
func (e *Engine) withNotices(page *RecallPage) *RecallPage {
	if n := e.noticesOnce(); n != nil {
		page.Notices = slices.Concat(n, page.Notices)
	}
	if page.Notices != nil {
		fitEnvelope(page)
	}
	return page
}

// need is what a call over r needs of the index; a recall (fallback)
// answers from the sources when the index cannot be read at all.
func (e *Engine) need(r *resolved, fallback bool) index.Need {
	return index.Need{
		Targets:            r.targets,
		Refresh:            e.refreshOptions(r),
		Archive:            e.scopeResolver(),
		Fallback:           fallback,
		HotSessions:        e.cfg.HotSessions,
		MaxSyncSourceBytes: int64(e.cfg.MaxSyncSourceBytes),
		BeforeRead:         beforeSearch,
	}
}

// mergeReasons is the sorted union of list and add.
func mergeReasons(list []string, add ...string) []string {
	set := coverage.Of(list...)
	set.Merge(coverage.Of(add...))
	return set.Reasons()
}

// markIncomplete adds reasons to a coverage's, which is then not
// complete (nothing to do without reasons).
func markIncomplete(reasons *[]string, complete *bool, add ...string) {
	if len(add) > 0 {
		*reasons = mergeReasons(*reasons, add...)
		*complete = false
	}
}

// beforeSearch, when set (by tests only), runs between a recall's refresh
// and its search: where another process may rewrite a session.
var beforeSearch func()

// pageOf is the page of a recall's last try: the empty answer of a
// pattern that did not compile (eo), a single session's failure, or
// the ranked hits.
func (e *Engine) pageOf(q *recallQuery, r *resolved, res *search.Page, single bool, eo *ErrorObject) *RecallPage {
	scopeReasons := r.res.Reasons
	switch {
	case eo != nil:
		// Nothing was searched, and the empty answer says so.
		cov := coverageFrom(res.Coverage, append(slices.Clip(scopeReasons), eo.Code), &ErrorObject{Code: eo.Code, Message: eo.Message})
		return &RecallPage{Hits: []Hit{}, Coverage: cov, Error: eo}
	case res.SingleErr != nil:
		return failurePage(&ErrorObject{Code: coverage.SourceUnavailable, Message: res.SingleErr.Error(), SessionFile: r.targets[0].Path})
	case single && res.One == nil:
		// The record answered from (the refresh's, a fresh read of the
		// source, or a read again after another process rewrote it) is
		// gone.
		return failurePage(&ErrorObject{Code: coverage.SourceUnavailable, Message: "session changed and could not be read again", SessionFile: r.targets[0].Path})
	case single:
		if eo := checkSingle(res.One, q.req); eo != nil {
			return failurePage(eo)
		}
	}
	page := e.buildPage(q, res, r.archive)
	page.Coverage = coverageFrom(res.Coverage, append(slices.Clip(scopeReasons), res.Reasons...), codedError(res.QueryErr))
	fitEnvelope(page)
	return page
}

// checkSingle checks a single-session request's bindings and entry range
// against the session's record.
func checkSingle(rec *index.Record, req recallArgs) *ErrorObject {
	if eo := checkExpectations(boundOf(rec), req.ExpectedSourceHash, req.ExpectedLineageFingerprint); eo != nil {
		return eo
	}
	if req.EntryRange != nil {
		return req.EntryRange.within(int(rec.EntryCount))
	}
	return nil
}

// staleHint follows every stale_pointer's message: a pointer is bound to
// the session as it was, and only the call that issued it can issue a
// fresh one.
const staleHint = "The session changed since the pointer was issued; run the call that produced the pointer (the recall whose hit or next it is) again for a fresh one."

// bound is what a pointer's bindings are checked against: a session's
// path, source hash and lineage fingerprint (hex) as they are now.
type bound struct{ path, hash, fp string }

// boundOf is rec's bound.
func boundOf(rec *index.Record) bound {
	return bound{rec.Path, rec.SourceHash.String(), rec.LineageFingerprint().String()}
}

// checkExpectations compares a pointer's bindings with the session now.
func checkExpectations(now bound, hash, fp string) *ErrorObject {
	if hash == "" && fp == "" {
		return nil
	}
	eo := &ErrorObject{Code: coverage.StalePointer, Hint: staleHint, SessionFile: now.path,
		ExpectedSourceHash: hash, ExpectedLineageFingerprint: fp}
	ah, af := now.hash, now.fp
	eo.ActualSourceHash = &ah
	if fp != "" {
		eo.ActualLineageFingerprint = &af
	}
	switch {
	case fp != "" && fp != af:
		eo.Message = "Session active lineage changed after the pointer was issued."
	case hash != "" && hash != ah:
		eo.Message = "Session source changed after the pointer was issued."
	default:
		return nil
	}
	return eo
}

// checkLive refuses a request that carries a live session other than the
// host's. The live session names a file to read and a branch to trust, so
// it comes from the host (Options.Live: the Go API, the CLI's --live-*
// flags, serve's host.setLive), never from request arguments a model may
// have written; a request may only repeat what the host set.
func (e *Engine) checkLive(l *StaticLive) *ErrorObject {
	if l == nil {
		return nil
	}
	if e.opt.Live != nil && e.sameLive(*l) {
		return nil
	}
	return badRequest("live is set by the host (engine.Options.Live, the CLI's --live-session flags, serve's host.setLive), never by a request; drop the live argument")
}

// sameLive reports whether l names the host's live session exactly.
func (e *Engine) sameLive(l StaticLive) bool {
	h := e.opt.Live
	return l.File != "" && absFrom(e.env.Cwd, l.File) == absFrom(e.env.Cwd, h.SessionFile()) &&
		l.Leaf == h.LeafID() && slices.Equal(l.Branch, h.BranchIDs())
}

// canonicalArgs is the request as next and cold follow calls repeat it.
func canonicalArgs(q *recallQuery) recallArgs {
	a := q.req
	a.Offset = nil
	a.Live = nil
	if a.QueryMode != "literal" {
		a.QueryMatch = ""
	}
	return a
}

func marshalArgs(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // only plain structs are marshalled here
	}
	return b
}

// buildPage pages the ranked stream into hits under the envelope. An
// offset past the end is an empty page with the total, as the reference
// answers it. Hits carry their session's title, and in a global recall
// (archive) an entry hit its project directory: the caller's is not the
// hit's.
func (e *Engine) buildPage(q *recallQuery, res *search.Page, archive bool) *RecallPage {
	total := res.Total
	page := &RecallPage{Total: total, Hits: []Hit{}}
	base := canonicalArgs(q)
	if rec := res.One; rec != nil {
		base.Scope = ScopeOf(rec.Path)
		base.ExpectedSourceHash = rec.SourceHash.String()
		base.ExpectedLineageFingerprint = rec.LineageFingerprint().String()
	}
	titles := e.titles()
	for i := range res.Hits {
		ph := &res.Hits[i]
		if ph.Entry {
			h := entryHit(q, ph)
			h.Title = titles.of(ph.Rec.Path)
			if archive {
				h.Cwd = boundString(ph.Rec.Cwd(), 2048)
			}
			page.Hits = append(page.Hits, Hit{Entry: h})
		} else {
			h := sessionHit(q, ph)
			h.Title = titles.of(ph.Rec.Path)
			page.Hits = append(page.Hits, Hit{Session: h})
		}
	}
	if res.Measured {
		page.weakBelow = e.cfg.WeakMatchBelow
		page.setQueryCoverage()
	}
	next := func(n int) *FabricCall {
		if q.offset+n >= total {
			return nil
		}
		a := base
		a.Offset = ptrF(float64(q.offset + n))
		return &FabricCall{Ref: "memory.recall", Args: marshalArgs(a)}
	}
	page.Next = next(len(page.Hits))
	page.nextFor = next
	return page
}

// entryHit is the hit of an entry search read, with its snippet, context
// and follow call.
func entryHit(q *recallQuery, ph *search.PageHit) *EntryHit {
	st, rec := &ph.Stored, ph.Rec
	h := &EntryHit{
		SessionID:     boundString(rec.SessionID(), 512),
		Tier:          ph.Tier.String(),
		Index:         ph.Index,
		Type:          st.Type,
		IsError:       st.IsError,
		Score:         ph.Score,
		Outcome:       st.Outcome,
		QueryCoverage: ph.QueryCoverage,
	}
	if h.Type == "" {
		h.Type = "entry"
	}
	opt := func(s string, has bool) *string {
		if !has {
			return nil
		}
		v := boundString(s, 512)
		return &v
	}
	h.EntryID = opt(st.EntryID, st.HasEntryID)
	h.ParentID = opt(st.ParentID, st.HasParentID)
	h.OperationAddress = opt(st.OperationAddress, st.OperationAddress != "")
	h.Role = opt(st.Role, st.Role != "")
	h.Tool = opt(st.Tool, st.Tool != "")
	h.Ref = opt(st.Ref, st.Ref != "")
	h.Provider = opt(st.Provider, st.Provider != "")
	h.Action = opt(st.Action, st.Action != "")
	if st.HasTimestamp {
		ts := st.Timestamp
		h.Timestamp = &ts
	}
	h.Snippet, h.Truncated = makeSnippet(st.Text, ph.Anchor, q.snippetChars)
	h.Truncated = h.Truncated || st.Truncated
	follow := expandArgs{
		Session:                    rec.Path,
		ExpectedSourceHash:         rec.SourceHash.String(),
		ExpectedLineageFingerprint: rec.LineageFingerprint().String(),
		Branches:                   Branches(q.mode),
		Indices:                    []int64{int64(ph.Index)},
	}
	if q.req.Context != nil {
		h.Context = hitContext(ph.Context, q.snippetChars)
		if n := int64(len(h.Context.Next)); n > 0 {
			follow.After = &n
		}
	}
	h.Follow = FabricCall{Ref: "memory.expand", Args: marshalArgs(follow)}
	return h
}

// hitContext is the context of an entry hit: the entries after it, as
// snippets from their start.
func hitContext(next []search.ContextEntry, snippetChars int) *HitContext {
	c := &HitContext{Next: []ContextEntry{}}
	for i := range next {
		st := &next[i].Stored
		ce := ContextEntry{Index: next[i].Index}
		if st.HasEntryID {
			id := boundString(st.EntryID, 512)
			ce.EntryID = &id
		}
		if st.Role != "" {
			r := boundString(st.Role, 512)
			ce.Role = &r
		}
		ce.Snippet, ce.Truncated = makeSnippet(st.Text, 0, snippetChars)
		ce.Truncated = ce.Truncated || st.Truncated
		c.Next = append(c.Next, ce)
	}
	return c
}

// sessionHit is the hit of a cold session, with its follow call: a recall
// of that session.
func sessionHit(q *recallQuery, ph *search.PageHit) *SessionHit {
	rec := ph.Rec
	a := canonicalArgs(q)
	a.EntryRange = nil
	a.Scope = ScopeOf(rec.Path)
	a.ExpectedSourceHash = rec.SourceHash.String()
	a.ExpectedLineageFingerprint = rec.LineageFingerprint().String()
	return &SessionHit{
		SessionID:                boundString(rec.SessionID(), 512),
		Tier:                     index.Cold.String(),
		Cwd:                      boundString(rec.Cwd(), 2048),
		LastTimestamp:            rec.LastTs().Ptr(),
		Score:                    ph.Score,
		MatchedTerms:             ph.Matched,
		MatchedStructuralEntries: ph.MatchedS,
		QueryCoverage:            ph.QueryCoverage,
		Follow:                   FabricCall{Ref: "memory.recall", Args: marshalArgs(a)},
	}
}
