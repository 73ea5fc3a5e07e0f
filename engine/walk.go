package engine

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/memidx/memidx/coverage"
)

// WalkResult is what a walk did.
type WalkResult struct {
	Visited int          `json:"visited"`
	Stopped bool         `json:"stopped"`
	Error   *ErrorObject `json:"error,omitempty"`
}

// Walk visits complete normalized entries in order: every entry of the
// session when sel selects nothing, otherwise the selection (with its
// before/after context). It follows every expansion page, checks that the
// chunks of each entry are contiguous, and reassembles the text before
// calling visit, so the visitor always sees a whole entry. visit returning
// false stops the walk; its error ends the walk and is returned as is. A
// provider failure (stale_pointer, address_not_found, …) comes back in
// WalkResult.Error. The whole walk is bound to the source hash and lineage
// of its first page, so a session that changes mid-walk answers
// stale_pointer instead of mixing two versions.
func (e *Engine) Walk(ctx context.Context, sel ExpandRequest, visit func(ExpandedEntry) (bool, error)) (*WalkResult, error) {
	if sel.TextOffset != nil && *sel.TextOffset != 0 {
		return nil, &ErrorObject{Code: coverage.InvalidRequest, Message: "walk starts from an original selection: textOffset must be 0"}
	}
	res := &WalkResult{}
	none := !sel.hasSelector()
	req := sel
	if none {
		if sel.EntryOffset != nil || sel.Before != nil || sel.After != nil {
			return nil, &ErrorObject{Code: coverage.InvalidRequest, Message: "entryOffset, before and after need a selection"}
		}
		meta, err := e.expand(ctx, sel)
		if err != nil {
			return nil, err
		}
		if meta.Error != nil {
			res.Error = meta.Error
			return res, nil
		}
		if meta.EntryCount == nil || *meta.EntryCount == 0 {
			return res, nil
		}
		req = ExpandRequest{
			Session:                    meta.Session,
			ExpectedSourceHash:         meta.SourceHash,
			ExpectedLineageFingerprint: meta.LineageFingerprint,
			Branches:                   meta.Branches,
			EntryRange:                 &Range{First: 0, Last: int64(*meta.EntryCount - 1)},
			MaxChars:                   sel.MaxChars,
			MaxEntries:                 sel.MaxEntries,
			Live:                       sel.Live,
		}
	}
	seen := map[string]bool{}
	var cur *ExpandedEntry
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		page, err := e.expand(ctx, req)
		if err != nil {
			return nil, err
		}
		if page.Error != nil {
			res.Error = page.Error
			return res, nil
		}
		for i := range page.Entries {
			ch := page.Entries[i]
			tr := ch.TextRange
			if tr.Start < 0 || tr.Start > tr.End || tr.End > tr.Total {
				return nil, fmt.Errorf("engine: walk: bad textRange %+v for entry %d", tr, ch.Index)
			}
			if cur != nil {
				if ch.Index != cur.Index || tr.Start != cur.TextRange.End || tr.Total != cur.TextRange.Total {
					return nil, fmt.Errorf("engine: walk: entry %d continues at %d of %d, expected entry %d at %d",
						ch.Index, tr.Start, tr.Total, cur.Index, cur.TextRange.End)
				}
				cur.Text += ch.Text
				cur.TextRange.End = tr.End
				cur.TextRange.Complete = tr.Complete
			} else {
				if tr.Start != 0 {
					return nil, fmt.Errorf("engine: walk: entry %d starts at %d", ch.Index, tr.Start)
				}
				c := ch
				cur = &c
			}
			if !cur.TextRange.Complete {
				continue
			}
			whole := *cur
			cur = nil
			res.Visited++
			more, err := visit(whole)
			if err != nil {
				return res, err
			}
			if !more {
				res.Stopped = true
				return res, nil
			}
		}
		if page.Next == nil {
			if cur != nil {
				return nil, fmt.Errorf("engine: walk: the last page ends inside entry %d", cur.Index)
			}
			return res, nil
		}
		key := string(page.Next.Args)
		if seen[key] {
			return nil, fmt.Errorf("engine: walk: expansion repeats a continuation")
		}
		seen[key] = true
		var next ExpandRequest
		if err := json.Unmarshal(page.Next.Args, &next); err != nil {
			return nil, err
		}
		next.Live = req.Live
		req = next
	}
}
