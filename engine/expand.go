package engine

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/memidx/memidx/internal/coverage"
	"github.com/memidx/memidx/internal/index"
	"github.com/memidx/memidx/internal/jsjson"
	"github.com/memidx/memidx/internal/lineage"
	"github.com/memidx/memidx/internal/normalize"
)

// Expansion bounds.
const (
	DefaultMaxChars     = 20000
	MaxMaxChars         = 24000
	DefaultMaxEntries   = 10
	MaxMaxEntries       = 20
	MaxExactSelectors   = 100
	MaxContext          = 100
	MaxStructuredChars  = 2000
	MaxFilesTouchedOut  = 20
	MaxFileTouchedChars = 1024
	MaxMetaChars        = 512
)

// TextRange places a chunk in its entry's text, in UTF-16 code units.
type TextRange struct {
	Start    int  `json:"start"`
	End      int  `json:"end"`
	Total    int  `json:"total"`
	Complete bool `json:"complete"`
}

// ExpandedEntry is one (chunk of a) full, untruncated normalized record.
type ExpandedEntry struct {
	Index               int        `json:"index"`
	EntryID             *string    `json:"entryId"`
	ParentID            *string    `json:"parentId"`
	Type                string     `json:"type"`
	Role                *string    `json:"role"`
	Timestamp           *float64   `json:"timestamp"`
	IsError             bool       `json:"isError"`
	Anchor              *bool      `json:"anchor,omitempty"`
	Text                string     `json:"text"`
	TextRange           TextRange  `json:"textRange"`
	ParentEntryID       *string    `json:"parentEntryId,omitempty"`
	OperationAddress    *string    `json:"operationAddress,omitempty"`
	Tool                *string    `json:"tool,omitempty"`
	Tools               []string   `json:"tools,omitempty"`
	Ref                 *string    `json:"ref,omitempty"`
	Provider            *string    `json:"provider,omitempty"`
	Action              *string    `json:"action,omitempty"`
	Outcome             *string    `json:"outcome,omitempty"`
	FilesTouched        []string   `json:"filesTouched,omitempty"`
	Operation           rawMessage `json:"operation,omitempty"`
	BranchFact          rawMessage `json:"branchFact,omitempty"`
	StructuredTruncated bool       `json:"structuredTruncated,omitempty"`
	FactAddress         *string    `json:"factAddress,omitempty"`
	CarrierEntryID      *string    `json:"carrierEntryId,omitempty"`
	CarrierParentID     *string    `json:"carrierParentId,omitempty"`
	CarrierFromID       *string    `json:"carrierFromId,omitempty"`
}

// hasSelector reports whether the request names any entries.
func (r *expandArgs) hasSelector() bool {
	return len(r.Indices) > 0 || len(r.EntryIDs) > 0 || len(r.OperationAddresses) > 0 || r.EntryRange != nil
}

// ExpandResult is memory.expand's result.
type ExpandResult struct {
	Session string `json:"session"`
	// Title (memidx's extension) is the session's title, omitted when
	// empty.
	Title              string          `json:"title,omitempty"`
	SourceHash         string          `json:"sourceHash,omitempty"`
	Branches           string          `json:"branches,omitempty"`
	LineageFingerprint string          `json:"lineageFingerprint,omitempty"`
	EntryCount         *int            `json:"entryCount,omitempty"`
	Entries            []ExpandedEntry `json:"entries"`
	Next               *FabricCall     `json:"next"`
	Error              *ErrorObject    `json:"error,omitempty"`
	// Notices: see RecallPage.
	Notices []Notice `json:"notices,omitempty"`
}

func expandFailure(sessionArg string, eo *ErrorObject) *ExpandResult {
	return &ExpandResult{Session: sessionArg, Entries: []ExpandedEntry{}, Error: eo}
}

// snapshot is one lossless read of a session in a branch mode.
type snapshot struct {
	path string
	hash string
	fp   string
	mode lineage.Mode
	// entries is the whole normalized selection, or nil when lazy makes
	// each entry from the file on demand (see readSlimSnapshot).
	entries []normalize.Entry
	lazy    *normalize.Lazy
	// id is the source's stat identity when it was read.
	id index.Identity
	// cost estimates the memory the snapshot holds (snapCache charges it).
	cost int64
	// title is the session's title when it was read.
	title string
}

