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
	"github.com/memidx/memidx/internal/session"
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
	switch {
	case strings.TrimSpace(query) == "":
		return search.Plan{Kind: search.PlanBrowse}, nil
	case mode == "regex":
		m, cerr := e.compileRegex(query)
		if cerr != nil {
			return search.Plan{Kind: search.PlanRegex}, codedError(cerr)
		}
		return search.Plan{Kind: search.PlanRegex, Regex: m}, nil
	case mode == "phrase":
		return search.PhrasePlan(query), nil
	case mode == "natural":
		nc := e.cfg.Natural
		return search.NaturalPlan(query, search.NaturalFields{
			Canonical: search.Field{Weight: nc.CanonicalWeight, B: nc.CanonicalB},
			Stem:      search.Field{Weight: nc.StemWeight, B: nc.StemB},
		}), nil
	}
	return search.LiteralPlan(query, match == "all"), nil
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
	pre := e.ix.Preload(ctx, q.mode)
	r, err := e.resolve(q.scope, q.mode)
	if err != nil {
		if eo := DomainError(err); eo != nil {
			return e.withNotices(failurePage(eo)), nil
		}
		return nil, err
	}
	r.pre = pre
	c := &recallSearch{ctx: ctx, e: e, q: q, req: req, r: r, patternErr: eo,
		single: (r.scope.Kind == session.ScopeSessionTarget || r.scope.Kind == session.ScopeSession) && len(r.targets) == 1}
	need := e.need(r, true)
	need.Single = c.single
	// An invalid or oversized pattern searches nothing.
	need.RecordsOnly = eo != nil
	_, reasons, err := search.Acquire(ctx, e.ix, need, c.answer)
	page := c.page
	if err != nil || page == nil {
		return nil, err
	}
	markIncomplete(&page.Coverage.Reasons, &page.Coverage.Complete, reasons...)
	page.Notices = append(page.Notices, r.notices...)
	return e.withNotices(page), nil
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

