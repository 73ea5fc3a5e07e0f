package engine_test

import (
	"encoding/json"
	"fmt"
	"github.com/memidx/memidx/internal/session/locate"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/engine"
)

// An offset past the last hit is an empty page that still says how many
// hits there are, as the reference answers it; an offset at the end too.
func TestOffsetPastTheEnd(t *testing.T) {
	w := newWorld(t)
	basicSession(w)
	e := w.engine()
	for _, tc := range []struct {
		name   string
		scope  engine.Scope
		offset int
	}{
		{"project, at the end", engine.ScopeProject, 4},
		{"project, past the end", engine.ScopeProject, 9},
		{"session, far past the end", engine.ScopeSession, 1 << 30},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := recall(t, e, engine.RecallRequest{Query: "deploy timeout", Scope: tc.scope, Offset: tc.offset})
			require.Nil(t, p.Error)
			assert.Equal(t, 4, p.Total)
			assert.Empty(t, p.Hits)
			assert.NotNil(t, p.Hits, "hits is [] on the wire, never null")
			assert.Nil(t, p.Next)
			assert.True(t, p.Coverage.Complete, p.Coverage.Reasons)
		})
	}
}

// A sessions offset past the last session is index_out_of_bounds (as a
// walk's entryOffset), in an answer that still names the resolved scope,
// its branches and how many sessions it holds; an offset at the end is an
// empty last page.
func TestSessionsOffsetPastTheEnd(t *testing.T) {
	w := newWorld(t)
	basicSession(w)
	e := w.engine()
	past, err := e.Sessions(ctx, engine.SessionsRequest{Scope: engine.ScopeGlobal, Offset: 5})
	require.NoError(t, err)
	require.NotNil(t, past.Error)
	assert.Equal(t, "index_out_of_bounds", past.Error.Code)
	assert.Equal(t, "global", past.Scope)
	assert.Equal(t, "active", past.Branches)
	assert.Equal(t, 1, past.Total)
	assert.Empty(t, past.Sessions)

	end, err := e.Sessions(ctx, engine.SessionsRequest{Scope: engine.ScopeGlobal, Offset: 1})
	require.NoError(t, err)
	require.Nil(t, end.Error)
	assert.Equal(t, 1, end.Total)
	assert.Empty(t, end.Sessions)
}

// A stale pointer keeps the reference's message and adds a hint that says
// what to do: run the call that produced the pointer again.
func TestStalePointerHint(t *testing.T) {
	w := newWorld(t)
	path := basicSession(w)
	e := w.engine()
	page := recall(t, e, engine.RecallRequest{Query: "deploy", Scope: engine.ScopeOf(path)})
	require.Nil(t, page.Error)
	require.NotEmpty(t, page.Hits)
	follow := page.Hits[0].Follow()
	w.appendTo(path, msgLine("u2", "a2", ts, user("one more question")))
	for _, tc := range []struct {
		name    string
		call    engine.FabricCall
		message string
	}{
		{"expand follow", follow, "Session active lineage changed after the pointer was issued."},
		{"recall next", engine.FabricCall{Ref: "memory.recall", Args: []byte(`{"query":"deploy","scope":"session:` + path + `","expectedSourceHash":"` + strings.Repeat("0", 64) + `"}`)},
			"Session source changed after the pointer was issued."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := e.Call(ctx, tc.call)
			require.NoError(t, err)
			eo := engine.DomainError(res.Err())
			require.NotNil(t, eo)
			assert.Equal(t, "stale_pointer", eo.Code)
			assert.Equal(t, tc.message, eo.Message, "the reference's message")
			assert.Contains(t, eo.Hint, "changed since")
			assert.Contains(t, eo.Hint, "again")
		})
	}
}