// readSnapshot resolves and reads a session losslessly: every byte of
// text, thinking and tool output, whatever the indexing policy (expansion
// re-reads the source; the privacy policy governs the index).
func (e *Engine) readSnapshot(target string, mode lineage.Mode) (*snapshot, *ErrorObject, error) {
	r, err := e.resolve("session:"+target, mode)
	if err != nil {
		if eo := DomainError(err); eo != nil {
			return nil, eo, nil
		}
		return nil, nil, err
	}
	if len(r.targets) != 1 {
		return nil, &ErrorObject{Code: coverage.SessionNotFound, Message: "Session not found: " + target}, nil
	}
	t := r.targets[0]
	live := r.live.Of(t.Path)
	key := snapKey(t.Path, mode, live)
	if id, err := index.StatIdentity(t.Path); err == nil {
		if snap := e.snaps.get(key, id); snap != nil {
			return snap, nil, nil
		}
	}
	readAt := time.Now()
	if snap := readSlimSnapshot(t.Path, mode, live); snap != nil {
		snap.title = e.titles().of(t.Path)
		e.snaps.put(key, snap.id, readAt, snap)
		return snap, nil, nil
	}
	src, err := e.ix.ReadSource(t.Path)
	if err != nil {
		return nil, &ErrorObject{Code: coverage.SourceUnavailable, Message: err.Error(), SessionFile: t.Path}, nil
	}
	f := src.Parse()
	sel := lineage.Select(f, mode, live) // Select ignores live for branches "all"
	res := normalize.Session(f, sel, normalize.Lossless())
	snap := &snapshot{path: t.Path, hash: src.Hash, fp: sel.Fingerprint, mode: mode, entries: res.Entries, id: src.Identity,
		cost: wholeSnapshotCost(int64(len(src.Data)), res.Entries)}
	if f.Header != nil { // a file with no header line yet has no title
		snap.title = boundString(f.Header.Title, maxTitleChars)
	}
	if !src.Changed {
		e.snaps.put(key, src.Identity, readAt, snap)
	}
	return snap, nil, nil
}

// Expand re-reads full, untruncated normalized records: by indices, stable
// entry ids, operation addresses or an inclusive range, with before/after
// context around exactly one anchor, in chunks that reconstruct every text
// exactly by following next.
func (e *Engine) Expand(ctx context.Context, req ExpandRequest) (*ExpandResult, error) {
	return guard(e, ctx, func(ctx context.Context) (*ExpandResult, error) { return e.expandNoticed(ctx, req.args()) })
}

func (e *Engine) expandNoticed(ctx context.Context, req expandArgs) (*ExpandResult, error) {
	res, err := e.expand(ctx, req)
	if res != nil {
		res.Notices = e.noticesOnce()
	}
	return res, err
}

// expand is Expand without the notices (Walk's pages never show them).
func (e *Engine) expand(ctx context.Context, req expandArgs) (*ExpandResult, error) {
	for try := 1; ; try++ {
		res, err := e.expandOnce(ctx, req)
		if err != nil || try == maxExpandTries || res == nil || !rewrittenMeanwhile(&req, res.Error) {
			return res, err
		}
	}
}

// maxExpandTries bounds how often an expansion bound to no version reads
// a session that keeps being rewritten while it is read.
const maxExpandTries = 3

// rewrittenMeanwhile reports an expansion or a walk that found its
// session rewritten between reading it and reading its entries (eo), when
// the request is bound to no version of it: then it is read again, as a
// request made a moment later would be. (A request bound to a version gets
// the stale_pointer: it asked for the text it was bound to.)
func rewrittenMeanwhile(req *expandArgs, eo *ErrorObject) bool {
	return eo != nil && eo.Code == coverage.StalePointer &&
		req.ExpectedSourceHash == "" && req.ExpectedLineageFingerprint == ""
}

// afterSnapshot, when set (by tests only), runs between an expansion's
// (or a walk's) read of its session and its read of the entries.
var afterSnapshot func()

func (e *Engine) expandOnce(ctx context.Context, req expandArgs) (*ExpandResult, error) {
	p, res, err := e.prepareExpand(ctx, &req)
	if err != nil || p == nil {
		return res, err
	}
	if afterSnapshot != nil {
		afterSnapshot()
	}
	if p.opts.entryOffset > p.sel.Len() {
		n := p.snap.count()
		res.Error = &ErrorObject{Code: coverage.IndexOutOfBounds,
			Message: fmt.Sprintf("entryOffset %d is past the %d selected entries.", p.opts.entryOffset, p.sel.Len()), EntryCount: &n}
		return res, nil
	}
	chunkEntries(res, &req, p.snap, p.sel, p.anchor, p.opts)
	return res, nil
}

