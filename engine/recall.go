package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/memidx/memidx/analyzer"
	"github.com/memidx/memidx/bucket"
	"github.com/memidx/memidx/coldvocab"
	"github.com/memidx/memidx/coverage"
	"github.com/memidx/memidx/hotbm25"
	"github.com/memidx/memidx/index"
	"github.com/memidx/memidx/jsjson"
	"github.com/memidx/memidx/lineage"
	"github.com/memidx/memidx/normalize"
	"github.com/memidx/memidx/session"
)

// recallQuery is a validated request.
type recallQuery struct {
	req          recallArgs
	mode         lineage.Mode
	scope        string
	plan         plan
	filt         filters
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
			f.keys = append(f.keys, k.prefix+*k.v)
			f.operational = f.operational || k.prefix != normalize.KeyRole
		}
	}
	f.since, f.until = req.Since, req.Until

	query := ""
	if req.Query != nil {
		query = *req.Query
	}
	switch {
	case strings.TrimSpace(query) == "":
		q.plan.kind = planBrowse
	case q.req.QueryMode == "regex":
		q.plan.kind = planRegex
		m, cerr := e.compileRegex(query)
		if cerr != nil {
			return q, &ErrorObject{Code: cerr.Code, Message: cerr.Message}
		}
		q.plan.regex = m
	case q.req.QueryMode == "phrase":
		q.plan.kind = planPhrase
		q.plan.phrase = analyzer.Tokens(strings.TrimSpace(query))
		q.plan.terms = unique(q.plan.phrase)
		if len(q.plan.terms) == 0 {
			q.plan.kind = planBrowse
		}
	default:
		q.plan.kind = planTerms
		q.plan.terms = unique(analyzer.Tokens(query))
		q.plan.all = q.req.QueryMatch == "all"
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
	page, err := e.recallOnce(ctx, req, fromIndex)
	if err == nil && page.dropped {
		// Damaged tier data was dropped; asking again rebuilds it (an
		// error now goes through the recovery below).
		page, err = e.recallOnce(ctx, req, fromIndex)
		if page != nil {
			page.Coverage.Reasons = mergeReasons(page.Coverage.Reasons, index.IndexReset)
			page.Coverage.Complete = false
		}
	}
	if err != nil && e.ix.ResetIfDamaged(err) {
		page, err = e.recallOnce(ctx, req, fromIndex)
		if page != nil {
			page.Coverage.Reasons = mergeReasons(page.Coverage.Reasons, index.IndexReset)
			page.Coverage.Complete = false
		}
	}
	if err != nil && (errors.Is(err, bucket.ErrCorrupt) || errors.Is(err, bucket.ErrLocked)) {
		// The index cannot be read: answer from the sources instead.
		page, err = e.recallOnce(ctx, req, fromMemory)
		if page != nil {
			page.Coverage.Reasons = mergeReasons(page.Coverage.Reasons, index.IndexUnwritable)
			page.Coverage.Complete = false
		}
	}
	if page != nil {
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

// attempt is where recallOnce takes its answer from.
type attempt int

const (
	fromIndex  attempt = iota // the refreshed index
	fromMemory                // the sources read into memory (the index cannot be used)
)

func (e *Engine) recallOnce(ctx context.Context, req recallArgs, how attempt) (*RecallPage, error) {
	memoryOnly := how == fromMemory
	q, eo := e.prepareRecall(req)
	if eo != nil && eo.Code != coverage.InvalidRegex && eo.Code != coverage.RegexPatternTooLarge {
		return failurePage(eo), nil
	}
	if eo := e.checkLive(req.Live); eo != nil {
		return failurePage(eo), nil
	}
	var pre *index.Preloaded
	if !memoryOnly {
		// The stored records are decoded while the files are listed.
		pre = e.ix.Preload(ctx, q.mode)
	}
	r, err := e.resolve(q.scope, q.mode)
	if err != nil {
		if eo := errorObject(err); eo != nil {
			return failurePage(eo), nil
		}
		return nil, err
	}
	r.pre = pre
	var rep *index.Report
	if memoryOnly {
		rep = index.EmptyReport(r.targets, index.IndexUnwritable)
	} else if rep, err = e.refresh(ctx, r, false, nil); err != nil {
		return nil, err
	}
	var scopeReasons []string
	scopeReasons = append(scopeReasons, r.res.Reasons...)
	if eo != nil {
		// An invalid or oversized pattern: nothing was searched, and the
		// empty answer says so.
		cov := coverageFrom(rep.Coverage, append(scopeReasons, eo.Code), &coverage.Error{Code: eo.Code, Message: eo.Message})
		return &RecallPage{Hits: []Hit{}, Coverage: cov, Error: eo}, nil
	}
	single := (r.scope.Kind == session.ScopeSessionTarget || r.scope.Kind == session.ScopeSession) && len(r.targets) == 1

	s := &searcher{ctx: ctx, plan: q.plan, filt: q.filt, docs: &e.docs}
	// A single session is searched entry by entry even when it is cold:
	// hydrate it from source (untruncated text, never persisted).
	var hydrated *hotSource
	if single {
		st := rep.States[0]
		if st.Record == nil || st.Record.Tier == index.Cold {
			h, eo, err := e.hydrate(r.targets[0], q.mode)
			if err != nil {
				return nil, err
			}
			if eo != nil {
				return failurePage(eo), nil
			}
			hydrated = h
			rep.Own()
			rep.States[0].Record = h.rec
			rep.States[0].Reason = ""
			// A fresh read of the source answers for the session.
			rep.Recount()
		}
		if eo := checkSingle(rep.States[0].Record, req); eo != nil {
			return failurePage(eo), nil
		}
	}

	var checked *index.Record // the single session's record the checks saw
	if single {
		checked = rep.States[0].Record
	}
	// c.mem holds sessions read into memory for this call (a hydrated
	// single session, or every session when the index cannot be used).
	c := &recallSearch{e: e, q: q, req: req, r: r, rep: rep, s: s, single: single,
		mem: map[*index.Record]hotSource{}, memCold: map[*index.Record]coldSource{}}
	if hydrated != nil {
		c.mem[hydrated.rec] = *hydrated
	}
	switch {
	case memoryOnly:
		// The index cannot be used: answer from the sources, read into
		// memory within the sync budget (nothing is persisted).
		c.mem, c.memCold = e.hydrateAll(r, rep, q.mode, hydrated)
		err = c.search(&index.Reader{})
	case !needsIndex(rep, rep.Split(), c.mem):
		// Everything this answer needs is in memory: built by this call's
		// refresh, which the index could not take (unwritable, busy,
		// unreadable). No need to read the index, nor the sources again.
		err = c.search(&index.Reader{})
	default:
		if beforeSearch != nil {
			beforeSearch()
		}
		err = e.ix.ViewAfter(ctx, q.mode, rep, c.search)
		// Whatever turned out broken is rebuilt by the next refresh.
		dropped := e.ix.Forget(ctx, q.mode, s.broken)
		if s.lexDamaged {
			e.ix.ResetLexicon(ctx, q.mode)
		}
		if c.page != nil {
			c.page.dropped = dropped
		}
	}
	page := c.page
	if err != nil {
		return nil, err
	}
	if single && rep.States[0].Record != checked {
		// Another process rewrote the session after the checks above and
		// the search read it again: the pointer's bindings are checked
		// against what was answered from.
		if rec := rep.States[0].Record; rec == nil {
			return failurePage(&ErrorObject{Code: coverage.SourceUnavailable, Message: "session changed and could not be read again", SessionFile: r.targets[0].Path}), nil
		} else if eo := checkSingle(rec, req); eo != nil {
			return failurePage(eo), nil
		}
	}
	page.Coverage = coverageFrom(rep.Coverage, append(scopeReasons, s.reasons.Reasons()...), s.qerr)
	fitEnvelope(page)
	return page, nil
}

// recallSearch is one recall's search, over the index (or the sources
// read into memory) after its refresh.
type recallSearch struct {
	e       *Engine
	q       *recallQuery
	req     recallArgs
	r       *resolved
	rep     *index.Report
	s       *searcher
	single  bool
	mem     map[*index.Record]hotSource
	memCold map[*index.Record]coldSource
	page    *RecallPage // the answer, once search returns
}

// search makes every state a source, ranks them and builds the page.
func (c *recallSearch) search(rd *index.Reader) error {
	s, rep := c.s, c.rep
	c.readRaced(c.sources(rd))
	// Keep the sources in scope order (newest first), whatever order the
	// index walk found them in.
	sortByState(rep, s.cold)
	if c.req.EntryRange != nil && len(s.hot) == 1 {
		s.hot[0].first, s.hot[0].last = int(c.req.EntryRange.First), int(c.req.EntryRange.Last)
	}
	items, total := s.run(c.q.offset + c.q.pageSize)
	var err error
	c.page, err = c.e.buildPage(c.q, c.r, rep, s, items, total, c.single)
	if s.anchorCancel != nil {
		s.anchorCancel()
	}
	s.settled.release()
	s.lex.release()
	s.checkSources()
	return err
}

// sources opens the states' data: hot shards, then what the lexicon does
// not settle of the cold sessions, their digests. It returns the states
// whose data another process rewrote since this call's refresh.
func (c *recallSearch) sources(rd *index.Reader) (raced []int) {
	s, rep := c.s, c.rep
	split := rep.Split()
	raced = s.openHot(rd, rep, split.Each, c.mem)
	colds, coldEntries := split.Cold, split.ColdEntries
	if len(c.mem)+len(c.memCold) > 0 {
		colds, coldEntries = s.fromMemory(colds, c.mem, c.memCold)
	}
	// The archive lexicon settles most cold sessions without their
	// digests; the rest are opened.
	if open, ok := s.lexiconCold(rd, rep.LexEpoch, colds, coldEntries); ok {
		colds = open
	}
	rd.Digests(colds, func(rec *index.Record, _ []byte, v coldvocab.View, err error) {
		if errors.Is(err, index.ErrNoData) {
			raced = append(raced, stateIndex(rep, rec))
			return
		}
		if err != nil {
			s.fail(rec)
			return
		}
		s.cold = append(s.cold, coldSource{rec: rec, view: v, has: s.openHas[rec]})
	})
	return raced
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
		if c.s.add(c.e.readState(st, c.r.targets[i], c.q.mode, st.Record.Tier)) {
			spent += st.Record.Identity.Size
		}
	}
	rep.Recount()
}

// stateIndex is the index of the state whose record is rec (rare: a
// session another process rewrote during the search).
func stateIndex(rep *index.Report, rec *index.Record) int {
	for i := range rep.States {
		if rep.States[i].Record == rec {
			return i
		}
	}
	panic("engine: a searched record has no state")
}

// sortByState orders cold sources as their states are ordered.
func sortByState(rep *index.Report, cold []coldSource) {
	if len(cold) < 2 {
		return
	}
	order := make(map[*index.Record]int, len(cold))
	for i := range cold {
		order[cold[i].rec] = -1
	}
	for i := range rep.States {
		if _, ok := order[rep.States[i].Record]; ok {
			order[rep.States[i].Record] = i
		}
	}
	sort.Slice(cold, func(a, b int) bool { return order[cold[a].rec] < order[cold[b].rec] })
}

// hydrateAll replaces every state's record with an in-memory build of its
// source, tiered as the index would tier it (the newest hotSessions of the
// scope hot, the rest cold digests), newest first until maxSyncSourceBytes
// is spent; the rest stay without a record, counted stale with the
// budget's reason. Nothing is persisted.
func (e *Engine) hydrateAll(r *resolved, rep *index.Report, mode lineage.Mode, first *hotSource) (map[*index.Record]hotSource, map[*index.Record]coldSource) {
	var spent int64
	hot := map[*index.Record]hotSource{}
	cold := map[*index.Record]coldSource{}
	rep.Own()
	for i := range rep.States {
		st := &rep.States[i]
		if i == 0 && first != nil {
			st.Record, st.Reason = first.rec, ""
			hot[first.rec] = *first
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
			hot[h.rec] = *h
		case c != nil:
			cold[c.rec] = *c
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
func needsIndex(rep *index.Report, split *index.Split, mem map[*index.Record]hotSource) bool {
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

// openHot makes the states of each (hot records, and records built in
// memory) sources, in state order: from mem, from what this call built,
// or from their shards in the index, leaving unopened the shards the
// lexicon proves cannot match. It returns the states whose shards another
// process rewrote since the refresh.
func (s *searcher) openHot(rd *index.Reader, rep *index.Report, each []int, mem map[*index.Record]hotSource) (raced []int) {
	hotTerms := s.hotTerms(rd, rep.LexEpoch, hotRecords(rep, each))
	for _, i := range each {
		rec := rep.States[i].Record
		if h, ok := mem[rec]; ok {
			s.hot = append(s.hot, h)
			continue
		}
		if b := rep.States[i].Built; b != nil {
			// Built by this call's refresh, which the index could not
			// take (busy): answer from memory.
			h, c, err := openBuilt(b)
			if err != nil {
				s.reasons.Add(coverage.IndexError)
			}
			s.add(h, c)
			continue
		}
		var lacks uint64
		if hotTerms != nil {
			held, known := hotTerms(rec)
			if known && held == 0 {
				s.unopenedHot.add(rec)
				continue
			}
			if known {
				lacks = ^held
			}
		}
		sh, err := rd.Shard(rec)
		if errors.Is(err, index.ErrNoData) {
			raced = append(raced, i)
			continue
		}
		if err != nil {
			s.fail(rec)
			continue
		}
		s.hot = append(s.hot, hotSource{rec: rec, shard: sh, tier: index.Hot, first: -1, last: -1, lacks: lacks})
	}
	return raced
}

// hotRecords are the records of states whose hot shards the index holds
// (not read into memory, not built by this call).
func hotRecords(rep *index.Report, each []int) []*index.Record {
	recs := make([]*index.Record, 0, len(each))
	for _, i := range each {
		if st := &rep.States[i]; st.Built == nil && st.Record.Tier == index.Hot {
			recs = append(recs, st.Record)
		}
	}
	return recs
}

// fromMemory takes the cold records read into memory for this call out of
// colds (rare: a hydrated single session, or an index that cannot be
// used), and returns the rest with their entries.
func (s *searcher) fromMemory(colds []*index.Record, mem map[*index.Record]hotSource, memCold map[*index.Record]coldSource) (rest []*index.Record, entries float64) {
	for _, rec := range colds {
		if h, ok := mem[rec]; ok {
			s.hot = append(s.hot, h)
		} else if c, ok := memCold[rec]; ok {
			s.cold = append(s.cold, c)
		} else {
			rest = append(rest, rec)
			entries += float64(rec.EntryCount)
		}
	}
	return rest, entries
}

// readState reads the session of st from source for tier and makes it the
// state's record; on failure the state keeps no record and says why.
func (e *Engine) readState(st *index.State, t index.Target, mode lineage.Mode, tier string) (*hotSource, *coldSource) {
	h, c, err := e.readSource(t, mode, tier)
	switch {
	case errors.Is(err, index.ErrSourceUnavailable):
		st.Record, st.Reason = nil, coverage.SourceUnavailable
	case err != nil:
		st.Record, st.Reason = nil, coverage.IndexError
	case h != nil:
		st.Record, st.Reason = h.rec, ""
	default:
		st.Record, st.Reason = c.rec, ""
	}
	return h, c
}

// readSource reads and builds one session in memory for tier, as a refresh
// would, and opens it as a hot or a cold source. Nothing is written.
func (e *Engine) readSource(t index.Target, mode lineage.Mode, tier string) (*hotSource, *coldSource, error) {
	b, err := e.ix.BuildSource(t, mode, tier)
	if err != nil {
		return nil, nil, err
	}
	return openBuilt(b)
}

// openBuilt opens a session built in memory as a hot or a cold source.
func openBuilt(b *index.Built) (*hotSource, *coldSource, error) {
	if b.Hot != nil {
		sh, err := hotbm25.Open(b.Hot.Dict, b.Hot.Cols, b.Hot.Ents, b.Hot.Entries)
		if err != nil {
			return nil, nil, err
		}
		return &hotSource{rec: b.Record, shard: sh, tier: index.Hot, first: -1, last: -1}, nil, nil
	}
	v, err := coldvocab.Open(b.Cold)
	if err != nil {
		return nil, nil, err
	}
	return nil, &coldSource{rec: b.Record, view: v}, nil
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
func (e *Engine) hydrate(t index.Target, mode lineage.Mode) (*hotSource, *ErrorObject, error) {
	b, err := e.ix.HydrateSource(t, mode)
	if errors.Is(err, index.ErrSourceUnavailable) {
		return nil, &ErrorObject{Code: coverage.SourceUnavailable, Message: err.Error(), SessionFile: t.Path}, nil
	}
	if err != nil {
		return nil, nil, err
	}
	sh, err := hotbm25.Open(b.Hot.Dict, b.Hot.Cols, b.Hot.Ents, b.Hot.Entries)
	if err != nil {
		return nil, nil, err
	}
	return &hotSource{rec: b.Record, shard: sh, tier: index.Cold, first: -1, last: -1}, nil, nil
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
func (e *Engine) buildPage(q *recallQuery, r *resolved, rep *index.Report, s *searcher, items []item, total int, single bool) (*RecallPage, error) {
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
	anchorTerms := q.plan.terms
	for i := q.offset; i < end; i++ {
		it := &items[i]
		if it.entry {
			h, err := e.entryHit(q, s, it, anchorTerms)
			if err != nil {
				// Damaged shard data: leave the hit out, say so, and let
				// the next refresh rebuild the session.
				s.fail(s.hot[it.src].rec)
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

func (e *Engine) entryHit(q *recallQuery, s *searcher, it *item, terms []string) (*EntryHit, error) {
	src := &s.hot[it.src]
	st, err := src.shard.Entry(it.index)
	if err != nil {
		return nil, err
	}
	h := &EntryHit{
		Kind:      "entry",
		SessionID: boundString(src.rec.SessionID, 512),
		Tier:      src.tier,
		Index:     it.index,
		Type:      st.Type,
		IsError:   st.IsError,
		Score:     it.score,
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
	switch q.plan.kind {
	case planTerms, planPhrase:
		anchor = anchorOf(st.Text, terms)
	case planRegex:
		anchor = s.regexAnchor(st.Text)
	}
	h.Snippet, h.Truncated = makeSnippet(st.Text, anchor, q.snippetChars)
	h.Truncated = h.Truncated || st.Truncated
	h.Follow = FabricCall{Ref: "memory.expand", Args: marshalArgs(expandArgs{
		Session:                    src.rec.Path,
		ExpectedSourceHash:         src.rec.SourceHash,
		ExpectedLineageFingerprint: src.rec.LineageFingerprint,
		Branches:                   Branches(q.mode),
		Indices:                    []int64{int64(it.index)},
	})}
	return h, nil
}

func (e *Engine) sessionHit(q *recallQuery, s *searcher, it *item) *SessionHit {
	c := &s.cold[it.src]
	a := canonicalArgs(q)
	a.EntryRange = nil
	a.Scope = ScopeOf(c.rec.Path)
	a.ExpectedSourceHash = c.rec.SourceHash
	a.ExpectedLineageFingerprint = c.rec.LineageFingerprint
	h := &SessionHit{
		Kind:                     "session",
		SessionID:                boundString(c.rec.SessionID, 512),
		Tier:                     index.Cold,
		Cwd:                      boundString(c.rec.Cwd, 2048),
		LastTimestamp:            c.rec.LastTs,
		Score:                    it.score,
		MatchedTerms:             it.matched,
		MatchedStructuralEntries: it.matchedS,
		Follow:                   FabricCall{Ref: "memory.recall", Args: marshalArgs(a)},
	}
	return h
}
