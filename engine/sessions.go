package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/memidx/memidx/internal/coverage"
	"github.com/memidx/memidx/internal/index"
	"github.com/memidx/memidx/internal/lineage"
	"github.com/memidx/memidx/internal/session/scopes"
)

// SessionRow describes one session.
type SessionRow struct {
	ID string `json:"id"`
	// Title (memidx's extension) is the session's title, omitted when
	// empty.
	Title              string   `json:"title,omitempty"`
	File               string   `json:"file"`
	Cwd                string   `json:"cwd"`
	Mtime              float64  `json:"mtime"`
	Size               int64    `json:"size"`
	EntryCount         *int     `json:"entryCount"`
	Tier               *string  `json:"tier"`
	Branches           string   `json:"branches"`
	LineageFingerprint *string  `json:"lineageFingerprint"`
	SourceHash         *string  `json:"sourceHash"`
	FirstTimestamp     *float64 `json:"firstTimestamp"`
	LastTimestamp      *float64 `json:"lastTimestamp"`
	Complete           bool     `json:"complete"`
	Reasons            []string `json:"reasons"`
}

// SessionsResult is memory.sessions' result. Total counts every session in
// scope, not the page.
type SessionsResult struct {
	Scope     string       `json:"scope"`
	Branches  string       `json:"branches"`
	Total     int          `json:"total"`
	Truncated bool         `json:"truncated"`
	Sessions  []SessionRow `json:"sessions"`
	Next      *FabricCall  `json:"next"`
	Coverage  Coverage     `json:"coverage"`
	Error     *ErrorObject `json:"error,omitempty"`
	// Notices: see RecallPage.
	Notices []Notice `json:"notices,omitempty"`
}

// Sessions lists the sessions of a scope, newest first, with their branch
// mode, tier, counts and coverage. A session a budget kept from being
// indexed has a null entryCount and a reason, never a fake 0.
func (e *Engine) Sessions(ctx context.Context, req SessionsRequest) (*SessionsResult, error) {
	return guard(e, ctx, func(ctx context.Context) (*SessionsResult, error) { return e.sessions(ctx, req.args()) })
}

func (e *Engine) sessions(ctx context.Context, req sessionsArgs) (*SessionsResult, error) {
	fail := func(eo *ErrorObject) *SessionsResult {
		return &SessionsResult{Scope: string(req.Scope), Branches: string(req.Branches), Sessions: []SessionRow{},
			Coverage: failureCoverage(eo.Code), Error: eo}
	}
	mode, err := lineage.ParseMode(string(req.Branches))
	if err != nil {
		return fail(badRequest("%v", err)), nil
	}
	limit, offset, eo := e.sessionsWindow(req)
	if eo != nil {
		return fail(eo), nil
	}
	scope := req.Scope
	if scope == "" {
		scope = "session"
	}
	if eo := e.checkLive(req.Live); eo != nil {
		return fail(eo), nil
	}
	r, err := e.resolve(string(scope), mode)
	if err != nil {
		if eo := DomainError(err); eo != nil {
			return fail(eo), nil
		}
		return nil, err
	}
	total := len(r.targets)
	if offset > total {
		n := total
		out := fail(&ErrorObject{Code: coverage.IndexOutOfBounds, Message: fmt.Sprintf("offset %d is past the %d sessions.", offset, total), EntryCount: &n})
		// The scope resolved: its answer names it, its branches and its
		// sessions, as a page within it would.
		out.Scope, out.Branches, out.Total = r.scope.String(), string(mode), total
		return out, nil
	}
	end := min(offset+limit, total)
	// Refresh only the page: listing must not index a whole archive.
	// Its live session keeps its branch (the page's records are checked
	// under it, as a recall's are).
	page := &resolved{scope: r.scope, res: r.res, mode: mode, targets: r.targets[offset:end], live: r.live}
	need := e.need(page, false)
	need.RecordsOnly = true
	v, reasons, err := e.ix.Acquire(ctx, need, nil)
	if err != nil {
		return nil, err
	}
	out := &SessionsResult{Scope: r.scope.String(), Branches: string(mode), Total: total,
		Truncated: end < total, Sessions: sessionRows(v, r.res.Refs[offset:], mode)}
	if end < total {
		out.Next = nextSessions(req, r.scope.String(), mode, limit, end)
	}
	out.Coverage = coverageFrom(v.Coverage(), r.res.Reasons, nil)
	markIncomplete(&out.Coverage.Reasons, &out.Coverage.Complete, reasons...)
	if out.Truncated {
		// The page is complete; the list is not, and next says so.
		out.Coverage.EligibleSessions = total
	}
	out.Notices = e.noticesOnce()
	if r.notices != nil {
		out.Notices = slices.Concat(out.Notices, r.notices)
	}
	return out, nil
}

