package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/memidx/memidx/engine"
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

// isJSONArg reports whether a positional argument is a request rather than
// words or a session: a JSON object, or - for stdin.
func isJSONArg(s string) bool {
	return s == "-" || strings.HasPrefix(strings.TrimSpace(s), "{")
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

// flagsSet names the flags given on the command line.
func flagsSet(fl *flag.FlagSet) map[string]bool {
	set := map[string]bool{}
	fl.Visit(func(f *flag.Flag) { set[f.Name] = true })
	return set
}

// bound clamps a flag value to [lo, hi] and says so in a notice.
func bound(name string, v, lo, hi int, notices *[]engine.Notice) int {
	c := min(max(v, lo), hi)
	if c != v {
		*notices = append(*notices, engine.Notice{Key: name, Message: fmt.Sprintf("--%s %d is outside %d..%d; using %d", name, v, lo, hi, c)})
	}
	return c
}

// wireNumber is a number argument of a JSON request as written (the first
// of its spellings given), or nil when it is absent or null.
func wireNumber(raw []byte, names ...string) *float64 {
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil {
		return nil
	}
	for _, n := range names {
		var f *float64
		if v, ok := obj[n]; ok && json.Unmarshal(v, &f) == nil && f != nil {
			return f
		}
	}
	return nil
}

// setArg gives one argument of a request as the wire spells it: given, even
// with the value its Go field reads as the default (--limit 0 is refused as
// {"limit":0} is, -C 0 is repeated in next as "before":0).
func setArg[T any](req *T, name string, v any) error {
	b, err := json.Marshal(req)
	if err != nil {
		return err
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(b, &obj); err != nil {
		return err
	}
	if obj[name], err = json.Marshal(v); err != nil {
		return err
	}
	if b, err = json.Marshal(obj); err != nil {
		return err
	}
	var out T
	if err := json.Unmarshal(b, &out); err != nil {
		var eo *engine.ErrorObject
		if errors.As(err, &eo) {
			return requestError(eo)
		}
		return err
	}
	*req = out
	return nil
}

// wireBound reports what the engine makes of a request's number argument
// (the reference's rule: absent, NaN or below lo is the default, above hi
// is hi, fractions are floored) and says so in a notice when that is not
// the number given.
func wireBound(name string, v *float64, def, lo, hi int, notices *[]engine.Notice) {
	if v == nil {
		return
	}
	var used int
	switch f := math.Floor(*v); {
	case math.IsNaN(*v) || *v < float64(lo):
		used = def
	case f > float64(hi):
		used = hi
	default:
		used = int(f)
	}
	if float64(used) != *v {
		*notices = append(*notices, engine.Notice{Key: name, Message: fmt.Sprintf("%s %v is outside %d..%d or not an integer; the engine uses %d", name, *v, lo, hi, used)})
	}
}

// Notices the CLI adds at a shell.
const (
	noticeScopeDefault = "no live session: searching the project's sessions (scope project); --scope session searches only the newest one"
	noticeNoSessions   = "this project has no sessions; --scope global searches every project"
)

// askScope asks one question of a scope as a shell user means it: with no
// scope and no live session the project (a notice says so), a session-id
// prefix in session:<prefix> resolved, and over a project with no sessions
// a hint at --scope global. ask reads *scope when it is called; eligible
// is an answer's eligible sessions, ok false for an answer with an error.
// The notices are the CLI's, for the answer's notices.
func askScope[R any](g globals, scope *engine.Scope, ask func(*engine.Engine) (R, error), eligible func(R) (n int, ok bool)) (R, []engine.Notice, error) {
	var zero R
	var notices []engine.Notice
	defaultScope(g, scope, &notices)
	e, err := openEngine(g)
	if err != nil {
		return zero, nil, err
	}
	res, err := ask(e)
	if err != nil {
		return zero, nil, err
	}
	if n, ok := eligible(res); ok {
		hintGlobal(*scope, n, &notices)
	}
	return res, notices, nil
}

// defaultScope picks the scope of a request that names none: at a shell,
// without a live session, the project (the session scope would search only
// the project's newest session).
func defaultScope(g globals, scope *engine.Scope, notices *[]engine.Notice) {
	if *scope == "" && g.live == nil {
		*scope = engine.ScopeProject
		*notices = append(*notices, engine.Notice{Key: "scope", Message: noticeScopeDefault})
	}
}

// hintGlobal adds the --scope global hint to an answer over a project with
// no sessions.
func hintGlobal(scope engine.Scope, eligible int, notices *[]engine.Notice) {
	if scope == engine.ScopeProject && eligible == 0 {
		*notices = append(*notices, engine.Notice{Key: "scope", Message: noticeNoSessions})
	}
}

// cmdRecall answers one recall page: a JSON request, or the query as words,
// with flags that override its fields.
func cmdRecall(ctx context.Context, g globals, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fl := newFlags("recall")
	rf := addRecallFlags(fl)
	lf := addLiveFlags(fl)
	pos, err := parseInterleaved(fl, args)
	if err != nil {
		return err
	}
	set := flagsSet(fl)
	lf.apply(&g)
	req, notices, err := recallArgs(pos, stdin, set)
	if err != nil {
		return err
	}
	if err := rf.apply(&req, set, &notices); err != nil {
		return err
	}
	page, scoped, err := askScope(g, &req.Scope, func(e *engine.Engine) (*engine.RecallPage, error) {
		return e.Recall(ctx, req)
	}, func(p *engine.RecallPage) (int, bool) { return p.Coverage.EligibleSessions, p.Error == nil })
	if err != nil {
		return err
	}
	page.Notices = append(page.Notices, append(notices, scoped...)...)
	if page.Error == nil && page.Err() != nil {
		// The reference keeps a regex compile error in coverage.error
		// only; the CLI's one place for a request's error is "error".
		page.Error = page.Err().(*engine.ErrorObject)
	}
	g.highlight = queryMatcher(req.Query, req.QueryMode)
	return output(g, stdout, page, func(w io.Writer) {
		humanNotices(g, stderr, page.Notices)
		printRecall(w, humanPage(g, page))
	})
}

// recallFlags are recall's flags; each one given overrides the request's
// field.
type recallFlags struct {
	query, mode, match, scope, branches, since, until *string
	filter                                            map[string]*string
	pageSize, offset, snippet, contextNext            *int
}

// recallFilters are the exact-match filters, each a flag of its name.
var recallFilters = []string{"role", "tool", "ref", "provider", "action", "outcome"}

func addRecallFlags(fl *flag.FlagSet) recallFlags {
	f := recallFlags{filter: map[string]*string{}}
	f.query = fl.String("q", "", "query text")
	fl.StringVar(f.query, "query", "", "query text")
	f.mode = fl.String("mode", "", "literal (default), natural, phrase or regex")
	f.match = fl.String("match", "", "any (default) or all")
	f.scope = fl.String("scope", "", "session, project, global or session:<id-or-path>")
	f.branches = fl.String("branches", "", "active (default) or all")
	for _, k := range recallFilters {
		f.filter[k] = fl.String(k, "", "exact "+k+" filter")
	}
	f.since = fl.String("since", "", "epoch ms, ISO date or a relative time (inclusive)")
	f.until = fl.String("until", "", "epoch ms, ISO date or a relative time (inclusive)")
	f.pageSize = fl.Int("page-size", 0, "hits per page (1..50)")
	fl.IntVar(f.pageSize, "limit", 0, "hits per page (1..50)")
	f.offset = fl.Int("offset", 0, "skip this many ranked hits")
	f.snippet = fl.Int("snippet-chars", 0, "snippet length (80..2000)")
	f.contextNext = fl.Int("context-next", 0, "show this many entries after each entry hit (0..3)")
	return f
}

// recallArgs is the request the positional arguments give: a JSON request
// (with notices for its clamped numbers) or the query as words.
func recallArgs(pos []string, stdin io.Reader, set map[string]bool) (engine.RecallRequest, []engine.Notice, error) {
	var req engine.RecallRequest
	var notices []engine.Notice
	if len(pos) == 1 && isJSONArg(pos[0]) {
		raw, _, err := requestJSON(pos, stdin)
		if err != nil {
			return req, nil, err
		}
		var eo *engine.ErrorObject
		if req, eo = engine.DecodeRecall(raw); eo != nil {
			return req, nil, requestError(eo)
		}
		wireBound("pageSize", wireNumber(raw, "pageSize", "page_size"), engine.DefaultPageSize, 1, engine.MaxPageSize, &notices)
		wireBound("snippetChars", wireNumber(raw, "snippetChars", "snippet_chars"), engine.DefaultSnippetChars, engine.MinSnippetChars, engine.MaxSnippetChars, &notices)
	} else if len(pos) > 0 {
		// Words, as rg and grep take them.
		if set["q"] || set["query"] {
			return req, nil, usageError("give the query once: as words or with -q")
		}
		if err := setArg(&req, "query", strings.Join(pos, " ")); err != nil {
			return req, nil, err
		}
	}
	return req, notices, nil
}

// apply sets the request's fields from the flags given, adding a notice
// for each number it clamps.
func (f recallFlags) apply(req *engine.RecallRequest, set map[string]bool, notices *[]engine.Notice) error {
	if set["q"] || set["query"] {
		if err := setArg(req, "query", *f.query); err != nil {
			return err
		}
	}
	f.applyWords(req)
	if err := f.applyTimes(req); err != nil {
		return err
	}
	return f.applyPaging(req, set, notices)
}

// applyWords sets the mode, scope and filter fields whose flags are not
// empty.
func (f recallFlags) applyWords(req *engine.RecallRequest) {
	str := func(dst *string, v string) {
		if v != "" {
			*dst = v
		}
	}
	if *f.mode != "" {
		req.QueryMode = engine.QueryMode(*f.mode)
	}
	if *f.match != "" {
		req.QueryMatch = engine.QueryMatch(*f.match)
	}
	if *f.scope != "" {
		req.Scope = engine.Scope(*f.scope)
	}
	if *f.branches != "" {
		req.Branches = engine.Branches(*f.branches)
	}
	str(&req.Role, *f.filter["role"])
	str(&req.Tool, *f.filter["tool"])
	str(&req.Ref, *f.filter["ref"])
	str(&req.Provider, *f.filter["provider"])
	str(&req.Action, *f.filter["action"])
	str(&req.Outcome, *f.filter["outcome"])
}

// applyTimes sets since and until, each given as a time parseTime reads.
func (f recallFlags) applyTimes(req *engine.RecallRequest) error {
	for _, t := range []struct{ name, v string }{{"since", *f.since}, {"until", *f.until}} {
		if t.v == "" {
			continue
		}
		ms, err := parseTime(t.v, now())
		if err != nil {
			return usageError("--%s: %v", t.name, err)
		}
		// Epoch milliseconds exactly as given: the wire's number.
		if err := setArg(req, t.name, ms); err != nil {
			return err
		}
	}
	return nil
}

// applyPaging sets the page's size, offset, snippet length and context.
func (f recallFlags) applyPaging(req *engine.RecallRequest, set map[string]bool, notices *[]engine.Notice) error {
	if set["page-size"] || set["limit"] {
		req.PageSize = bound("page-size", *f.pageSize, 1, engine.MaxPageSize, notices)
	}
	if set["context-next"] {
		req.Context = &engine.RecallContext{Next: *f.contextNext}
	}
	if set["offset"] {
		if *f.offset < 0 {
			return usageError("--offset must be 0 or more, not %d", *f.offset)
		}
		req.Offset = *f.offset
	}
	if set["snippet-chars"] {
		req.SnippetChars = bound("snippet-chars", *f.snippet, engine.MinSnippetChars, engine.MaxSnippetChars, notices)
	}
	return nil
}

// cmdExpand answers one expansion page.
func cmdExpand(ctx context.Context, g globals, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	req, e, err := expandRequest(ctx, "expand", args, stdin, &g)
	if err != nil {
		return err
	}
	res, err := e.Expand(ctx, req)
	if err == nil {
		res, err = firstPage(ctx, e, args, req, res)
	}
	if err != nil {
		return err
	}
	return output(g, stdout, res, func(w io.Writer) {
		humanNotices(g, stderr, res.Notices)
		printExpand(w, res)
	})
}

// indexList is a repeatable flag of entry indices, comma-separated too.
type indexList []int

func (l *indexList) String() string { return fmt.Sprint(*l) }
func (l *indexList) Set(s string) error {
	for _, p := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil || n < 0 {
			return fmt.Errorf("%q is not an entry index (0, 1, 2, …)", p)
		}
		*l = append(*l, n)
	}
	return nil
}

// stringList is a repeatable string flag.
type stringList []string

func (l *stringList) String() string     { return strings.Join(*l, ",") }
func (l *stringList) Set(s string) error { *l = append(*l, s); return nil }

// expandRequest parses what expand and walk share: a JSON selector, or a
// session with selector flags; and live flags. It opens the engine, which
// resolves a session-id prefix.
func expandRequest(ctx context.Context, name string, args []string, stdin io.Reader, g *globals) (engine.ExpandRequest, *engine.Engine, error) {
	fl := newFlags(name)
	lf := addLiveFlags(fl)
	ef := addExpandFlags(fl)
	var timeout *time.Duration
	if name == "walk" {
		timeout = fl.Duration("timeout", 0, "end the walk after this long (default 5m)")
	}
	var req engine.ExpandRequest
	pos, err := parseInterleaved(fl, args)
	if err != nil {
		return req, nil, err
	}
	set := flagsSet(fl)
	switch {
	case len(pos) == 0:
		return req, nil, usageError("%s takes a SESSION (id, id prefix or path) or a JSON request", name)
	case len(pos) > 1:
		return req, nil, usageError("%s takes one SESSION or one JSON request, not %d arguments", name, len(pos))
	case isJSONArg(pos[0]):
		req, err = expandJSON(pos, stdin, set)
	default:
		req, err = ef.request(pos[0], set)
	}
	if err != nil {
		return req, nil, err
	}
	lf.apply(g)
	var set2 []func(*engine.Options)
	if timeout != nil && set["timeout"] {
		if *timeout <= 0 {
			return req, nil, usageError("--timeout must be more than 0, not %v", *timeout)
		}
		set2 = append(set2, func(o *engine.Options) { o.WalkTimeout = *timeout })
	}
	e, err := openEngineWith(*g, "", nil, set2...)
	if err != nil {
		return req, nil, err
	}
	return req, e, nil
}

// expandFlags are the selector flags of expand and walk.
type expandFlags struct {
	indices                                   *indexList
	ids, addrs                                *stringList
	rng, branches                             *string
	before, after, ctxN, maxChars, maxEntries *int
}

func addExpandFlags(fl *flag.FlagSet) expandFlags {
	f := expandFlags{indices: new(indexList), ids: new(stringList), addrs: new(stringList)}
	fl.Var(f.indices, "n", "entry index; repeat or comma-separate")
	fl.Var(f.ids, "entry-id", "stable entry id; repeat")
	fl.Var(f.addrs, "address", "operation address; repeat")
	f.rng = fl.String("range", "", "inclusive entry range A..B")
	f.before = fl.Int("B", 0, "entries of context before")
	f.after = fl.Int("A", 0, "entries of context after")
	f.ctxN = fl.Int("C", 0, "entries of context before and after")
	f.branches = fl.String("branches", "", "active (default) or all")
	f.maxChars = fl.Int("max-chars", 0, "characters per response")
	f.maxEntries = fl.Int("max-entries", 0, "entries per response")
	return f
}

// expandJSON decodes a JSON request, which no selector flag may join.
func expandJSON(pos []string, stdin io.Reader, set map[string]bool) (engine.ExpandRequest, error) {
	for f := range set {
		if !strings.HasPrefix(f, "live-") && f != "timeout" {
			return engine.ExpandRequest{}, usageError("give either a JSON request or %s and the other selector flags, not both", dash(f))
		}
	}
	raw, _, err := requestJSON(pos, stdin)
	if err != nil {
		return engine.ExpandRequest{}, err
	}
	req, eo := engine.DecodeExpand(raw)
	if eo != nil {
		return req, requestError(eo)
	}
	return req, nil
}

// request is the request for session that the selector flags make.
func (f expandFlags) request(session string, set map[string]bool) (engine.ExpandRequest, error) {
	req := engine.ExpandRequest{
		Session:            session,
		Indices:            *f.indices,
		EntryIDs:           *f.ids,
		OperationAddresses: *f.addrs,
		Branches:           engine.Branches(*f.branches),
	}
	if *f.rng != "" {
		a, b, ok := strings.Cut(*f.rng, "..")
		first, err1 := strconv.Atoi(a)
		last, err2 := strconv.Atoi(b)
		if !ok || err1 != nil || err2 != nil {
			return req, usageError("--range takes FIRST..LAST, e.g. 3..7, not %q", *f.rng)
		}
		req.EntryRange = &engine.Range{First: first, Last: last}
	}
	if err := f.applyContext(&req, set); err != nil {
		return req, err
	}
	// Given, even as 0: the engine refuses what is out of range.
	if set["max-chars"] {
		if err := setArg(&req, "maxChars", *f.maxChars); err != nil {
			return req, err
		}
	}
	if set["max-entries"] {
		if err := setArg(&req, "maxEntries", *f.maxEntries); err != nil {
			return req, err
		}
	}
	return req, nil
}

// applyContext sets the entries of context that -C, -B and -A give, -B and
// -A over -C.
func (f expandFlags) applyContext(req *engine.ExpandRequest, set map[string]bool) error {
	for _, c := range []struct {
		flag string
		v    int
		args []string
	}{{"C", *f.ctxN, []string{"before", "after"}}, {"B", *f.before, []string{"before"}}, {"A", *f.after, []string{"after"}}} {
		if !set[c.flag] {
			continue
		}
		if c.v < 0 || c.v > engine.MaxContext {
			return usageError("%s takes 0..%d entries, not %d", dash(c.flag), engine.MaxContext, c.v)
		}
		for _, a := range c.args {
			if err := setArg(req, a, c.v); err != nil {
				return err
			}
		}
	}
	return nil
}

func cmdSessions(ctx context.Context, g globals, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fl := newFlags("sessions")
	scope := fl.String("scope", "", "session, project, global or session:<id-or-path>")
	branches := fl.String("branches", "", "active (default) or all")
	limit := fl.Int("limit", 0, "rows per page")
	fl.IntVar(limit, "page-size", 0, "rows per page")
	offset := fl.Int("offset", 0, "skip this many rows")
	lf := addLiveFlags(fl)
	pos, err := parseInterleaved(fl, args)
	if err != nil {
		return err
	}
	set := flagsSet(fl)
	if len(pos) > 0 && !isJSONArg(pos[0]) {
		return usageError("sessions takes flags or one JSON request, not %q", pos[0])
	}
	raw, ok, err := requestJSON(pos, stdin)
	if err != nil {
		return err
	}
	var req engine.SessionsRequest
	if ok {
		var eo *engine.ErrorObject
		if req, eo = engine.DecodeSessions(raw); eo != nil {
			return requestError(eo)
		}
	}
	if *scope != "" {
		req.Scope = engine.Scope(*scope)
	}
	if *branches != "" {
		req.Branches = engine.Branches(*branches)
	}
	// Given, even as 0: the engine refuses what is out of range.
	if set["limit"] || set["page-size"] {
		if err := setArg(&req, "limit", *limit); err != nil {
			return err
		}
	}
	if set["offset"] {
		req.Offset = *offset
	}
	lf.apply(&g)
	res, notices, err := askScope(g, &req.Scope, func(e *engine.Engine) (*engine.SessionsResult, error) {
		return e.Sessions(ctx, req)
	}, func(r *engine.SessionsResult) (int, bool) { return r.Coverage.EligibleSessions, r.Error == nil })
	if err != nil {
		return err
	}
	res.Notices = append(res.Notices, notices...)
	return output(g, stdout, res, func(w io.Writer) {
		humanNotices(g, stderr, res.Notices)
		printSessions(w, humanSessions(g, res))
	})
}

func cmdCall(ctx context.Context, g globals, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
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
		return usageError(`call takes a follow or next token: '{"ref":"memory.expand","args":{…}}'`)
	}
	var call engine.FabricCall
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&call); err != nil || call.Ref == "" {
		msg := `a call is {"ref":…,"args":{…}}`
		if err != nil {
			msg += ": " + err.Error()
		}
		return &cliError{Code: string(engine.ErrInvalidRequest), Message: msg, usage: true}
	}
	// Arguments the engine could not even read are the command line's
	// fault (exit 2), as for the other commands.
	var eo *engine.ErrorObject
	switch call.Ref {
	case "memory.recall":
		_, eo = engine.DecodeRecall(call.Args)
	case "memory.expand":
		_, eo = engine.DecodeExpand(call.Args)
	case "memory.sessions":
		_, eo = engine.DecodeSessions(call.Args)
	}
	if eo != nil {
		return requestError(eo)
	}
	e, err := openEngine(g)
	if err != nil {
		return err
	}
	res, err := e.Call(ctx, call)
	if err != nil {
		return err
	}
	var human func(io.Writer)
	switch {
	case res.Recall != nil:
		r := res.Recall
		if req, eo := engine.DecodeRecall(call.Args); eo == nil {
			g.highlight = queryMatcher(req.Query, req.QueryMode)
		}
		if r.Error == nil && r.Err() != nil {
			r.Error = r.Err().(*engine.ErrorObject)
		}
		human = func(w io.Writer) { humanNotices(g, stderr, r.Notices); printRecall(w, humanPage(g, r)) }
	case res.Expand != nil:
		r := res.Expand
		human = func(w io.Writer) { humanNotices(g, stderr, r.Notices); printExpand(w, r) }
	case res.Sessions != nil:
		r := res.Sessions
		human = func(w io.Writer) { humanNotices(g, stderr, r.Notices); printSessions(w, humanSessions(g, r)) }
	}
	return output(g, stdout, res, human)
}