// preparedExpand is a validated expansion: the snapshot read, the options
// and the selection.
type preparedExpand struct {
	snap   *snapshot
	opts   expandOpts
	sel    selection
	anchor int
}

// prepareExpand validates req, reads the session and resolves the
// selection. A nil prepared comes with the final result (an error, or the
// metadata of a request without a selector); otherwise res holds the
// response's metadata.
func (e *Engine) prepareExpand(ctx context.Context, req *expandArgs) (*preparedExpand, *ExpandResult, error) {
	if req.Session == "" {
		return nil, expandFailure("", badRequest("memory.expand needs a session (an id or a path)")), nil
	}
	mode, err := lineage.ParseMode(string(req.Branches))
	if err != nil {
		return nil, expandFailure(req.Session, badRequest("%v", err)), nil
	}
	opts, eo := expandOptions(req)
	if eo != nil {
		return nil, expandFailure(req.Session, eo), nil
	}
	if eo := e.checkLive(req.Live); eo != nil {
		return nil, expandFailure(req.Session, eo), nil
	}
	snap, eo, err := e.readSnapshot(req.Session, mode)
	if err != nil {
		return nil, nil, err
	}
	if eo != nil {
		return nil, expandFailure(req.Session, eo), nil
	}
	if eo := checkExpectations(bound{snap.path, snap.hash, snap.fp}, req.ExpectedSourceHash, req.ExpectedLineageFingerprint); eo != nil {
		return nil, expandFailure(req.Session, eo), nil
	}
	n := snap.count()
	res := &ExpandResult{Session: snap.path, Title: snap.title, SourceHash: snap.hash, Branches: string(mode),
		LineageFingerprint: snap.fp, EntryCount: &n, Entries: []ExpandedEntry{}}
	sel, anchor, eo := selectEntries(req, snap, opts)
	if eo != nil {
		res.Entries, res.Error = []ExpandedEntry{}, eo
		return nil, res, nil
	}
	if sel == nil {
		return nil, res, nil // metadata only
	}
	return &preparedExpand{snap: snap, opts: opts, sel: *sel, anchor: anchor}, res, nil
}

type expandOpts struct {
	before, after, entryOffset, textOffset, maxChars, maxEntries int
}

func intIn(p *int64, def, min, max int, name string) (int, *ErrorObject) {
	if p == nil {
		return def, nil
	}
	if *p < int64(min) || *p > int64(max) {
		return 0, badRequest("%s must be an integer from %d to %d, not %d", name, min, max, *p)
	}
	return int(*p), nil
}

// expandOptions validates the numbers of a request and refuses what is out
// of range instead of repairing it.
func expandOptions(req *expandArgs) (expandOpts, *ErrorObject) {
	var o expandOpts
	var eo *ErrorObject
	if o.before, eo = intIn(req.Before, 0, 0, MaxContext, "before"); eo != nil {
		return o, eo
	}
	if o.after, eo = intIn(req.After, 0, 0, MaxContext, "after"); eo != nil {
		return o, eo
	}
	if o.entryOffset, eo = intIn(req.EntryOffset, 0, 0, 1<<31-1, "entryOffset"); eo != nil {
		return o, eo
	}
	if o.textOffset, eo = intIn(req.TextOffset, 0, 0, 1<<31-1, "textOffset"); eo != nil {
		return o, eo
	}
	if o.maxChars, eo = intIn(req.MaxChars, DefaultMaxChars, 1, MaxMaxChars, "maxChars"); eo != nil {
		return o, eo
	}
	if o.maxEntries, eo = intIn(req.MaxEntries, DefaultMaxEntries, 1, MaxMaxEntries, "maxEntries"); eo != nil {
		return o, eo
	}
	for _, i := range req.Indices {
		if i < 0 || !safeInt(float64(i)) {
			return o, &ErrorObject{Code: coverage.IndexOutOfBounds, Message: "Every entry index must be a non-negative safe integer."}
		}
	}
	for _, s := range req.EntryIDs {
		if s == "" {
			return o, badRequest("entryIds must be non-empty strings")
		}
	}
	for _, s := range req.OperationAddresses {
		if s == "" {
			return o, badRequest("operationAddresses must be non-empty strings")
		}
	}
	if len(req.Indices)+len(req.EntryIDs)+len(req.OperationAddresses) > MaxExactSelectors {
		return o, badRequest("at most %d exact selectors (indices, entryIds, operationAddresses) per call", MaxExactSelectors)
	}
	if req.EntryRange != nil {
		if eo := req.EntryRange.check(); eo != nil {
			return o, eo
		}
	}
	return o, nil
}