// sessionsWindow checks the request's limit and offset, and returns them
// with their defaults filled in.
func (e *Engine) sessionsWindow(req sessionsArgs) (limit, offset int, eo *ErrorObject) {
	limit = e.cfg.MaxSessions
	if req.Limit != nil {
		if *req.Limit < 1 || *req.Limit > int64(e.cfg.MaxSessions) {
			return 0, 0, badRequest("limit must be an integer from 1 to %d (maxSessions), not %d", e.cfg.MaxSessions, *req.Limit)
		}
		limit = int(*req.Limit)
	}
	if req.Offset != nil {
		if *req.Offset < 0 {
			return 0, 0, badRequest("offset must be 0 or more")
		}
		offset = int(*req.Offset)
	}
	return limit, offset, nil
}

// sessionRows describes the sessions of view v, whose refs are refs.
func sessionRows(v *index.View, refs []scopes.Ref, mode lineage.Mode) []SessionRow {
	rows := []SessionRow{}
	titles := sessionTitles{read: map[string]string{}}
	for i := range v.Len() {
		row := sessionRow(v.State(i), refs[i], mode)
		if v.State(i).Reason() != coverage.InvalidHeader {
			row.Title = titles.of(row.File)
		}
		rows = append(rows, row)
	}
	return rows
}

// nextSessions is the call for the page after one that ends at end: req
// with its scope, branches, limit and offset made explicit and no live
// session.
func nextSessions(req sessionsArgs, scope string, mode lineage.Mode, limit, end int) *FabricCall {
	a := req
	a.Scope, a.Branches, a.Live = Scope(scope), Branches(mode), nil
	l, o := int64(limit), int64(end)
	a.Limit, a.Offset = &l, &o
	b, _ := json.Marshal(a)
	return &FabricCall{Ref: "memory.sessions", Args: b}
}

// sessionRow is the row of a session's state after the refresh, with its
// listed size and mtime.
func sessionRow(st index.State, ref scopes.Ref, mode lineage.Mode) SessionRow {
	row := SessionRow{File: st.Path, Mtime: float64(ref.ModTime().UnixNano()) / 1e6, Size: ref.Size(), Branches: string(mode), Reasons: []string{}}
	if st.Reason() == coverage.InvalidHeader {
		// Not a session: nothing of it is reported but its name.
		row.Mtime, row.Size = 0, 0
	}
	rec := st.Record
	if rec == nil {
		row.Reasons = []string{st.Reason()}
		return row
	}
	n, tier, fp, h := int(rec.EntryCount), rec.Tier.String(), rec.LineageFingerprint().String(), rec.SourceHash.String()
	row.ID, row.Cwd = rec.SessionID(), rec.Cwd()
	row.EntryCount, row.Tier, row.LineageFingerprint, row.SourceHash = &n, &tier, &fp, &h
	row.FirstTimestamp, row.LastTimestamp = rec.FirstTs().Ptr(), rec.LastTs().Ptr()
	row.Complete = rec.Complete()
	if rs := rec.Reasons(); rs != nil {
		row.Reasons = rs
	}
	return row
}
