package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/memidx/memidx/internal/coverage"
	"github.com/memidx/memidx/internal/jsjson"
)

// Walk page bounds: entries per page, and the bytes a page's entries may
// take as JSON. A host that cannot take a whole entry in one message walks
// it in pages of DefaultWalkPageBytes: an entry larger than that arrives
// in chunks, each with its textRange, and the page's next continues
// inside it.
const (
	DefaultWalkPageSize  = 100
	MaxWalkPageSize      = 1000
	DefaultWalkPageBytes = 1 << 20
	// MinWalkPageBytes is the smallest page a host may ask for: room for
	// an entry's metadata and some of its text.
	MinWalkPageBytes = 16 << 10
	// walkChunkMin is the least text room for which a page starts a
	// partial entry after others rather than ending before it.
	walkChunkMin = 4 << 10
	// maxWalkTries bounds how often an unbound walk page reads a session
	// that keeps changing under it.
	maxWalkTries = 3
)

// WalkPageRequest is memory.walk's argument object, memidx's extension of
// the spec's guest-local walk for hosts without a TypeScript runtime: the
// selection memory.expand takes, a page of it at a time.
type WalkPageRequest struct {
	// Selection is memory.expand's selection. Its TextOffset continues
	// inside the page's first entry (as next does); EntryOffset, MaxChars
	// and MaxEntries are expand's and ignored by the page.
	Selection ExpandRequest
	// PageSize is the entries of a page: 0 is DefaultWalkPageSize, at
	// most MaxWalkPageSize.
	PageSize int
	// Offset is the entries of the selection already returned.
	Offset int
	// MaxBytes bounds the JSON of the page's entries: 0 is
	// Options.WalkPageBytes, else DefaultWalkPageBytes; at least
	// MinWalkPageBytes. It is the host's setting, not an argument on the
	// wire.
	MaxBytes int
}

// WalkPage is memory.walk's result: entries in order, each complete
// unless it is the page's last and larger than a page (textRange says),
// and the call for the next page, null at the end.
type WalkPage struct {
	Session            string          `json:"session"`
	SourceHash         string          `json:"sourceHash,omitempty"`
	LineageFingerprint string          `json:"lineageFingerprint,omitempty"`
	Branches           string          `json:"branches,omitempty"`
	Entries            []ExpandedEntry `json:"entries"`
	Next               *FabricCall     `json:"next"`
	Error              *ErrorObject    `json:"error,omitempty"`
	Notices            []Notice        `json:"notices,omitempty"`
}

// Err is the page's error, or nil.
func (p *WalkPage) Err() error {
	if p.Error != nil {
		return p.Error
	}
	return nil
}

// walkPageRefused are memory.expand's chunk bounds, which a walk page
// does not take.
var walkPageRefused = []string{"maxChars", "maxEntries"}

// walkPageFields are the page's own arguments beside the selection.
type walkPageFields struct {
	PageSize *int64 `json:"pageSize,omitempty"`
	Offset   *int64 `json:"offset,omitempty"`
}

// DecodeWalkPage parses memory.walk arguments: memory.expand's selection
// plus pageSize and offset, strictly.
func DecodeWalkPage(b []byte) (WalkPageRequest, *ErrorObject) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(bytes.TrimSpace(orObject(b)), &fields); err != nil || fields == nil {
		return WalkPageRequest{}, badRequest("memory.walk takes an object: memory.expand's selection, pageSize and offset")
	}
	for _, k := range walkPageRefused {
		if _, ok := fields[k]; ok {
			return WalkPageRequest{}, badRequest("memory.walk: unknown argument %q; a page is bounded by pageSize and the host's byte bound", k)
		}
	}
	own := map[string]json.RawMessage{}
	for _, k := range []string{"pageSize", "offset"} {
		if raw, ok := fields[k]; ok {
			own[k] = raw
			delete(fields, k)
		}
	}
	var pf walkPageFields
	ownJSON, _ := json.Marshal(own)
	if eo := decodeArgs(ownJSON, &pf, nil); eo != nil {
		return WalkPageRequest{}, eo
	}
	if pf.PageSize != nil && *pf.PageSize < 1 {
		return WalkPageRequest{}, badRequest("memory.walk: pageSize must be an integer from 1 to %d", MaxWalkPageSize)
	}
	rest, _ := json.Marshal(fields)
	sel, eo := DecodeExpand(rest)
	if eo != nil {
		return WalkPageRequest{}, eo
	}
	return WalkPageRequest{Selection: sel, PageSize: int64Int(pf.PageSize), Offset: int64Int(pf.Offset)}, nil
}

func orObject(b []byte) []byte {
	if len(bytes.TrimSpace(b)) == 0 {
		return []byte("{}")
	}
	return b
}

