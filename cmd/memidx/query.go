package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/memidx/memidx/engine"
	"github.com/memidx/memidx/normalize"
)

// liveFlags are the CLI's way to hand in a host's live session.
type liveFlags struct {
	file, leaf, branch *string
}

func addLiveFlags(fl *flag.FlagSet) liveFlags {
	return liveFlags{
		file:   fl.String("live-session", "", "the host's live session file"),
		leaf:   fl.String("live-leaf", "", "the live leaf id"),
		branch: fl.String("live-branch", "", "the live branch ids, root to leaf, comma-separated"),
	}
}

// apply makes the flags the engine's live session: the host's, which a
// request may only repeat.
func (l liveFlags) apply(g *globals) {
	if s := l.live(); s != nil {
		g.live = s
	}
}

func (l liveFlags) live() *engine.StaticLive {
	if *l.file == "" {
		return nil
	}
	s := &engine.StaticLive{File: *l.file, Leaf: *l.leaf}
	if *l.branch != "" {
		s.Branch = strings.Split(*l.branch, ",")
	}
	return s
}

// requestJSON returns the JSON request of a command: the single positional
// argument, or stdin for "-".
func requestJSON(pos []string, stdin io.Reader) ([]byte, bool, error) {
	if len(pos) == 0 {
		return nil, false, nil
	}
	if len(pos) > 1 {
		return nil, false, usageError("give the request as one JSON argument (quote it), or - for stdin")
	}
	if pos[0] == "-" {
		b, err := io.ReadAll(io.LimitReader(stdin, 16<<20))
		return b, true, err
	}
	return []byte(pos[0]), true, nil
}

func cmdRecall(ctx context.Context, g globals, args []string, stdin io.Reader, stdout io.Writer) error {
	fl := newFlags("recall")
	query := fl.String("q", "", "query text")
	fl.StringVar(query, "query", "", "query text")
	mode := fl.String("mode", "", "literal (default), phrase or regex")
	match := fl.String("match", "", "any (default) or all")
	scope := fl.String("scope", "", "session (default), project, global or session:<id-or-path>")
	branches := fl.String("branches", "", "active (default) or all")
	filt := map[string]*string{}
	for _, k := range []string{"role", "tool", "ref", "provider", "action", "outcome"} {
		filt[k] = fl.String(k, "", "exact "+k+" filter")
	}
	since := fl.String("since", "", "epoch ms or ISO date (inclusive)")
	until := fl.String("until", "", "epoch ms or ISO date (inclusive)")
	pageSize := fl.Int("page-size", 0, "hits per page (1..50)")
	offset := fl.Int("offset", 0, "skip this many ranked hits")
	snippet := fl.Int("snippet-chars", 0, "snippet length (80..2000)")
	lf := addLiveFlags(fl)
	pos, err := parseInterleaved(fl, args)
	if err != nil {
		return err
	}
	lf.apply(&g)
	e, err := openEngine(g)
	if err != nil {
		return err
	}
	var req engine.RecallRequest
	raw, isJSON, err := requestJSON(pos, stdin)
	if err != nil {
		return err
	}
	if isJSON {
		var eo *engine.ErrorObject
		if req, eo = engine.DecodeRecall(raw); eo != nil {
			return eo
		}
	}
	set := func(dst **string, v string) {
		if v != "" {
			s := v
			*dst = &s
		}
	}
	set(&req.Query, *query)
	if *mode != "" {
		req.QueryMode = *mode
	}
	if *match != "" {
		req.QueryMatch = *match
	}
	if *scope != "" {
		req.Scope = *scope
	}
	if *branches != "" {
		req.Branches = *branches
	}
	set(&req.Role, *filt["role"])
	set(&req.Tool, *filt["tool"])
	set(&req.Ref, *filt["ref"])
	set(&req.Provider, *filt["provider"])
	set(&req.Action, *filt["action"])
	set(&req.Outcome, *filt["outcome"])
	for _, t := range []struct {
		v   string
		dst **float64
	}{{*since, &req.Since}, {*until, &req.Until}} {
		if t.v == "" {
			continue
		}
		ms, err := parseTime(t.v)
		if err != nil {
			return err
		}
		*t.dst = &ms
	}
	if *pageSize != 0 {
		f := float64(*pageSize)
		req.PageSize = &f
	}
	if *offset != 0 {
		f := float64(*offset)
		req.Offset = &f
	}
	if *snippet != 0 {
		f := float64(*snippet)
		req.SnippetChars = &f
	}
	page, err := e.Recall(ctx, req)
	if err != nil {
		return err
	}
	if !g.pretty && isTerminal(stdout) {
		printRecall(stdout, page)
		return nil
	}
	return writeJSON(stdout, g.pretty, page)
}

// parseTime reads epoch milliseconds or an ISO date.
func parseTime(s string) (float64, error) {
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		return f, nil
	}
	if ms, ok := normalize.ParseDate(s); ok {
		return ms, nil
	}
	return 0, usageError("%q is neither epoch milliseconds nor an ISO date", s)
}