// selection is a sorted set of entry positions: the exact points (at most
// MaxExactSelectors) outside an optional inclusive range. It is never
// materialized, so that a page of a long range costs what the page holds.
type selection struct {
	pts    []int // sorted, unique, none inside [lo, hi]
	lo, hi int   // the range; hi < lo when there is none
	below  int   // the points before lo
}

func newSelection(pts []int, lo, hi int) *selection {
	sort.Ints(pts)
	s := &selection{lo: lo, hi: hi}
	for i, p := range pts {
		if i > 0 && p == pts[i-1] {
			continue
		}
		if lo <= p && p <= hi {
			continue
		}
		s.pts = append(s.pts, p)
		if p < lo {
			s.below++
		}
	}
	return s
}

func (s *selection) rangeLen() int { return max(0, s.hi-s.lo+1) }

// Len is the number of selected entries.
func (s *selection) Len() int { return len(s.pts) + s.rangeLen() }

// At is the k-th selected entry position, 0 <= k < Len.
func (s *selection) At(k int) int {
	if k < s.below {
		return s.pts[k]
	}
	if r := s.rangeLen(); k < s.below+r {
		return s.lo + k - s.below
	} else {
		return s.pts[k-r]
	}
}

// selectEntries resolves the selectors to sorted entry positions; nil
// means no selector (metadata only). anchor is the single anchor when
// before/after context was asked for, else -1.
func selectEntries(req *expandArgs, snap *snapshot, o expandOpts) (*selection, int, *ErrorObject) {
	n := snap.count()
	if !req.hasSelector() {
		if o.before > 0 || o.after > 0 {
			return nil, -1, badRequest("before and after need a selector with exactly one entry")
		}
		return nil, -1, nil
	}
	var pts []int
	for _, i := range req.Indices {
		if i >= int64(n) {
			return nil, -1, &ErrorObject{Code: coverage.IndexOutOfBounds,
				Message: fmt.Sprintf("Entry index %d is outside the session's %d entries.", i, n), EntryCount: &n}
		}
		pts = append(pts, int(i))
	}
	resolveAddr := func(kind, addr string, get func(int) (string, bool)) *ErrorObject {
		matches := 0
		at := -1
		for i := 0; i < n; i++ {
			if a, ok := get(i); ok && a == addr {
				matches++
				at = i
			}
		}
		switch matches {
		case 1:
			pts = append(pts, at)
			return nil
		case 0:
			return &ErrorObject{Code: coverage.AddressNotFound, Message: fmt.Sprintf("No entry has %s %q on this branch selection.", kind, addr),
				AddressType: kind, Address: addr, Matches: &matches}
		}
		return &ErrorObject{Code: coverage.AmbiguousAddress, Message: fmt.Sprintf("%d entries have %s %q.", matches, kind, addr),
			AddressType: kind, Address: addr, Matches: &matches}
	}
	for _, id := range req.EntryIDs {
		if eo := resolveAddr("entry_id", id, snap.entryID); eo != nil {
			return nil, -1, eo
		}
	}
	for _, a := range req.OperationAddresses {
		if eo := resolveAddr("operation_address", a, snap.operationAddress); eo != nil {
			return nil, -1, eo
		}
	}
	lo, hi := 0, -1
	if r := req.EntryRange; r != nil {
		if eo := r.within(n); eo != nil {
			return nil, -1, eo
		}
		lo, hi = int(r.First), int(r.Last)
	}
	sel := newSelection(pts, lo, hi)
	anchor := -1
	if o.before > 0 || o.after > 0 {
		if sel.Len() != 1 {
			return nil, -1, badRequest("before and after need a selector with exactly one entry, not %d", sel.Len())
		}
		anchor = sel.At(0)
		sel = newSelection(nil, max(0, anchor-o.before), min(n-1, anchor+o.after))
	}
	return sel, anchor, nil
}