// need is what a call over r needs of the index, with its refresh; a
// recall (fallback) answers from the sources when the index cannot be
// read at all.
func (e *Engine) need(r *resolved, fallback bool) search.Need {
	return search.Need{
		Mode:    r.mode,
		Targets: r.targets,
		Refresh: func(ctx context.Context, first bool) (*index.Report, error) {
			if !first {
				r.pre = nil // read before the try that failed
			}
			return e.refresh(ctx, r, false, nil)
		},
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

// recallSearch is one recall: its request, and the page its last try
// answered.
type recallSearch struct {
	ctx        context.Context
	e          *Engine
	q          *recallQuery
	req        recallArgs
	r          *resolved
	patternErr *ErrorObject // an invalid or oversized regex
	single     bool
	page       *RecallPage
}

// answer is one try of the recall over a's sources: it checks a single
// session's bindings against the record answered from, makes every state
// a source, ranks them and builds the page.
func (c *recallSearch) answer(a *search.Acquired) ([]*index.Record, error) {
	q, r, rep := c.q, c.r, a.Report
	scopeReasons := r.res.Reasons
	if eo := c.patternErr; eo != nil {
		// Nothing was searched, and the empty answer says so.
		cov := coverageFrom(rep.Coverage, append(slices.Clip(scopeReasons), eo.Code), &ErrorObject{Code: eo.Code, Message: eo.Message})
		c.page = &RecallPage{Hits: []Hit{}, Coverage: cov, Error: eo}
		return nil, nil
	}
	if a.SingleErr != nil {
		c.page = failurePage(&ErrorObject{Code: coverage.SourceUnavailable, Message: a.SingleErr.Error(), SessionFile: r.targets[0].Path})
		return nil, nil
	}
	s := search.New(c.ctx, q.plan, q.filt, c.e.docMemo())
	s.NoLexicon = noLexicon
	defer s.Release()
	a.Open(s)
	if c.single {
		// The record answered from: the refresh's, a fresh read of the
		// source, or a read again after another process rewrote it.
		rec := rep.States[0].Record
		if rec == nil {
			c.page = failurePage(&ErrorObject{Code: coverage.SourceUnavailable, Message: "session changed and could not be read again", SessionFile: r.targets[0].Path})
			return s.Broken, nil
		}
		if eo := checkSingle(rec, c.req); eo != nil {
			c.page = failurePage(eo)
			return s.Broken, nil
		}
	}
	// Keep the sources in scope order (newest first), whatever order the
	// index walk found them in.
	search.SortByState(rep, s.Cold)
	if c.req.EntryRange != nil && len(s.Hot) == 1 {
		s.Hot[0].First, s.Hot[0].Last = int(c.req.EntryRange.First), int(c.req.EntryRange.Last)
	}
	items, total := s.Run(q.offset + q.pageSize)
	page, err := c.e.buildPage(q, r, rep, s, items, total, c.single)
	s.CheckSources()
	if err != nil {
		return s.Broken, err
	}
	if s.LexiconAnswered {
		lexiconUses.Add(1)
	}
	page.Coverage = coverageFrom(rep.Coverage, append(slices.Clip(scopeReasons), s.Reasons.Reasons()...), codedError(s.QueryErr))
	fitEnvelope(page)
	c.page = page
	return s.Broken, nil
}

// checkSingle checks a single-session request's bindings and entry range
// against the session's record.
func checkSingle(rec *index.Record, req recallArgs) *ErrorObject {
	if eo := checkExpectations(rec, req.ExpectedSourceHash, req.ExpectedLineageFingerprint); eo != nil {
		return eo
	}
	if req.EntryRange != nil {
		return req.EntryRange.within(rec.EntryCount)
	}
	return nil
}

// staleHint follows every stale_pointer's message: a pointer is bound to
// the session as it was, and only the call that issued it can issue a
// fresh one.
const staleHint = "The session changed since the pointer was issued; run the call that produced the pointer (the recall whose hit or next it is) again for a fresh one."

// checkExpectations compares a pointer's bindings with the session now.
func checkExpectations(rec *index.Record, hash, fp string) *ErrorObject {
	if hash == "" && fp == "" {
		return nil
	}
	eo := &ErrorObject{Code: coverage.StalePointer, Hint: staleHint, SessionFile: rec.Path,
		ExpectedSourceHash: hash, ExpectedLineageFingerprint: fp}
	ah, af := rec.SourceHash, rec.LineageFingerprint
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

// buildPage pages the ranked stream into hits under the envelope.
func (e *Engine) buildPage(q *recallQuery, r *resolved, rep *index.Report, s *search.Searcher, items []search.Item, total int, single bool) (*RecallPage, error) {
	// An offset past the end is an empty page with the total, as the
	// reference answers it: the loop below then adds nothing.
	page := &RecallPage{Total: total, Hits: []Hit{}}
	end := min(q.offset+q.pageSize, total)
	base := canonicalArgs(q)
	if len(rep.States) == 1 && rep.States[0].Record != nil {
		rec := rep.States[0].Record
		base.Scope = ScopeOf(rec.Path)
		base.ExpectedSourceHash = rec.SourceHash
		base.ExpectedLineageFingerprint = rec.LineageFingerprint
	}
	anchorTerms := q.plan.TokenMatcher()
	qc, measured := s.Coverage()
	titles := sessionTitles{}
	for i := q.offset; i < end; i++ {
		it := &items[i]
		if it.Entry {
			h, err := e.entryHit(q, s, it, anchorTerms, qc)
			if err != nil {
				// Damaged shard data: leave the hit out, say so, and let
				// the next refresh rebuild the session.
				s.Fail(s.Hot[it.Src].Rec)
				continue
			}
			rec := s.Hot[it.Src].Rec
			h.Title = titles.of(rec.Path)
			if r.archive {
				h.Cwd = boundString(rec.Cwd, 2048) // the caller's project is not the hit's
			}
			page.Hits = append(page.Hits, Hit{Entry: h})
		} else {
			h := e.sessionHit(q, s, it)
			h.Title = titles.of(s.Cold[it.Src].Rec.Path)
			if measured {
				h.QueryCoverage = ptrF(qc.Session(it))
			}
			page.Hits = append(page.Hits, Hit{Session: h})
		}
	}
	if measured {
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
	return page, nil
}

func (e *Engine) entryHit(q *recallQuery, s *search.Searcher, it *search.Item, terms func(tok string) bool, qc *search.Coverage) (*EntryHit, error) {
	src := &s.Hot[it.Src]
	st, err := src.Shard.Entry(it.Index)
	if err != nil {
		return nil, err
	}
	h := &EntryHit{
		Kind:      "entry",
		SessionID: boundString(src.Rec.SessionID, 512),
		Tier:      src.Tier,
		Index:     it.Index,
		Type:      st.Type,
		IsError:   st.IsError,
		Score:     it.Score,
		Outcome:   st.Outcome,
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
	if qc != nil {
		h.QueryCoverage = ptrF(qc.Entry(st.IndexText()))
	}
	anchor := 0
	switch q.plan.Kind {
	case search.PlanTerms, search.PlanPhrase:
		anchor = anchorOf(st.Text, terms)
	case search.PlanRegex:
		anchor = s.RegexAnchor(st.Text)
	}
	h.Snippet, h.Truncated = makeSnippet(st.Text, anchor, q.snippetChars)
	h.Truncated = h.Truncated || st.Truncated
	follow := expandArgs{
		Session:                    src.Rec.Path,
		ExpectedSourceHash:         src.Rec.SourceHash,
		ExpectedLineageFingerprint: src.Rec.LineageFingerprint,
		Branches:                   Branches(q.mode),
		Indices:                    []int64{int64(it.Index)},
	}
	if c := q.req.Context; c != nil {
		var err error
		if h.Context, err = nextContext(src, it.Index, c.Next, q.snippetChars); err != nil {
			return nil, err
		}
		if n := int64(len(h.Context.Next)); n > 0 {
			follow.After = &n
		}
	}
	h.Follow = FabricCall{Ref: "memory.expand", Args: marshalArgs(follow)}
	return h, nil
}

// nextContext is the context of entry i of src: up to n entries after it
// (within the request's entryRange), as snippets from their start.
func nextContext(src *search.HotSource, i, n, snippetChars int) (*HitContext, error) {
	c := &HitContext{Next: []ContextEntry{}}
	for j := i + 1; j <= i+n && j < src.Shard.Len() && (src.First < 0 || j <= src.Last); j++ {
		st, err := src.Shard.Entry(j)
		if err != nil {
			return nil, err
		}
		ce := ContextEntry{Index: j}
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
	return c, nil
}

func (e *Engine) sessionHit(q *recallQuery, s *search.Searcher, it *search.Item) *SessionHit {
	c := &s.Cold[it.Src]
	a := canonicalArgs(q)
	a.EntryRange = nil
	a.Scope = ScopeOf(c.Rec.Path)
	a.ExpectedSourceHash = c.Rec.SourceHash
	a.ExpectedLineageFingerprint = c.Rec.LineageFingerprint
	h := &SessionHit{
		Kind:                     "session",
		SessionID:                boundString(c.Rec.SessionID, 512),
		Tier:                     index.Cold,
		Cwd:                      boundString(c.Rec.Cwd, 2048),
		LastTimestamp:            c.Rec.LastTs,
		Score:                    it.Score,
		MatchedTerms:             it.Matched,
		MatchedStructuralEntries: it.MatchedS,
		Follow:                   FabricCall{Ref: "memory.recall", Args: marshalArgs(a)},
	}
	return h
}
