package scopes

import (
	"errors"
	"fmt"
	"github.com/memidx/memidx/internal/session/locate"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/memidx/memidx/internal/coverage"
	"github.com/memidx/memidx/internal/session"
	"github.com/memidx/memidx/internal/session/confine"
	"github.com/memidx/memidx/internal/session/listing"
)

// Scope kinds.
const (
	ScopeSession       = "session"  // the current session (the default)
	ScopeProject       = "project"  // every session of the current cwd
	ScopeGlobal        = "global"   // every session; only on explicit request
	ScopeSessionTarget = "session:" // one session named by id or path
)

// Scope is a parsed scope string.
type Scope struct {
	Kind   string
	Target string // for ScopeSessionTarget: the trimmed id or path
}

// String returns the canonical spelling of the scope.
func (s Scope) String() string {
	if s.Kind == ScopeSessionTarget {
		return ScopeSessionTarget + s.Target
	}
	return s.Kind
}

// Reasons a Resolution may carry besides the coverage package's
// project_session_dir_missing and source_unavailable. Each means that the
// refs are not an authoritative answer.
const (
	// ReasonNoSession: the session scope found no session to search.
	ReasonNoSession = "no_session"
	// ReasonCurrentSessionMissing: the host named a current session file
	// that does not exist (yet: OMP writes it lazily) or is not a file.
	ReasonCurrentSessionMissing = "current_session_missing"
	// ReasonSessionsRootMissing: the global scope found no sessions root
	// (and no explicit session dir), so the agent dir may be wrong.
	ReasonSessionsRootMissing = "sessions_root_missing"
)

const validScopes = `valid scopes are "session" (the default), "project", "global" and "session:<id-or-path>"`

// ParseScope parses a scope string. Surrounding white space is ignored and
// "" means the session scope. The reference's narrowing or equal aliases are
// accepted: "current" for session, "cwd", "repo", "directory" and "folder"
// for project. "all" is refused, like every other unknown string, with a
// *coverage.Error of code invalid_scope: it would silently widen a search to
// every project, and global must be asked for by name. "session:" needs a
// non-empty target (trimmed).
func ParseScope(s string) (Scope, error) {
	s = strings.TrimSpace(s)
	switch s {
	case "", "session", "current":
		return Scope{Kind: ScopeSession}, nil
	case "project", "cwd", "repo", "directory", "folder":
		return Scope{Kind: ScopeProject}, nil
	case "global":
		return Scope{Kind: ScopeGlobal}, nil
	}
	if rest, ok := strings.CutPrefix(s, ScopeSessionTarget); ok {
		t := strings.TrimSpace(rest)
		if t == "" {
			return Scope{}, &coverage.Error{Code: coverage.InvalidScope,
				Message: `scope "session:" needs a session id or a session file path after the colon; ` + validScopes}
		}
		return Scope{Kind: ScopeSessionTarget, Target: t}, nil
	}
	msg := fmt.Sprintf("unknown scope %q; %s", s, validScopes)
	if s == "all" {
		msg += `; "all" is not an alias of "global": ask for "global" explicitly to search every project`
	}
	return Scope{}, &coverage.Error{Code: coverage.InvalidScope, Message: msg}
}

// Resolver turns a scope into session files. Every action (recall, expand,
// sessions) resolves through the same Resolver, so an id or path that one
// action accepts the others accept too.
type Resolver struct {
	// Dirs are the OMP directories, normally from ResolveAgentDir.
	// Dirs.SessionDir is the explicit flat session dir, if any.
	Dirs locate.Dirs
	// Env gives home and tmp for the bucket names.
	Env locate.Env
	// Cwd is the project directory. Empty means Env.Cwd. Relative paths in
	// scopes and CurrentSessionFile are resolved against it.
	Cwd string
	// CurrentSessionFile is the host's live session file, if it has one.
	CurrentSessionFile string
	// TopLevelOnly leaves nested subagent sessions out of the project and
	// global scopes. session:<id> always considers them.
	TopLevelOnly bool
	// ScanAllHeaders makes session:<id> read the header of every session
	// even when file names already identify matching sessions, so that a
	// duplicate id under an unrelated file name is reported as ambiguous.
	ScanAllHeaders bool
	// Watch, when set, keeps the listings of the directories this
	// Resolver lists and re-reads only those that changed (see
	// ListCache). The answers are the same.
	Watch *listing.ListCache

	view *listing.View // the Watch of one Resolve
}

// NewResolver resolves the agent directory of env and returns a Resolver
// for env's cwd.
func NewResolver(env locate.Env) (*Resolver, error) {
	d, err := locate.ResolveAgentDir(env)
	if err != nil {
		return nil, err
	}
	return &Resolver{Dirs: d, Env: env}, nil
}

