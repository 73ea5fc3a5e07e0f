package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/memidx/memidx/analyzer"
	"github.com/memidx/memidx/coverage"
	"github.com/memidx/memidx/index"
	"github.com/memidx/memidx/jsjson"
	"github.com/memidx/memidx/lineage"
	"github.com/memidx/memidx/normalize"
	"github.com/memidx/memidx/search"
	"github.com/memidx/memidx/session"
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

// validRoles is the closed set of roles an entry can have.
var validRoles = map[string]bool{
	"assistant": true, "bashExecution": true, "branchCustomMessage": true, "branchSummary": true,
	"branchUser": true, "compaction": true, "compactionSummary": true, "custom": true,
	"fabricOperation": true, "fabricPhase": true, "fabricRun": true, "toolResult": true, "user": true,
	"developer": true, "pythonExecution": true, "fileMention": true,
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
	case "", "literal", "phrase", "regex":
	default:
		return nil, badRequest("queryMode must be literal, phrase or regex, not %q", req.QueryMode)
	}
	if q.req.QueryMode == "" {
		q.req.QueryMode = "literal"
	}
	switch req.QueryMatch {
	case "", "any", "all":
	default:
		return nil, badRequest("queryMatch must be any or all, not %q", req.QueryMatch)
	}
	if req.QueryMatch != "" && q.req.QueryMode != "literal" {
		return nil, badRequest("queryMatch is only valid with literal queryMode")
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
	if req.Role != nil && !validRoles[*req.Role] {
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
	q.offset = intArg(req.Offset, 0, 0, min(1<<53-1, math.MaxInt)) // a JS safe integer, or what int holds
	q.pageSize = intArg(req.PageSize, DefaultPageSize, 1, MaxPageSize)
	q.snippetChars = intArg(req.SnippetChars, DefaultSnippetChars, MinSnippetChars, MaxSnippetChars)
	q.req.PageSize = ptrF(float64(q.pageSize))
	q.req.SnippetChars = ptrF(float64(q.snippetChars))

	f := &q.filt
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

	query := ""
	if req.Query != nil {
		query = *req.Query
	}
	switch {
	case strings.TrimSpace(query) == "":
		q.plan.Kind = search.PlanBrowse
	case q.req.QueryMode == "regex":
		q.plan.Kind = search.PlanRegex
		m, cerr := e.compileRegex(query)
		if cerr != nil {
			return q, &ErrorObject{Code: cerr.Code, Message: cerr.Message}
		}
		q.plan.Regex = m
	case q.req.QueryMode == "phrase":
		q.plan.Kind = search.PlanPhrase
		q.plan.Phrase = analyzer.Tokens(strings.TrimSpace(query))
		q.plan.Terms = unique(q.plan.Phrase)
		if len(q.plan.Terms) == 0 {
			q.plan.Kind = search.PlanBrowse
		}
	default:
		q.plan.Kind = search.PlanTerms
		q.plan.Terms = unique(analyzer.Tokens(query))
		q.plan.All = q.req.QueryMatch == "all"
		// Only punctuation leaves no terms: then nothing matches.
	}
	return q, nil
}

func unique(toks []string) []string {
	seen := make(map[string]bool, len(toks))
	var out []string
	for _, t := range toks {
		if !seen[t] {
			seen[t] = true
			out = append(out, strings.Clone(t))
		}
	}
	return out
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
	return e.recall(ctx, req.args())
}

func (e *Engine) recall(ctx context.Context, req recallArgs) (*RecallPage, error) {
	mode, _ := lineage.ParseMode(string(req.Branches)) // checked again by prepareRecall
	page, reasons, err := recovering(ctx, e, mode, true,
		func(how attempt) (*RecallPage, []*index.Record, error) { return e.recallOnce(ctx, req, how) })
	if page != nil {
		markIncomplete(&page.Coverage.Reasons, &page.Coverage.Complete, reasons...)
		if n := e.noticesOnce(); n != nil {
			page.Notices = n
			fitEnvelope(page)
		}
	}
	return page, err
}

// mergeReasons is the sorted union of list and add.
func mergeReasons(list []string, add ...string) []string {
	set := coverage.Of(list...)
	set.Merge(coverage.Of(add...))
	return set.Reasons()
}

// beforeSearch, when set (by tests only), runs between a recall's refresh
// and its search: where another process may rewrite a session.
var beforeSearch func()

func (e *Engine) recallOnce(ctx context.Context, req recallArgs, how attempt) (*RecallPage, []*index.Record, error) {
	memoryOnly := how == fromMemory
	q, eo := e.prepareRecall(req)
	if eo != nil && eo.Code != coverage.InvalidRegex && eo.Code != coverage.RegexPatternTooLarge {
		return failurePage(eo), nil, nil
	}
	if eo := e.checkLive(req.Live); eo != nil {
		return failurePage(eo), nil, nil
	}
	var pre *index.Preloaded
	if !memoryOnly {
		// The stored records are decoded while the files are listed.
		pre = e.ix.Preload(ctx, q.mode)
	}
	r, err := e.resolve(q.scope, q.mode)
	if err != nil {
		if eo := errorObject(err); eo != nil {
			return failurePage(eo), nil, nil
		}
		return nil, nil, err
	}
	r.pre = pre
	var rep *index.Report
	if memoryOnly {
		rep = index.EmptyReport(r.targets, index.IndexUnwritable)
	} else if rep, err = e.refresh(ctx, r, false, nil); err != nil {
		return nil, nil, err
	}
	var scopeReasons []string
	scopeReasons = append(scopeReasons, r.res.Reasons...)
	if eo != nil {
		// An invalid or oversized pattern: nothing was searched, and the
		// empty answer says so.
		cov := coverageFrom(rep.Coverage, append(scopeReasons, eo.Code), &coverage.Error{Code: eo.Code, Message: eo.Message})
		return &RecallPage{Hits: []Hit{}, Coverage: cov, Error: eo}, nil, nil
	}
	single := (r.scope.Kind == session.ScopeSessionTarget || r.scope.Kind == session.ScopeSession) && len(r.targets) == 1

	s := search.New(ctx, q.plan, q.filt, &e.docs)
	s.NoLexicon = noLexicon
	var hydrated *search.HotSource
	if single {
		var eo *ErrorObject
		if hydrated, eo, err = e.hydrateSingle(rep, r, q, req); err != nil {
			return nil, nil, err
		}
		if eo != nil {
			return failurePage(eo), nil, nil
		}
	}
	var checked *index.Record // the single session's record the checks saw
	if single {
		checked = rep.States[0].Record
	}
	// c.mem holds sessions read into memory for this call (a hydrated
	// single session, or every session when the index cannot be used).
	c := &recallSearch{e: e, q: q, req: req, r: r, rep: rep, s: s, single: single,
		mem: map[*index.Record]search.HotSource{}, memCold: map[*index.Record]search.ColdSource{}}
	if hydrated != nil {
		c.mem[hydrated.Rec] = *hydrated
	}
	if err := c.answer(ctx, memoryOnly, hydrated); err != nil {
		return nil, s.Broken, err
	}
	page := c.page
	if single && rep.States[0].Record != checked {
		// Another process rewrote the session after the checks above and
		// the search read it again: the pointer's bindings are checked
		// against what was answered from.
		if rec := rep.States[0].Record; rec == nil {
			return failurePage(&ErrorObject{Code: coverage.SourceUnavailable, Message: "session changed and could not be read again", SessionFile: r.targets[0].Path}), s.Broken, nil
		} else if eo := checkSingle(rec, req); eo != nil {
			return failurePage(eo), s.Broken, nil
		}
	}
	page.Coverage = coverageFrom(rep.Coverage, append(scopeReasons, s.Reasons.Reasons()...), s.QueryErr)
	fitEnvelope(page)
	return page, s.Broken, nil
}

// hydrateSingle reads the single session of a recall from its source when
// the index holds it cold or not at all: a single session is searched
// entry by entry even when it is cold (untruncated text, never
// persisted). The session's record in rep is the one answered from; its
// pointer bindings are checked (eo).
func (e *Engine) hydrateSingle(rep *index.Report, r *resolved, q *recallQuery, req recallArgs) (hydrated *search.HotSource, eo *ErrorObject, err error) {
	if st := rep.States[0]; st.Record == nil || st.Record.Tier == index.Cold {
		h, eo, err := e.hydrate(r.targets[0], q.mode)
		if err != nil || eo != nil {
			return nil, eo, err
		}
		hydrated = h
		rep.Own()
		rep.States[0].Record = h.Rec
		rep.States[0].Reason = ""
		// A fresh read of the source answers for the session.
		rep.Recount()
	}
	return hydrated, checkSingle(rep.States[0].Record, req), nil
}

// answer runs the search where this try's sources are: the sources read
// into memory when the index cannot be used, what the refresh built in
// memory when that is everything the answer needs, or else the index.
func (c *recallSearch) answer(ctx context.Context, memoryOnly bool, hydrated *search.HotSource) error {
	e, rep, mode := c.e, c.rep, c.q.mode
	switch {
	case memoryOnly:
		// The index cannot be used: answer from the sources, read into
		// memory within the sync budget (nothing is persisted).
		c.mem, c.memCold = e.hydrateAll(c.r, rep, mode, hydrated)
		return c.search(&index.Reader{})
	case !needsIndex(rep, rep.Split(), c.mem):
		// Everything this answer needs is in memory: built by this call's
		// refresh, which the index could not take (unwritable, busy,
		// unreadable). No need to read the index, nor the sources again.
		return c.search(&index.Reader{})
	}
	if beforeSearch != nil {
		beforeSearch()
	}
	err := e.ix.ViewAfter(ctx, mode, rep, c.search)
	if c.s.LexDamaged {
		e.ix.ResetLexicon(ctx, mode)
	}
	return err
}

// recallSearch is one recall's search, over the index (or the sources
// read into memory) after its refresh.
type recallSearch struct {
	e       *Engine
	q       *recallQuery
	req     recallArgs
	r       *resolved
	rep     *index.Report
	s       *search.Searcher
	single  bool
	mem     map[*index.Record]search.HotSource
	memCold map[*index.Record]search.ColdSource
	page    *RecallPage // the answer, once search returns
}

// search makes every state a source, ranks them and builds the page.
func (c *recallSearch) search(rd *index.Reader) error {
	s, rep := c.s, c.rep
	c.readRaced(s.Open(rd, rep, c.mem, c.memCold))
	// Keep the sources in scope order (newest first), whatever order the
	// index walk found them in.
	search.SortByState(rep, s.Cold)
	if c.req.EntryRange != nil && len(s.Hot) == 1 {
		s.Hot[0].First, s.Hot[0].Last = int(c.req.EntryRange.First), int(c.req.EntryRange.Last)
	}
	items, total := s.Run(c.q.offset + c.q.pageSize)
	var err error
	c.page, err = c.e.buildPage(c.q, c.r, rep, s, items, total, c.single)
	s.CheckSources()
	s.Release()
	if s.LexiconAnswered {
		lexiconUses.Add(1)
	}
	return err
}

// readRaced reads the raced states from source, within the sync budget;
// the new records' own reasons (and any failure) count in the coverage.
func (c *recallSearch) readRaced(raced []int) {
	if len(raced) == 0 {
		return
	}
	rep := c.rep
	rep.Own()
	var spent int64
	for _, i := range raced {
		st := &rep.States[i]
		if spent >= int64(c.e.cfg.MaxSyncSourceBytes) {
			st.Record, st.Reason = nil, coverage.MaxSyncSourceBytes
			continue
		}
		if c.s.Add(c.e.readState(st, c.r.targets[i], c.q.mode, st.Record.Tier)) {
			spent += st.Record.Identity.Size
		}
	}
	rep.Recount()
}

// hydrateAll replaces every state's record with an in-memory build of its
// source, tiered as the index would tier it (the newest hotSessions of the
// scope hot, the rest cold digests), newest first until maxSyncSourceBytes
// is spent; the rest stay without a record, counted stale with the
// budget's reason. Nothing is persisted.
func (e *Engine) hydrateAll(r *resolved, rep *index.Report, mode lineage.Mode, first *search.HotSource) (map[*index.Record]search.HotSource, map[*index.Record]search.ColdSource) {
	var spent int64
	hot := map[*index.Record]search.HotSource{}
	cold := map[*index.Record]search.ColdSource{}
	rep.Own()
	for i := range rep.States {
		st := &rep.States[i]
		if i == 0 && first != nil {
			st.Record, st.Reason = first.Rec, ""
			hot[first.Rec] = *first
			continue
		}
		if spent >= int64(e.cfg.MaxSyncSourceBytes) {
			st.Record, st.Reason = nil, coverage.MaxSyncSourceBytes
			continue
		}
		tier := index.Cold
		if i < e.cfg.HotSessions {
			tier = index.Hot
		}
		h, c := e.readState(st, r.targets[i], mode, tier)
		switch {
		case h != nil:
			hot[h.Rec] = *h
		case c != nil:
			cold[c.Rec] = *c
		default:
			continue
		}
		spent += st.Record.Identity.Size
	}
	rep.Recount()
	return hot, cold
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

// needsIndex reports whether some session of rep has its data only in the
// index file: a current record that this call did not build in memory.
func needsIndex(rep *index.Report, split *index.Split, mem map[*index.Record]search.HotSource) bool {
	for _, rec := range split.Cold {
		if _, inMem := mem[rec]; !inMem {
			return true
		}
	}
	for _, i := range split.Each {
		if _, inMem := mem[rep.States[i].Record]; rep.States[i].Built == nil && !inMem {
			return true
		}
	}
	return false
}

// readState reads the session of st from source for tier and makes it the
// state's record; on failure the state keeps no record and says why.
func (e *Engine) readState(st *index.State, t index.Target, mode lineage.Mode, tier string) (*search.HotSource, *search.ColdSource) {
	h, c, err := e.readSource(t, mode, tier)
	switch {
	case errors.Is(err, index.ErrSourceUnavailable):
		st.Record, st.Reason = nil, coverage.SourceUnavailable
	case err != nil:
		st.Record, st.Reason = nil, coverage.IndexError
	case h != nil:
		st.Record, st.Reason = h.Rec, ""
	default:
		st.Record, st.Reason = c.Rec, ""
	}
	return h, c
}

// readSource reads and builds one session in memory for tier, as a refresh
// would, and opens it as a hot or a cold source. Nothing is written.
func (e *Engine) readSource(t index.Target, mode lineage.Mode, tier string) (*search.HotSource, *search.ColdSource, error) {
	b, err := e.ix.BuildSource(t, mode, tier)
	if err != nil {
		return nil, nil, err
	}
	return search.OpenBuilt(b)
}

// checkExpectations compares a pointer's bindings with the session now.
func checkExpectations(rec *index.Record, hash, fp string) *ErrorObject {
	if hash == "" && fp == "" {
		return nil
	}
	eo := &ErrorObject{Code: coverage.StalePointer, SessionFile: rec.Path,
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

// hydrate reads one session from source into an in-memory shard with its
// full, untruncated text, so that a cold session answers with exact entry
// hits. Nothing is written to the index.
func (e *Engine) hydrate(t index.Target, mode lineage.Mode) (*search.HotSource, *ErrorObject, error) {
	b, err := e.ix.HydrateSource(t, mode)
	if errors.Is(err, index.ErrSourceUnavailable) {
		return nil, &ErrorObject{Code: coverage.SourceUnavailable, Message: err.Error(), SessionFile: t.Path}, nil
	}
	if err != nil {
		return nil, nil, err
	}
	sh, err := b.Hot.Open()
	if err != nil {
		return nil, nil, err
	}
	return &search.HotSource{Rec: b.Record, Shard: sh, Tier: index.Cold, First: -1, Last: -1}, nil, nil
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
	page := &RecallPage{Total: total, Hits: []Hit{}}
	if q.offset > total {
		n := total
		return &RecallPage{Hits: []Hit{}, Error: &ErrorObject{Code: coverage.IndexOutOfBounds,
			Message: fmt.Sprintf("offset %d is past the %d retained hits.", q.offset, n), EntryCount: &n}}, nil
	}
	end := q.offset + q.pageSize
	if end > total {
		end = total
	}
	base := canonicalArgs(q)
	if len(rep.States) == 1 && rep.States[0].Record != nil {
		rec := rep.States[0].Record
		base.Scope = ScopeOf(rec.Path)
		base.ExpectedSourceHash = rec.SourceHash
		base.ExpectedLineageFingerprint = rec.LineageFingerprint
	}
	anchorTerms := q.plan.Terms
	for i := q.offset; i < end; i++ {
		it := &items[i]
		if it.Entry {
			h, err := e.entryHit(q, s, it, anchorTerms)
			if err != nil {
				// Damaged shard data: leave the hit out, say so, and let
				// the next refresh rebuild the session.
				s.Fail(s.Hot[it.Src].Rec)
				continue
			}
			page.Hits = append(page.Hits, Hit{Entry: h})
		} else {
			page.Hits = append(page.Hits, Hit{Session: e.sessionHit(q, s, it)})
		}
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

func (e *Engine) entryHit(q *recallQuery, s *search.Searcher, it *search.Item, terms []string) (*EntryHit, error) {
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
	anchor := 0
	switch q.plan.Kind {
	case search.PlanTerms, search.PlanPhrase:
		anchor = anchorOf(st.Text, terms)
	case search.PlanRegex:
		anchor = s.RegexAnchor(st.Text)
	}
	h.Snippet, h.Truncated = makeSnippet(st.Text, anchor, q.snippetChars)
	h.Truncated = h.Truncated || st.Truncated
	h.Follow = FabricCall{Ref: "memory.expand", Args: marshalArgs(expandArgs{
		Session:                    src.Rec.Path,
		ExpectedSourceHash:         src.Rec.SourceHash,
		ExpectedLineageFingerprint: src.Rec.LineageFingerprint,
		Branches:                   Branches(q.mode),
		Indices:                    []int64{int64(it.Index)},
	})}
	return h, nil
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
