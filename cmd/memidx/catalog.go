package main

import (
	"context"
	"encoding/json"
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
	method, params := "tools.catalog", map[string]any{}
	if *limit != 0 {
		params["limit"] = *limit
	}
	if len(pos) > 0 {
		switch pos[0] {
		case "search":
			method = "tools.search"
			params["query"] = strings.Join(pos[1:], " ")
		case "describe":
			if len(pos) != 2 {
				return usageError("catalog describe takes one REF")
			}
			method = "tools.describe"
			params = map[string]any{"ref": pos[1]}
		default:
			return usageError("catalog takes search QUERY or describe REF")
		}
	}
	raw, _ := json.Marshal(params)
	res, err := e.Tools(method, raw)
	if err != nil {
		return err
	}
	if te, ok := res.(*engine.ToolsError); ok {
		return te.Error
	}
	return writeJSON(stdout, g.pretty, res)
}