// Resolution is the result of resolving a scope.
type Resolution struct {
	Scope Scope
	// Refs are the session files in scope, newest first, ties by path.
	Refs []Ref
	// Reasons, sorted, say why Refs may not be complete or authoritative
	// (project_session_dir_missing, source_unavailable, no_session,
	// current_session_missing, sessions_root_missing). Never nil.
	Reasons []string
	// Searched lists the existing directories that were listed.
	Searched []string
	// ProjectDir is the project directory the session and project scopes
	// listed the sessions of: the cwd, or the nearest ancestor with
	// sessions when the cwd has none of its own (see Resolve).
	ProjectDir string
	// Subdir is the cwd when ProjectDir is an ancestor of it, else "".
	Subdir string
	// Error is a caller-facing domain error: invalid_scope,
	// session_not_found or ambiguous_session. Refs is then empty.
	Error *coverage.Error
	// Candidates are the matching paths of an ambiguous_session error.
	Candidates []string
}

// Err returns the Resolution's domain error as a Go error: an
// *AmbiguousError for ambiguous_session, else the *coverage.Error, or nil.
func (res Resolution) Err() error {
	switch {
	case res.Error == nil:
		return nil
	case res.Error.Code == coverage.AmbiguousSession:
		return &AmbiguousError{Session: res.Scope.Target, Candidates: res.Candidates}
	default:
		return res.Error
	}
}

// AmbiguousError is a session id or name that matches several files.
type AmbiguousError struct {
	Session    string
	Candidates []string
}

func (e *AmbiguousError) Error() string { return e.Coverage().Error() }

// Coverage returns the error with its wire code, ambiguous_session.
func (e *AmbiguousError) Coverage() *coverage.Error {
	return &coverage.Error{Code: coverage.AmbiguousSession, Message: fmt.Sprintf(
		"session %q matches %d session files (%s); name one of them by path as session:<path>",
		e.Session, len(e.Candidates), strings.Join(e.Candidates, ", "))}
}

// Resolve resolves a scope:
//
//   - session: CurrentSessionFile when set (reason current_session_missing
//     if it does not exist, never another session instead); otherwise the
//     newest top-level session of the project scope; none gives the reason
//     no_session.
//   - project: every session in every existing bucket named by
//     BucketNames(cwd) (whatever the header cwd says), plus the sessions of
//     the explicit session dir and the current session file whose header
//     cwd is the project cwd (both realpath'd). No existing bucket and no
//     explicit dir gives project_session_dir_missing. A cwd without a
//     bucket of its own (a subdirectory of a project) is seen as its
//     nearest ancestor that has one, below the home directory and the
//     root: memidx's extension of the project scope (ProjectDir, Subdir).
//   - global: every session under the sessions root, the explicit session
//     dir and the current session file.
//   - session:<x>: see resolveTarget.
//
// Domain errors are in Resolution.Error; the error result is reserved for
// failures of memidx itself and is currently always nil. Directories that
// cannot be read give the reason source_unavailable.
func (r *Resolver) Resolve(s Scope) (Resolution, error) {
	if r.Watch != nil && r.view == nil {
		rr := *r
		rr.view = r.Watch.Begin()
		r = &rr
	}
	res := Resolution{Scope: s}
	var reasons coverage.Set
	switch s.Kind {
	case ScopeSession:
		r.resolveSession(&res, &reasons)
	case ScopeProject:
		res.Refs, res.Searched, res.ProjectDir = r.projectRefs(&reasons, r.TopLevelOnly)
	case ScopeGlobal:
		r.resolveGlobal(&res, &reasons)
	case ScopeSessionTarget:
		res.Scope.Target = strings.TrimSpace(s.Target)
		if res.Scope.Target == "" {
			res.Error = &coverage.Error{Code: coverage.InvalidScope, Message: `scope "session:" needs a session id or a session file path; ` + validScopes}
			break
		}
		r.resolveTarget(&res, &reasons)
	default:
		res.Error = &coverage.Error{Code: coverage.InvalidScope, Message: fmt.Sprintf("unknown scope kind %q; %s", s.Kind, validScopes)}
	}
	if res.Error != nil {
		res.Refs = nil
	}
	if res.ProjectDir != "" && res.ProjectDir != r.cwd() {
		res.Subdir = r.cwd()
	}
	res.Reasons = reasons.Reasons()
	return res, nil
}

func (r *Resolver) cwd() string {
	if r.Cwd != "" {
		return r.Env.Abs(r.Cwd)
	}
	return r.Env.Abs(r.Env.Cwd)
}