// check validates the page's own fields and fills their defaults.
func (r *WalkPageRequest) check() *ErrorObject {
	switch {
	case r.PageSize == 0:
		r.PageSize = DefaultWalkPageSize
	case r.PageSize < 1 || r.PageSize > MaxWalkPageSize:
		return badRequest("memory.walk: pageSize must be an integer from 1 to %d", MaxWalkPageSize)
	}
	if r.Offset < 0 {
		return badRequest("memory.walk: offset must be an integer from 0")
	}
	if r.Selection.TextOffset < 0 {
		return badRequest("memory.walk: textOffset must be an integer from 0")
	}
	if r.MaxBytes == 0 {
		r.MaxBytes = DefaultWalkPageBytes
	}
	if r.MaxBytes < MinWalkPageBytes {
		r.MaxBytes = MinWalkPageBytes
	}
	return nil
}

// WalkPage answers one page of a walk (memory.walk). The first page pins
// the session's path, source hash and lineage fingerprint into next, so a
// walk reads one version of the session or answers stale_pointer. A
// whole-session or range walk continues with a narrower entryRange, any
// other selection with offset; a page that ends inside an entry continues
// with textOffset. Domain failures are results, as from Expand.
func (e *Engine) WalkPage(ctx context.Context, req WalkPageRequest) (*WalkPage, error) {
	return guard(e, ctx, func(ctx context.Context) (*WalkPage, error) { return e.walkPage(ctx, req) })
}

func (e *Engine) walkPage(ctx context.Context, req WalkPageRequest) (*WalkPage, error) {
	if req.MaxBytes == 0 {
		req.MaxBytes = e.opt.WalkPageBytes
	}
	if eo := req.check(); eo != nil {
		return &WalkPage{Session: req.Selection.Session, Entries: []ExpandedEntry{}, Error: eo}, nil
	}
	// A page bound to no version pins the one its first read finds; a
	// session rewritten between that read and the walk is read again,
	// not answered stale_pointer (a live session grows all the time).
	sel := req.Selection
	unbound := sel.ExpectedSourceHash == "" && sel.ExpectedLineageFingerprint == ""
	for try := 1; ; try++ {
		page, stale, err := e.walkPageOnce(ctx, req)
		if err != nil || !stale || !unbound || try == maxWalkTries {
			return page, err
		}
	}
}

// beforeWalkPage, when set (by tests only), runs between a walk page's
// read of the session's version and its walk.
var beforeWalkPage func()

// walkPageOnce is one try of a page; stale reports that the session
// changed between the page's two reads.
func (e *Engine) walkPageOnce(ctx context.Context, req WalkPageRequest) (_ *WalkPage, stale bool, _ error) {
	sel := req.Selection
	meta, err := e.expandNoticed(ctx, ExpandRequest{Session: sel.Session, Branches: sel.Branches, Live: sel.Live,
		ExpectedSourceHash: sel.ExpectedSourceHash, ExpectedLineageFingerprint: sel.ExpectedLineageFingerprint}.args())
	if err != nil {
		return nil, false, err
	}
	page := &WalkPage{Session: meta.Session, SourceHash: meta.SourceHash, LineageFingerprint: meta.LineageFingerprint,
		Branches: meta.Branches, Entries: []ExpandedEntry{}, Notices: meta.Notices}
	if meta.Error != nil {
		page.Error = meta.Error
		return page, false, nil
	}
	sel.Session, sel.ExpectedSourceHash, sel.ExpectedLineageFingerprint, sel.Branches = meta.Session, meta.SourceHash, meta.LineageFingerprint, Branches(meta.Branches)
	w := &pageWalk{req: req, page: page}
	var empty bool
	w.byRange, empty = w.pinRange(&sel, meta.EntryCount)
	if empty {
		return page, false, nil
	}
	if beforeWalkPage != nil {
		beforeWalkPage()
	}
	walkSel := sel
	walkSel.TextOffset = 0
	res, err := e.Walk(ctx, walkSel, w.visit)
	switch {
	case err != nil:
		return nil, false, err
	case w.err != nil:
		page.Entries, page.Error = []ExpandedEntry{}, w.err
		return page, false, nil
	case res.Error != nil:
		page.Entries, page.Error = []ExpandedEntry{}, res.Error
		return page, res.Error.Code == coverage.StalePointer, nil
	case w.more:
		page.Next = w.next(sel)
	}
	return page, false, nil
}

// pageWalk gathers one page as the walk visits entries.
type pageWalk struct {
	req     WalkPageRequest
	page    *WalkPage
	byRange bool
	skipped int
	used    int  // JSON bytes of the page's entries
	more    bool // entries (or text) remain after the page
	cut     int  // UTF-16 end of the last entry's chunk when it is partial
	err     *ErrorObject
}

func (w *pageWalk) hasSelector(sel ExpandRequest) bool {
	return len(sel.Indices) > 0 || len(sel.EntryIDs) > 0 || len(sel.OperationAddresses) > 0
}