// A missing agent directory is an error naming it, and Open creates
// nothing; a setup that names its session and index directories does not
// need the agent directory.
func TestMissingAgentDir(t *testing.T) {
	w := newWorld(t)
	basicSession(w)
	missing := filepath.Join(w.root, "typo", ".omp", "agent")
	flat := filepath.Join(w.root, "flat")
	require.NoError(t, os.MkdirAll(flat, 0o755))
	for _, tc := range []struct {
		name    string
		opt     engine.Options
		wantErr bool
	}{
		{"wrong AgentDir", engine.Options{AgentDir: missing}, true},
		{"wrong AgentDir, explicit index", engine.Options{AgentDir: missing, IndexDir: filepath.Join(w.root, "ix1")}, true},
		{"no ~/.omp", engine.Options{Env: &engine.Env{Home: filepath.Join(w.root, "typo"), Cwd: w.project, LookupEnv: engine.EnvMap(nil)}}, true},
		{"session dir, index under the missing agent dir", engine.Options{AgentDir: missing, SessionDir: flat}, true},
		{"session dir and index dir", engine.Options{AgentDir: missing, SessionDir: flat, IndexDir: filepath.Join(w.root, "ix2")}, false},
		{"existing agent dir", engine.Options{AgentDir: w.agent, IndexDir: filepath.Join(w.root, "ix3")}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opt := tc.opt
			if opt.Env == nil {
				env := engine.Env(w.env)
				opt.Env = &env
			}
			opt.Cwd = w.project
			e, err := engine.Open(opt)
			if !tc.wantErr {
				require.NoError(t, err)
				p := recall(t, e, engine.RecallRequest{Query: "deploy", Scope: engine.ScopeProject})
				assert.Nil(t, p.Error)
				require.NoError(t, e.Close())
				return
			}
			require.Error(t, err)
			assert.ErrorIs(t, err, engine.ErrAgentDirMissing)
			assert.Contains(t, err.Error(), missing)
			_, statErr := os.Stat(filepath.Join(w.root, "typo"))
			assert.ErrorIs(t, statErr, fs.ErrNotExist, "Open created nothing")
		})
	}
}

// scopeNotice is the message of the scope notice among ns, or "".
func scopeNotice(ns []engine.Notice) string {
	for _, n := range ns {
		if n.Key == "scope" {
			return n.Message
		}
	}
	return ""
}

// The default scope resolved without a live session names what it
// searched and how to widen it, on every answer that resolved it; an
// explicit scope or a live session has no such notice.
func TestDefaultScopeNotice(t *testing.T) {
	w := newWorld(t)
	older := basicSession(w)
	newest := w.write("s-newer", msgLine("u1", "", ts, user("deploy again")))
	_ = older
	empty := filepath.Join(w.root, "empty")
	require.NoError(t, os.MkdirAll(empty, 0o755))
	live := func(o *engine.Options) { o.Live = engine.StaticLive{File: newest, Leaf: "u1"} }
	inEmpty := func(o *engine.Options) { o.Cwd = empty }
	for _, tc := range []struct {
		name  string
		opts  []func(*engine.Options)
		scope engine.Scope
		want  []string // substrings of the notice; nil: no notice
	}{
		{"omitted", nil, "", []string{newest, `"project"`, `"global"`}},
		{"session spelt out", nil, engine.ScopeSession, []string{newest, `"project"`}},
		{"no session in the project", []func(*engine.Options){inEmpty}, "", []string{empty, "no sessions", `"global"`}},
		{"project", nil, engine.ScopeProject, nil},
		{"live session", []func(*engine.Options){live}, "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := w.engine(tc.opts...)
			defer e.Close()
			for range 2 { // every answer, not only the first
				p := recall(t, e, engine.RecallRequest{Query: "deploy", Scope: tc.scope})
				s, err := e.Sessions(ctx, engine.SessionsRequest{Scope: tc.scope})
				require.NoError(t, err)
				for _, got := range []string{scopeNotice(p.Notices), scopeNotice(s.Notices)} {
					if tc.want == nil {
						assert.Empty(t, got)
						continue
					}
					for _, want := range tc.want {
						assert.Contains(t, got, want)
					}
				}
			}
		})
	}
}