// abs resolves p against the project cwd.
func (r *Resolver) abs(p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(r.cwd(), p)
}

func (r *Resolver) opts(topLevelOnly bool) ListOptions {
	return ListOptions{TopLevelOnly: topLevelOnly}
}

func (r *Resolver) resolveSession(res *Resolution, reasons *coverage.Set) {
	if r.CurrentSessionFile != "" {
		if ref, ok := r.currentRef(reasons); ok {
			res.Refs = []Ref{ref}
		} else if !reasons.Has(ReasonCurrentSessionRefused) {
			reasons.Add(ReasonCurrentSessionMissing)
		}
		return
	}
	refs, searched, dir := r.projectRefs(reasons, true)
	res.Searched, res.ProjectDir = searched, dir
	for _, ref := range refs {
		if !ref.Nested() {
			res.Refs = []Ref{ref}
			return
		}
	}
	reasons.Add(ReasonNoSession)
}

// projectDir is the project directory of the cwd: the cwd when it has a
// session directory of its own, else the nearest ancestor that has one,
// below the home directory and the root (whose sessions are every
// project's catch-all, not this one's); the cwd when none has.
func (r *Resolver) projectDir() string {
	cwd := r.cwd()
	if r.hasBucket(cwd) {
		return cwd
	}
	home := ""
	if h := r.Env.HomeDir(); h != "" {
		home = filepath.Clean(r.Env.Abs(h))
	}
	for d := filepath.Dir(cwd); d != home && d != filepath.Dir(d); d = filepath.Dir(d) {
		if r.hasBucket(d) {
			return d
		}
	}
	return cwd
}