// pinRange makes a whole-session walk a range walk over the entries the
// first read counted, and says whether the walk continues by range and
// whether the session has no entries to walk.
func (w *pageWalk) pinRange(sel *ExpandRequest, count *int) (byRange, empty bool) {
	a := sel.args() // given, even as 0: the wire tells them from absent
	plain := a.Before == nil && a.After == nil && a.EntryOffset == nil
	if w.hasSelector(*sel) || !plain {
		return false, false
	}
	if sel.EntryRange == nil {
		if count == nil || *count == 0 {
			return false, true
		}
		sel.EntryRange = &Range{First: 0, Last: *count - 1}
	}
	return true, false
}

func (w *pageWalk) visit(en ExpandedEntry) (bool, error) {
	if w.skipped < w.req.Offset {
		w.skipped++
		return true, nil
	}
	entries := w.page.Entries
	if len(entries) >= w.req.PageSize || w.cut > 0 {
		w.more = true
		return false, nil
	}
	if n := len(entries); n > 0 && en.Index <= entries[n-1].Index {
		w.byRange = false // not in index order: continue by offset
	}
	start := 0
	if len(entries) == 0 {
		start = w.req.Selection.TextOffset
	}
	total := jsjson.UTF16Len(en.Text)
	if start > total {
		w.err = &ErrorObject{Code: coverage.TextOffsetOutOfBounds,
			Message: fmt.Sprintf("textOffset %d is past the entry's %d characters.", start, total), TextLength: &total}
		return false, nil
	}
	room := w.req.MaxBytes - w.used
	bs, _ := unitsToBytes(en.Text, start, total)
	base := jsonLen(entryWithText(en, "", TextRange{Start: start, End: total, Total: total})) + 1
	if cost := base + jsonTextCost(en.Text[bs:]); cost <= room {
		w.add(entryWithText(en, en.Text[bs:], TextRange{Start: start, End: total, Total: total, Complete: true}), cost)
		return true, nil
	}
	if len(entries) > 0 && room-base < walkChunkMin {
		w.more = true // the next page starts with it
		return false, nil
	}
	be := prefixWithin(en.Text, bs, room-base)
	end := start + jsjson.UTF16Len(en.Text[bs:be])
	w.add(entryWithText(en, en.Text[bs:be], TextRange{Start: start, End: end, Total: total}), room)
	w.cut = end
	w.more = true
	return false, nil
}

func (w *pageWalk) add(en ExpandedEntry, cost int) {
	w.page.Entries = append(w.page.Entries, en)
	w.used += cost
}

func entryWithText(en ExpandedEntry, text string, r TextRange) ExpandedEntry {
	en.Text, en.TextRange = text, r
	return en
}

// next is the call for the page after this one, bound to the version the
// page read.
func (w *pageWalk) next(sel ExpandRequest) *FabricCall {
	entries := w.page.Entries
	done := len(entries) // complete entries the page returned
	textOffset := 0
	if w.cut > 0 {
		done--
		textOffset = w.cut
	}
	offset := w.req.Offset + done
	if w.byRange && len(entries) > 0 {
		r := *sel.EntryRange
		r.First = entries[len(entries)-1].Index + 1
		if w.cut > 0 {
			r.First--
		}
		sel.EntryRange, offset = &r, 0
	}
	sel.TextOffset = textOffset
	args := sel.args()
	args.MaxChars, args.MaxEntries = nil, nil
	b, _ := json.Marshal(args)
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	m["pageSize"] = w.req.PageSize
	if offset > 0 {
		m["offset"] = offset
	}
	return &FabricCall{Ref: "memory.walk", Args: marshalArgs(m)}
}

// jsonTextCost bounds the bytes text takes as a JSON string by any
// encoder: escapes counted at their longest (\u00XX, and HTML-safe
// encoders' \u003c).
func jsonTextCost(s string) int {
	return prefixCost(s, len(s))
}

// prefixWithin is the end (a byte offset, on a character boundary) of the
// longest text from bs whose JSON fits room bytes; at least one character,
// so that a walk always advances.
func prefixWithin(s string, bs, room int) int {
	cost, i := 0, bs
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		c := runeCost(r, size)
		if cost+c > room && i > bs {
			break
		}
		cost += c
		i += size
	}
	return i
}

func prefixCost(s string, n int) int {
	cost := 2 // the quotes
	for i := 0; i < n; {
		r, size := utf8.DecodeRuneInString(s[i:])
		cost += runeCost(r, size)
		i += size
	}
	return cost
}

func runeCost(r rune, size int) int {
	switch {
	case r == utf8.RuneError && size == 1:
		return 6 // \ufffd
	case r < 0x20, r == '<', r == '>', r == '&', r == 0x2028, r == 0x2029:
		return 6
	case r == '"', r == '\\':
		return 2
	}
	return size
}
