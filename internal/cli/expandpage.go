package cli

import (
	"context"
	"slices"

	"github.com/memidx/memidx/engine"
)

// firstPage gives `memidx expand SESSION` without a selector what its help
// promises: the session's first page of entries, not only its metadata
// (the wire's answer to a request without a selector, which a JSON
// request still gets).
func firstPage(ctx context.Context, e *engine.Engine, args []string, req engine.ExpandRequest, res *engine.ExpandResult) (*engine.ExpandResult, error) {
	if slices.ContainsFunc(args, isJSONArg) || hasSelector(req) || res.Error != nil || res.EntryCount == nil || *res.EntryCount == 0 {
		return res, nil
	}
	req.Session = res.Session // the file resolved, not the prefix again
	req.EntryRange = &engine.Range{First: 0, Last: *res.EntryCount - 1}
	page, err := e.Expand(ctx, req)
	if err != nil {
		return nil, err
	}
	page.Notices = slices.Concat(res.Notices, page.Notices) // the first answer's
	return page, nil
}

func hasSelector(req engine.ExpandRequest) bool {
	return len(req.Indices) > 0 || len(req.EntryIDs) > 0 || len(req.OperationAddresses) > 0 || req.EntryRange != nil
}