// hasBucket reports whether dir has a session directory under the
// sessions root.
func (r *Resolver) hasBucket(dir string) bool {
	for _, b := range locate.BucketNames(dir, r.Env) {
		if b == "" || b == "." || b == ".." || strings.ContainsAny(b, `/\`) {
			continue
		}
		if st, err := os.Stat(filepath.Join(r.Dirs.SessionsRoot, b)); err == nil && st.IsDir() {
			return true
		}
	}
	return false
}

// projectRefs lists the sessions of the project directory (see
// projectDir), and returns that directory too.
func (r *Resolver) projectRefs(reasons *coverage.Set, topLevelOnly bool) ([]Ref, []string, string) {
	cwd := r.projectDir()
	opts := r.opts(topLevelOnly)
	refs, searched, err := r.listBuckets(locate.BucketNames(cwd, r.Env), opts)
	addListReasons(reasons, err)
	missing := len(searched) == 0
	var extra []Ref
	if d := r.Dirs.SessionDir; d != "" {
		if st, err := os.Stat(d); err == nil && st.IsDir() {
			missing = false
			searched = append(searched, filepath.Clean(d))
		}
		explicit, err := r.listExplicit(opts)
		addListReasons(reasons, err)
		extra = append(extra, explicit...)
	}
	if missing {
		reasons.Add(coverage.ProjectSessionDirMissing)
	}
	if ref, ok := r.currentRef(reasons); ok {
		extra = append(extra, ref)
	}
	if len(extra) == 0 {
		return refs, searched, cwd
	}
	// Files outside the buckets belong to the project when their
	// top-level session's header cwd is the project cwd.
	want := locate.Realpath(cwd)
	cwdOf := map[string]string{}
	keep := map[string]bool{}
	for _, ref := range extra {
		if ref.Top() != "" && ref.Top() != ref.Path {
			continue
		}
		h, err := session.ReadHeader(ref.Path)
		if err != nil || h.Cwd == "" {
			continue
		}
		c, ok := cwdOf[h.Cwd]
		if !ok {
			c = locate.Realpath(r.Env.Abs(h.Cwd))
			cwdOf[h.Cwd] = c
		}
		if c == want {
			keep[ref.Path] = true
		}
	}
	for _, ref := range extra {
		top := ref.Top()
		if top == "" {
			top = ref.Path
		}
		if keep[top] {
			refs = append(refs, ref)
		}
	}
	return dedupe(refs), searched, cwd
}

func (r *Resolver) resolveGlobal(res *Resolution, reasons *coverage.Set) {
	refs, err := r.listSessions(r.opts(r.TopLevelOnly))
	addListReasons(reasons, err)
	for _, d := range []string{r.Dirs.SessionsRoot, r.Dirs.SessionDir} {
		if d == "" {
			continue
		}
		if st, err := os.Stat(d); err == nil && st.IsDir() {
			res.Searched = append(res.Searched, filepath.Clean(d))
		}
	}
	if len(res.Searched) == 0 {
		reasons.Add(ReasonSessionsRootMissing)
	}
	if ref, ok := r.currentRef(reasons); ok && !listed(refs, ref.Path) {
		refs = dedupe(append(refs, ref))
	}
	res.Refs = refs
}

// listed reports whether refs hold path: the host's current session is
// usually listed already, and the listing is then the answer as it is.
func listed(refs []Ref, path string) bool {
	for i := range refs {
		if refs[i].Path == path {
			return true
		}
	}
	return false
}

// resolveTarget resolves session:<x>:
//
//  1. x names a file when it contains a path separator, is "." or "..", or
//     ends in ".jsonl": absolute, or relative to the project cwd, with no ~
//     expansion. An existing regular file (after following symlinks) is the
//     answer, whatever its name or content; its Path is canonical (see
//     Ref.Path). A directory, device, FIFO or missing path with a separator
//     is session_not_found. A bare "<name>.jsonl" that is not a file in the
//     cwd goes on to step 3 as a file name.
//  2. Otherwise x is an id. Sessions are enumerated (sessions root, explicit
//     dir, nested sessions, current session file); files whose name carries
//     x as its id part (<ts>_<x>.jsonl) are confirmed by their header id
//     first, and every header is read only when none confirms (or when
//     ScanAllHeaders is set). One match is the answer; several are
//     ambiguous_session with every candidate path.
//  3. Then the file stem (<ts>_<id>, or the name without .jsonl) or the id
//     part of the name equal to x, with the same ambiguity rule.
//  4. Nothing matches: session_not_found, never an empty answer.
func (r *Resolver) resolveTarget(res *Resolution, reasons *coverage.Set) {
	x := res.Scope.Target
	name := x
	if looksLikePath(x) {
		// Only a session file inside the session roots is a session:
		// /etc/passwd (or /proc/self/environ) must not be readable through
		// session:<path> from a request.
		ref, err := r.sessionRef(x)
		if err == nil {
			res.Refs = []Ref{ref}
			return
		}
		if strings.ContainsRune(x, '/') || strings.ContainsRune(x, filepath.Separator) || x == "." || x == ".." {
			var msg string
			switch {
			case errors.Is(err, fs.ErrNotExist):
				msg = fmt.Sprintf("session file %q does not exist", r.abs(x))
			case errors.Is(err, session.ErrNotRegular):
				msg = fmt.Sprintf("%q is not a regular file", r.abs(x))
			case errors.Is(err, session.ErrNoHeader):
				msg = fmt.Sprintf("%q is not an OMP session file (no session header)", r.abs(x))
			case errors.Is(err, confine.ErrOutsideRoots):
				msg = fmt.Sprintf("%q is outside the session roots (%s); memidx reads only session files there", r.abs(x), strings.Join(r.Dirs.AllowedRoots(), ", "))
			case errors.Is(err, confine.ErrInvalidName):
				msg = "the session file path is not valid UTF-8"
			default:
				msg = fmt.Sprintf("session file %q cannot be read: %v", r.abs(x), err)
			}
			res.Error = &coverage.Error{Code: coverage.SessionNotFound, Message: msg}
			return
		}
		name = strings.TrimSuffix(x, ".jsonl")
	}

	all, err := r.listSessions(ListOptions{})
	addListReasons(reasons, err)
	if ref, ok := r.currentRef(reasons); ok {
		all = dedupe(append(all, ref))
	}

	var byName, rest []Ref
	for _, ref := range all {
		stem, id := nameParts(ref.Path)
		if stem == name || id == name {
			byName = append(byName, ref)
		} else {
			rest = append(rest, ref)
		}
	}
	matches := matchHeaders(byName, x)
	if len(matches) == 0 || r.ScanAllHeaders {
		matches = append(matches, matchHeaders(rest, x)...)
	}
	if len(matches) == 0 {
		matches = byName
	}
	if len(matches) == 0 && !looksLikePath(x) {
		matches = prefixMatches(all, x)
	}
	switch len(matches) {
	case 0:
		msg := fmt.Sprintf("no session has the id or file name %q (searched %d session files)", x, len(all))
		if n := utf8.RuneCountInString(x); n < MinIDPrefix && !looksLikePath(x) {
			msg += fmt.Sprintf("; an id prefix needs at least %d characters, %q has %d", MinIDPrefix, x, n)
		}
		res.Error = &coverage.Error{Code: coverage.SessionNotFound, Message: msg}
	case 1:
		res.Refs = matches
	default:
		listing.SortRefs(matches)
		for _, m := range matches {
			res.Candidates = append(res.Candidates, m.Path)
		}
		res.Error = (&AmbiguousError{Session: x, Candidates: res.Candidates}).Coverage()
	}
}

// MinIDPrefix is the shortest session id prefix session:<x> takes: 8
// characters of a UUIDv7 id are its first 32 bits of time (about 50 days
// apart), so that a shorter one would name several sessions of any archive.
const MinIDPrefix = 8

// prefixMatches returns the refs whose id starts with x, at least
// MinIDPrefix characters: the id part of the file name (as OMP names its
// files), confirmed by the header id.
func prefixMatches(refs []Ref, x string) []Ref {
	if utf8.RuneCountInString(x) < MinIDPrefix {
		return nil
	}
	var named []Ref
	for _, ref := range refs {
		if _, id := nameParts(ref.Path); strings.HasPrefix(id, x) {
			named = append(named, ref)
		}
	}
	return filterHeaders(named, func(h *session.Header) bool { return strings.HasPrefix(h.ID, x) })
}

func looksLikePath(x string) bool {
	return strings.ContainsRune(x, '/') || strings.ContainsRune(x, filepath.Separator) ||
		x == "." || x == ".." || strings.HasSuffix(x, ".jsonl")
}

// nameParts returns the stem of a session file name and its id part, the
// text after the last "_" (OMP's sessionIdFromSessionPath).
func nameParts(path string) (stem, id string) {
	stem = strings.TrimSuffix(filepath.Base(path), ".jsonl")
	if i := strings.LastIndexByte(stem, '_'); i > 0 {
		id = stem[i+1:]
	}
	return stem, id
}

// matchHeaders returns the refs whose header id is id.
func matchHeaders(refs []Ref, id string) []Ref {
	return filterHeaders(refs, func(h *session.Header) bool { return h.ID == id })
}

// filterHeaders returns the refs whose header keep accepts, reading
// headers in parallel.
func filterHeaders(refs []Ref, keep func(*session.Header) bool) []Ref {
	if len(refs) == 0 {
		return nil
	}
	ok := make([]bool, len(refs))
	workers := min(runtime.GOMAXPROCS(0)*2, 16, len(refs))
	next := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := range next {
				h, err := session.ReadHeader(refs[i].Path)
				ok[i] = err == nil && keep(h)
			}
		})
	}
	for i := range refs {
		next <- i
	}
	close(next)
	wg.Wait()
	var out []Ref
	for i, m := range ok {
		if m {
			out = append(out, refs[i])
		}
	}
	return out
}

// listSessions, listBuckets and listExplicit list through the Resolve's
// watch, if any.
func (r *Resolver) listSessions(opts ListOptions) ([]Ref, error) {
	if r.view != nil {
		return r.view.ListSessions(r.Dirs, opts)
	}
	return listing.ListSessions(r.Dirs, opts)
}

func (r *Resolver) listBuckets(buckets []string, opts ListOptions) ([]Ref, []string, error) {
	if r.view != nil {
		return r.view.ListBuckets(r.Dirs, buckets, opts)
	}
	return listing.ListBuckets(r.Dirs, buckets, opts)
}

func (r *Resolver) listExplicit(opts ListOptions) ([]Ref, error) {
	if r.view != nil {
		return r.view.ListExplicit(r.Dirs, opts)
	}
	return listing.ListExplicit(r.Dirs, opts)
}

// dedupe drops refs whose Path repeats, keeping the first, and sorts.
func dedupe(refs []Ref) []Ref {
	seen := make(map[string]bool, len(refs))
	out := refs[:0]
	for _, ref := range refs {
		if !seen[ref.Path] {
			seen[ref.Path] = true
			out = append(out, ref)
		}
	}
	listing.SortRefs(out)
	return out
}

// currentRef returns the host's current session file when it passes the
// session check. One that fails the check leaves a reason; a missing one
// (OMP writes it lazily) has nothing to search, which only the session
// scope reports. Neither is read.
func (r *Resolver) currentRef(reasons *coverage.Set) (Ref, bool) {
	if r.CurrentSessionFile == "" {
		return Ref{}, false
	}
	ref, err := r.sessionRef(r.CurrentSessionFile)
	switch {
	case err == nil:
		return ref, true
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, session.ErrNotRegular):
	default:
		reasons.Add(ReasonCurrentSessionRefused)
	}
	return Ref{}, false
}

// addListReasons turns a listing's error into coverage reasons.
func addListReasons(reasons *coverage.Set, err error) {
	skipped, unavailable := listing.ListReasons(err)
	for _, r := range skipped {
		reasons.Add(r)
	}
	if unavailable {
		reasons.Add(coverage.SourceUnavailable)
	}
}