// chunkEntries fills res with up to maxEntries records from the cursor,
// spending at most maxChars of text, then keeps the response in the
// envelope, and sets next when anything remains.
func chunkEntries(res *ExpandResult, req *expandArgs, snap *snapshot, sel selection, anchor int, o expandOpts) {
	budget := o.maxChars
	eoff, toff := o.entryOffset, o.textOffset
	type cursor struct{ entry, text int }
	var cursors []cursor // the cursor before each emitted record
	rd, eo := snap.open()
	if eo != nil {
		res.Entries, res.Error, res.Next = res.Entries[:0], eo, nil
		return
	}
	defer rd.close()
	for eoff < sel.Len() && len(res.Entries) < o.maxEntries && budget > 0 {
		e, eo := rd.entry(sel.At(eoff))
		if eo != nil {
			res.Entries, res.Error, res.Next = res.Entries[:0], eo, nil
			return
		}
		total := jsjson.UTF16Len(e.Text)
		if toff > total {
			n := total
			res.Entries = res.Entries[:0]
			res.Error = &ErrorObject{Code: coverage.TextOffsetOutOfBounds,
				Message: fmt.Sprintf("textOffset %d is past the entry's %d characters.", toff, total), TextLength: &n}
			res.Next = nil
			return
		}
		end := toff + budget
		if end > total {
			end = total
		}
		bs, be := unitsToBytes(e.Text, toff, end)
		chunkEnd := toff + jsjson.UTF16Len(e.Text[bs:be])
		if chunkEnd == toff && toff < total {
			// The budget cannot hold the next character (an astral one):
			// take it whole so that the walk always advances.
			_, be = unitsToBytes(e.Text, toff, toff+2)
			chunkEnd = toff + jsjson.UTF16Len(e.Text[bs:be])
		}
		rec := expandedEntry(e, anchor)
		rec.Text = e.Text[bs:be]
		rec.TextRange = TextRange{Start: toff, End: chunkEnd, Total: total, Complete: chunkEnd == total}
		cursors = append(cursors, cursor{eoff, toff})
		res.Entries = append(res.Entries, rec)
		budget -= chunkEnd - toff
		if chunkEnd < total {
			toff = chunkEnd
			break // a partial entry ends the page
		}
		eoff++
		toff = 0
	}
	nextAt := func(entry, text int) *FabricCall {
		if entry >= sel.Len() {
			return nil
		}
		a := canonicalSelection(req, snap, anchor)
		a.EntryOffset = i64(int64(entry))
		if text > 0 {
			a.TextOffset = i64(int64(text))
		}
		a.MaxChars = i64(int64(o.maxChars))
		a.MaxEntries = i64(int64(o.maxEntries))
		return &FabricCall{Ref: "memory.expand", Args: marshalArgs(a)}
	}
	res.Next = nextAt(eoff, toff)
	// The envelope: drop trailing records, then cut the last one's text.
	for jsonLen(res) > MaxResponseChars && len(res.Entries) > 1 {
		last := len(res.Entries) - 1
		c := cursors[last]
		res.Entries = res.Entries[:last]
		cursors = cursors[:last]
		res.Next = nextAt(c.entry, c.text)
	}
	if len(res.Entries) == 1 && jsonLen(res) > MaxResponseChars {
		shrinkLone(res, cursors[0].entry, nextAt)
	}
}