// Session id prefixes of at least engine.MinSessionPrefix characters
// resolve in the engine, for every action that takes a session; an
// ambiguous one lists its candidates, a short one says it is short.
func TestSessionPrefixes(t *testing.T) {
	w := newWorld(t)
	line := msgLine("u1", "", ts, user("deploy timeout"))
	a := w.write("0198f2a4-aaaa-7000-8000-000000000001", line)
	b := w.write("0198f2a4-bbbb-7000-8000-000000000002", line)
	e := w.engine()
	for _, tc := range []struct {
		name, session string
		want          string // the file it resolves to, or "" for an error
		code          engine.ErrorCode
		msg           string // in the error's message
	}{
		{"unique prefix", "0198f2a4-aa", a, "", ""},
		{"other unique prefix", "0198f2a4-b", b, "", ""},
		{"full id", "0198f2a4-aaaa-7000-8000-000000000001", a, "", ""},
		{"ambiguous", "0198f2a4", "", engine.ErrAmbiguousSession, "0198f2a4"},
		{"too short", "0198f2a", "", engine.ErrSessionNotFound, "8 characters"},
		{"no such prefix", "0198f2a4-cc", "", engine.ErrSessionNotFound, "0198f2a4-cc"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x, err := e.Expand(ctx, engine.ExpandRequest{Session: tc.session, Indices: []int{0}})
			require.NoError(t, err)
			p := recall(t, e, engine.RecallRequest{Query: "deploy", Scope: engine.ScopeOf(tc.session)})
			s, err := e.Sessions(ctx, engine.SessionsRequest{Scope: engine.ScopeOf(tc.session)})
			require.NoError(t, err)
			wr, err := e.Walk(ctx, engine.ExpandRequest{Session: tc.session}, func(engine.ExpandedEntry) (bool, error) { return true, nil })
			require.NoError(t, err)
			if tc.want != "" {
				require.NoError(t, x.Err())
				assert.Equal(t, tc.want, x.Session)
				require.NoError(t, p.Err())
				assert.Equal(t, 1, p.Total)
				require.NoError(t, s.Err())
				require.Len(t, s.Sessions, 1)
				assert.Equal(t, tc.want, s.Sessions[0].File)
				require.NoError(t, wr.Err())
				assert.Equal(t, 1, wr.Visited)
				return
			}
			for _, err := range []error{x.Err(), p.Err(), s.Err(), wr.Err()} {
				assert.ErrorIs(t, err, tc.code)
				assert.ErrorContains(t, err, tc.msg)
			}
			if tc.code == engine.ErrAmbiguousSession {
				assert.Equal(t, []string{b, a}, x.Error.Candidates, "newest first")
				assert.Equal(t, []string{b, a}, p.Error.Candidates)
			}
		})
	}
}

// A subdirectory without sessions of its own is seen as the nearest
// ancestor that has some, never the home directory; a cwd with sessions
// of its own is unchanged.
func TestProjectFromSubdirectory(t *testing.T) {
	w := newWorld(t)
	basicSession(w)
	deep := filepath.Join(w.project, "src", "deep")
	own := filepath.Join(w.project, "tools")
	underHome := filepath.Join(w.env.Home, "notes", "x")
	for _, d := range []string{deep, own, underHome} {
		require.NoError(t, os.MkdirAll(d, 0o755))
	}
	// tools has a (empty) session directory of its own; home has sessions.
	require.NoError(t, os.MkdirAll(filepath.Join(w.agent, "sessions", locate.BucketNames(own, w.env)[0]), 0o755))
	w.bucket = filepath.Join(w.agent, "sessions", locate.BucketNames(w.env.Home, w.env)[0])
	require.NoError(t, os.MkdirAll(w.bucket, 0o755))
	w.write("s-home", msgLine("u1", "", ts, user("deploy from home")))
	for _, tc := range []struct {
		name, cwd string
		total     int
		notice    string // in the project-scope notice; "" for none
	}{
		{"subdirectory", deep, 4, w.project},
		{"own session directory", own, 0, ""},
		{"never the home directory", underHome, 0, ""},
		{"the project itself", w.project, 4, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := w.engine(func(o *engine.Options) { o.Cwd = tc.cwd })
			defer e.Close()
			p := recall(t, e, engine.RecallRequest{Query: "deploy timeout", Scope: engine.ScopeProject})
			require.Nil(t, p.Error)
			assert.Equal(t, tc.total, p.Total)
			s, err := e.Sessions(ctx, engine.SessionsRequest{Scope: engine.ScopeProject})
			require.NoError(t, err)
			assert.Equal(t, min(tc.total, 1), s.Total)
			for _, got := range []string{scopeNotice(p.Notices), scopeNotice(s.Notices)} {
				if tc.notice == "" {
					assert.Empty(t, got)
					continue
				}
				assert.Contains(t, got, tc.cwd)
				assert.Contains(t, got, tc.notice)
			}
		})
	}
}

// titled writes a session whose first line is OMP's title slot.
func (w *world) titled(id, title string, lines ...string) string {
	p := w.write(id, lines...)
	body, err := os.ReadFile(p)
	require.NoError(w.t, err)
	slot := fmt.Sprintf(`{"type":"title","v":1,"title":%s,"source":"user","updatedAt":"2026-09-01T10:31:00.000Z","pad":"%s"}`, jsString(title), strings.Repeat(" ", 64))
	st, err := os.Stat(p)
	require.NoError(w.t, err)
	require.NoError(w.t, os.WriteFile(p, append([]byte(slot+"\n"), body...), 0o600))
	require.NoError(w.t, os.Chtimes(p, st.ModTime(), st.ModTime()))
	return p
}