// cmdWalk writes one complete entry per line on stdout and nothing else
// once an entry is written: scripts read every line as an entry. A walk
// that ends before the whole selection (walk_deadline, a stale_pointer or
// other failure mid-walk, an interrupt) names its reason on stderr after
// the entries it visited and exits 1, so it never looks complete. A walk
// that fails before its first entry answers {"error":…} as any command's
// failure does.
func cmdWalk(ctx context.Context, g globals, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	req, e, err := expandRequest(ctx, "walk", args, stdin, &g)
	if err != nil {
		return err
	}
	showNotices(stderr, e.Notices()) // walk's lines have no place for them
	bw := bufio.NewWriter(stdout)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	res, err := e.Walk(ctx, req, func(en engine.ExpandedEntry) (bool, error) {
		return true, enc.Encode(en)
	})
	if ferr := bw.Flush(); err == nil {
		err = ferr
	}
	visited := 0
	if res != nil {
		visited = res.Visited
	}
	switch {
	case errors.Is(err, context.Canceled):
		return walkIncomplete(visited, "interrupted", err.Error())
	case errors.Is(err, context.DeadlineExceeded):
		// The caller's deadline is an error of the library's (its own
		// budget, --timeout, a result); to a script both are time out.
		return walkIncomplete(visited, engine.WalkDeadline, walkReasonText([]string{engine.WalkDeadline}))
	case err != nil:
		return err
	case res.Error != nil && visited == 0:
		return res.Error
	case res.Error != nil:
		return walkIncomplete(visited, res.Error.Code, res.Error.Message)
	case !res.Complete:
		return walkIncomplete(visited, strings.Join(res.Reasons, ", "), walkReasonText(res.Reasons))
	}
	return nil
}

// walkIncomplete is the exit-1 report of a walk that did not visit its
// whole selection: one line on stderr, stdout left to the entries.
func walkIncomplete(visited int, reason, msg string) error {
	return &silentFailure{fmt.Sprintf("walk incomplete after %d entries: %s: %s", visited, reason, msg)}
}

func walkReasonText(reasons []string) string {
	if len(reasons) == 1 && reasons[0] == engine.WalkDeadline {
		return "the walk's time budget (--timeout) ended; the entries after the last line were not visited"
	}
	return "the selection was not all visited"
}