// shrinkLone keeps a response of one record within the envelope, measuring
// the final response each time: the record's next call (which a cut adds
// or lengthens) counts too. It cuts the text first (surrogate-safe, by at
// least the excess), then drops the structured payloads and trims
// filesTouched, and at last keeps only the record's core fields and one
// character of text. entry is the record's position in the selection.
func shrinkLone(res *ExpandResult, entry int, nextAt func(entry, text int) *FabricCall) {
	r := &res.Entries[0]
	setNext := func() {
		if r.TextRange.Complete {
			res.Next = nextAt(entry+1, 0)
		} else {
			res.Next = nextAt(entry, r.TextRange.End)
		}
	}
	cut := func(keep int) {
		if keep < 1 {
			keep = 1
		}
		_, be := unitsToBytes(r.Text, 0, keep)
		if be == 0 {
			_, be = unitsToBytes(r.Text, 0, 2) // one astral character
		}
		r.Text = r.Text[:be]
		r.TextRange.End = r.TextRange.Start + jsjson.UTF16Len(r.Text)
		r.TextRange.Complete = r.TextRange.End == r.TextRange.Total
		setNext()
	}
	minText := func() bool {
		_, be := unitsToBytes(r.Text, 0, 1)
		if be == 0 {
			_, be = unitsToBytes(r.Text, 0, 2)
		}
		return len(r.Text) <= be
	}
	// Each cut removes at least the excess in UTF-16 units of text, and a
	// text's JSON is never shorter than its units, so this ends in a few
	// rounds; the bound only guards against a mistake.
	margin := 256
	for i := 0; i < 64 && !minText(); i++ {
		n := jsonLen(res)
		if n <= MaxResponseChars {
			return
		}
		cut(jsjson.UTF16Len(r.Text) - (n - MaxResponseChars) - margin)
		margin = 16
	}
	if jsonLen(res) <= MaxResponseChars {
		return
	}
	r.Operation, r.BranchFact = nil, nil
	r.StructuredTruncated = true
	if len(r.FilesTouched) > 4 {
		r.FilesTouched = r.FilesTouched[:4]
	}
	for i := range r.FilesTouched {
		r.FilesTouched[i] = boundString(r.FilesTouched[i], 256)
	}
	if jsonLen(res) <= MaxResponseChars {
		return
	}
	// The core fields only, with one character of text.
	core := ExpandedEntry{Index: r.Index, EntryID: r.EntryID, ParentID: r.ParentID, Type: r.Type, Role: r.Role,
		Timestamp: r.Timestamp, IsError: r.IsError, Anchor: r.Anchor, Text: r.Text, TextRange: r.TextRange,
		StructuredTruncated: true}
	*r = core
	cut(1)
}

func i64(v int64) *int64 { return &v }

// canonicalSelection repeats a request's selection, bound to the snapshot.
func canonicalSelection(req *expandArgs, snap *snapshot, anchor int) expandArgs {
	a := expandArgs{
		Session:                    snap.path,
		ExpectedSourceHash:         snap.hash,
		ExpectedLineageFingerprint: snap.fp,
		Branches:                   Branches(snap.mode),
		Indices:                    req.Indices,
		EntryIDs:                   req.EntryIDs,
		OperationAddresses:         req.OperationAddresses,
		EntryRange:                 req.EntryRange,
	}
	if anchor >= 0 {
		a.Before, a.After = req.Before, req.After
	}
	return a
}

func expandedEntry(e *normalize.Entry, anchor int) ExpandedEntry {
	b := func(p *string) *string {
		if p == nil {
			return nil
		}
		v := boundString(*p, MaxMetaChars)
		return &v
	}
	r := ExpandedEntry{
		Index: e.Index, EntryID: b(e.EntryID), ParentID: b(e.ParentID), Type: e.Type, Role: b(e.Role),
		Timestamp: e.Timestamp, IsError: e.IsError, ParentEntryID: b(e.ParentEntryID),
		OperationAddress: b(e.OperationAddress), Tool: b(e.Tool), Tools: e.Tools, Ref: b(e.Ref),
		Provider: b(e.Provider), Action: b(e.Action), Outcome: e.Outcome, FactAddress: b(e.FactAddress),
		CarrierEntryID: b(e.CarrierEntryID), CarrierParentID: b(e.CarrierParentID), CarrierFromID: b(e.CarrierFromID),
	}
	if r.Type == "" {
		r.Type = "entry"
	}
	if anchor >= 0 {
		a := e.Index == anchor
		r.Anchor = &a
	}
	for i, f := range e.FilesTouched {
		if i == MaxFilesTouchedOut {
			r.StructuredTruncated = true
			break
		}
		r.FilesTouched = append(r.FilesTouched, boundString(f, MaxFileTouchedChars))
	}
	for _, sv := range []struct {
		v   jsjson.Value
		dst *rawMessage
	}{{e.Operation, &r.Operation}, {e.BranchFact, &r.BranchFact}} {
		if !sv.v.Exists() {
			continue
		}
		js := jsjson.Stringify(sv.v)
		if jsjson.UTF16Len(js) > MaxStructuredChars {
			r.StructuredTruncated = true
			continue
		}
		*sv.dst = rawMessage(js)
	}
	return r
}