// Session titles stand in session rows, hits and the expand header, and
// entry hits of a global recall carry their project directory; both are
// left out of the JSON when empty.
func TestTitlesAndProjects(t *testing.T) {
	w := newWorld(t)
	w.cfg.HotSessions = 1
	plain := w.write("s-plain", msgLine("u1", "", ts, user("deploy with no title")))
	cold := w.titled("s-cold", "Cold deploy notes", msgLine("u1", "", ts, user("deploy notes kept cold")))
	hot := w.titled("s-hot", "Deploy timeouts", msgLine("u1", "", ts, user("deploy timeout again")))
	want := map[string]string{cold: "Cold deploy notes", hot: "Deploy timeouts", plain: ""}
	wantByID := map[string]string{"s-cold": "Cold deploy notes", "s-hot": "Deploy timeouts", "s-plain": ""}
	e := w.engine()
	rows, err := e.Sessions(ctx, engine.SessionsRequest{Scope: engine.ScopeProject})
	require.NoError(t, err)
	require.Len(t, rows.Sessions, 3)
	for _, r := range rows.Sessions {
		assert.Equal(t, want[r.File], r.Title, r.File)
	}
	for _, scope := range []engine.Scope{engine.ScopeProject, engine.ScopeGlobal} {
		p := recall(t, e, engine.RecallRequest{Query: "deploy", Scope: scope, PageSize: 10})
		require.Nil(t, p.Error)
		var kinds []string
		for _, h := range p.Hits {
			b, err := json.Marshal(h)
			require.NoError(t, err)
			if h.Session != nil {
				kinds = append(kinds, "session")
				assert.Equal(t, wantByID[h.Session.SessionID], h.Session.Title)
				continue
			}
			kinds = append(kinds, "entry")
			assert.Equal(t, wantByID[h.Entry.SessionID], h.Entry.Title)
			if h.Entry.Title == "" {
				assert.NotContains(t, string(b), `"title"`, "omitted when empty")
			}
			if scope == engine.ScopeGlobal {
				assert.Equal(t, w.project, h.Entry.Cwd, "a global hit names its project")
			} else {
				assert.NotContains(t, string(b), `"cwd"`, "a project hit's project is the caller's")
			}
		}
		assert.Contains(t, kinds, "session", "the cold sessions are candidates")
		assert.Contains(t, kinds, "entry")
	}
	x, err := e.Expand(ctx, engine.ExpandRequest{Session: hot, Indices: []int{0}})
	require.NoError(t, err)
	require.NoError(t, x.Err())
	assert.Equal(t, "Deploy timeouts", x.Title)
	x, err = e.Expand(ctx, engine.ExpandRequest{Session: plain})
	require.NoError(t, err)
	b, err := json.Marshal(x)
	require.NoError(t, err)
	assert.NotContains(t, string(b), `"title"`)
}

// A watching Engine keeps the titles it read, and a title slot rewritten
// in place (same size, mtime set back) is read again: its change time
// moved.
func TestWatchingTitleFollowsRewrite(t *testing.T) {
	w := newWorld(t)
	w.cfg.HotSessions = 1
	p := w.titled("s-hot", "Deploy timeouts", msgLine("u1", "", ts, user("deploy timeout again")))
	w.titled("s-cold", "Cold deploy notes", msgLine("u1", "", ts, user("deploy notes kept cold")))
	e := w.engine(func(o *engine.Options) { o.Watch = true })
	defer e.Close()
	titles := func() map[string]string {
		t.Helper()
		got := map[string]string{}
		pg := recall(t, e, engine.RecallRequest{Query: "deploy", Scope: engine.ScopeGlobal, PageSize: 10})
		require.Nil(t, pg.Error)
		for _, h := range pg.Hits {
			if h.Session != nil {
				got[h.Session.SessionID] = h.Session.Title
			} else {
				got[h.Entry.SessionID] = h.Entry.Title
			}
		}
		return got
	}
	want := map[string]string{"s-hot": "Deploy timeouts", "s-cold": "Cold deploy notes"}
	for range 3 {
		assert.Equal(t, want, titles())
		time.Sleep(150 * time.Millisecond) // past the racy window: kept
	}
	require.True(t, e.KeptTitle(p), "a watching engine keeps the title it read")
	st, err := os.Stat(p)
	require.NoError(t, err)
	body, err := os.ReadFile(p)
	require.NoError(t, err)
	renamed := strings.Replace(string(body), `"title":"Deploy timeouts"`, `"title":"Deploy timeoutz"`, 1)
	require.NotEqual(t, string(body), renamed)
	require.NoError(t, os.WriteFile(p, []byte(renamed), 0o600))
	require.NoError(t, os.Chtimes(p, st.ModTime(), st.ModTime()))
	want["s-hot"] = "Deploy timeoutz"
	assert.Equal(t, want, titles())
}