// printRecall is the short human form of a page.
func printRecall(w io.Writer, p *engine.RecallPage) {
	if p.Error != nil {
		fmt.Fprintf(w, "error %s: %s\n", p.Error.Code, p.Error.Message)
		return
	}
	for _, h := range p.Hits {
		if e := h.Entry; e != nil {
			role := ""
			if e.Role != nil {
				role = *e.Role
			}
			if e.Tool != nil {
				role += "/" + *e.Tool
			}
			fmt.Fprintf(w, "%7.3f  %s #%d %s\n         %s\n", e.Score, short(e.SessionID), e.Index, role, oneLine(e.Snippet, 160))
		} else if s := h.Session; s != nil {
			fmt.Fprintf(w, "%7.3f  %s (cold session, %d terms)  %s\n", s.Score, short(s.SessionID), s.MatchedTerms, s.Cwd)
		}
	}
	for _, n := range p.Notices {
		fmt.Fprintf(w, "note: %s\n", n.Message)
	}
	fmt.Fprintf(w, "%d of %d hits", len(p.Hits), p.Total)
	if p.Next != nil {
		fmt.Fprint(w, "; more with --offset")
	}
	if !p.Coverage.Complete {
		fmt.Fprintf(w, "; coverage incomplete: %s", strings.Join(p.Coverage.Reasons, ", "))
	}
	fmt.Fprintln(w)
}

func short(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}

func oneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > max {
		cut := max
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}

// expandRequest parses what expand and walk share: live flags and one
// JSON selector.
func expandRequest(name, example string, args []string, stdin io.Reader, g *globals) (engine.ExpandRequest, error) {
	fl := newFlags(name)
	lf := addLiveFlags(fl)
	var req engine.ExpandRequest
	pos, err := parseInterleaved(fl, args)
	if err != nil {
		return req, err
	}
	raw, ok, err := requestJSON(pos, stdin)
	if err != nil {
		return req, err
	}
	if !ok {
		return req, usageError("%s takes a JSON request, e.g. '%s'", name, example)
	}
	req, eo := engine.DecodeExpand(raw)
	if eo != nil {
		return req, eo
	}
	lf.apply(g)
	return req, nil
}

func cmdExpand(ctx context.Context, g globals, args []string, stdin io.Reader, stdout io.Writer) error {
	req, err := expandRequest("expand", `{"session":"<id-or-path>","indices":[0]}`, args, stdin, &g)
	if err != nil {
		return err
	}
	return answer(g, stdout, func(e *engine.Engine) (*engine.ExpandResult, error) { return e.Expand(ctx, req) })
}

func cmdSessions(ctx context.Context, g globals, args []string, stdin io.Reader, stdout io.Writer) error {
	fl := newFlags("sessions")
	scope := fl.String("scope", "", "session (default), project, global or session:<id-or-path>")
	limit := fl.Int("limit", 0, "rows per page")
	lf := addLiveFlags(fl)
	pos, err := parseInterleaved(fl, args)
	if err != nil {
		return err
	}
	raw, ok, err := requestJSON(pos, stdin)
	if err != nil {
		return err
	}
	var req engine.SessionsRequest
	if ok {
		var eo *engine.ErrorObject
		if req, eo = engine.DecodeSessions(raw); eo != nil {
			return eo
		}
	}
	if *scope != "" {
		req.Scope = *scope
	}
	if *limit != 0 {
		l := int64(*limit)
		req.Limit = &l
	}
	lf.apply(&g)
	return answer(g, stdout, func(e *engine.Engine) (*engine.SessionsResult, error) { return e.Sessions(ctx, req) })
}

func cmdCall(ctx context.Context, g globals, args []string, stdin io.Reader, stdout io.Writer) error {
	fl := newFlags("call")
	lf := addLiveFlags(fl)
	pos, err := parseInterleaved(fl, args)
	if err != nil {
		return err
	}
	lf.apply(&g)
	raw, ok, err := requestJSON(pos, stdin)
	if err != nil {
		return err
	}
	if !ok {
		return usageError("call takes a follow or next token: '{\"ref\":\"memory.expand\",\"args\":{…}}'")
	}
	var call engine.FabricCall
	if err := json.Unmarshal(raw, &call); err != nil || call.Ref == "" {
		return &cliError{Code: "invalid_request", Message: "a call is {\"ref\":…,\"args\":{…}}"}
	}
	return answer(g, stdout, func(e *engine.Engine) (any, error) { return e.Call(ctx, call) })
}

// cmdWalk writes one complete entry per line.
func cmdWalk(ctx context.Context, g globals, args []string, stdin io.Reader, stdout io.Writer) error {
	req, err := expandRequest("walk", `{"session":"<id-or-path>"}`, args, stdin, &g)
	if err != nil {
		return err
	}
	e, err := openEngine(g)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(stdout)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	res, err := e.Walk(ctx, req, func(en engine.ExpandedEntry) (bool, error) {
		return true, enc.Encode(en)
	})
	if ferr := bw.Flush(); err == nil {
		err = ferr
	}
	if err != nil {
		return err
	}
	if res.Error != nil {
		return res.Error
	}
	return nil
}
