package cli

import (
	"context"
	"io"
	"strings"

	"github.com/memidx/memidx/engine"
)

func cmdCatalog(ctx context.Context, g globals, args []string, stdout io.Writer) error {
	fl := newFlags("catalog")
	file := fl.String("catalog", "", "capability catalog JSON file (default: the built-in memory provider)")
	limit := fl.Int("limit", 0, "at most this many actions or hits")
	pos, err := parseInterleaved(fl, args)
	if err != nil {
		return err
	}
	e, err := openEngineWith(g, *file, nil)
	if err != nil {
		return err
	}
	var res engine.Failure
	switch {
	case len(pos) == 0:
		res, err = e.ToolCatalog(ctx, engine.ToolCatalogRequest{Limit: *limit})
	case pos[0] == "search":
		res, err = e.SearchTools(ctx, engine.ToolSearchRequest{Query: strings.Join(pos[1:], " "), Limit: *limit})
	case pos[0] == "describe":
		if len(pos) != 2 {
			return usageError("catalog describe takes one REF")
		}
		res, err = e.DescribeTool(ctx, engine.ToolDescribeRequest{Ref: pos[1]})
	default:
		return usageError("catalog takes search QUERY or describe REF")
	}
	if err != nil {
		return err
	}
	if rerr := res.Err(); rerr != nil {
		return rerr
	}
	return writeJSON(stdout, g.pretty, res)
}
