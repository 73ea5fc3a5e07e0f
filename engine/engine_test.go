package engine_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"github.com/memidx/memidx/internal/session/locate"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"github.com/memidx/memidx/engine"
	"github.com/memidx/memidx/internal/coverage"
	"github.com/memidx/memidx/internal/index"
	"github.com/memidx/memidx/internal/jsjson"
)

var ctx = context.Background()

// world is an agent directory with one project.
type world struct {
	t       *testing.T
	root    string
	agent   string
	project string
	bucket  string
	cfg     engine.Config
	env     locate.Env
	n       int
}

func newWorld(t *testing.T) *world {
	root, err := os.MkdirTemp("", "memidx-world-")
	if err != nil {
		panic(err)
	}
	if t != nil {
		t.Cleanup(func() { os.RemoveAll(root) })
	}
	w := &world{t: t, root: root, agent: filepath.Join(root, "home", ".omp", "agent"), project: filepath.Join(root, "proj")}
	os.MkdirAll(w.project, 0o755)
	w.env = locate.Env{Home: filepath.Join(root, "home"), Cwd: w.project, TmpDir: filepath.Join(root, "tmp"), LookupEnv: locate.EnvMap(nil)}
	w.bucket = filepath.Join(w.agent, "sessions", locate.BucketNames(w.project, w.env)[0])
	os.MkdirAll(w.bucket, 0o755)
	w.cfg = engine.DefaultConfig()
	w.cfg.IndexDir = filepath.Join(root, "index")
	// The worlds' tests are not of the regex budget: on a loaded machine
	// (the race detector, load 10) the default 250 ms ran out and a
	// regex recall answered regex_timeout with no hit.
	w.cfg.RegexTimeoutMs = 30000
	return w
}

// engineEnv is the world's environment under engine's type.
func (w *world) engineEnv() *engine.Env {
	env := engine.Env(w.env)
	return &env
}

func (w *world) engineB(b *testing.B) *engine.Engine {
	cfg := w.cfg
	e, err := engine.Open(engine.Options{AgentDir: w.agent, Cwd: w.project, Env: w.engineEnv(), Memory: &cfg, LockTimeout: time.Second})
	if err != nil {
		b.Fatal(err)
	}
	return e
}

func (w *world) engine(opts ...func(*engine.Options)) *engine.Engine {
	cfg := w.cfg
	o := engine.Options{AgentDir: w.agent, Cwd: w.project, Env: w.engineEnv(), Memory: &cfg, LockTimeout: time.Second}
	for _, f := range opts {
		f(&o)
	}
	e, err := engine.Open(o)
	require.NoError(w.t, err)
	return e
}

// line builders
func msgLine(id, parent, ts string, message string) string {
	p := "null"
	if parent != "" {
		p = `"` + parent + `"`
	}
	return fmt.Sprintf(`{"type":"message","id":%q,"parentId":%s,"timestamp":%q,"message":%s}`, id, p, ts, message)
}

func user(text string) string { return fmt.Sprintf(`{"role":"user","content":%s}`, jsString(text)) }
func assistant(text string) string {
	return fmt.Sprintf(`{"role":"assistant","content":[{"type":"text","text":%s}],"stopReason":"stop","usage":{"cost":{"total":0}}}`, jsString(text))
}
func toolCall(callID, name, args string) string {
	return fmt.Sprintf(`{"role":"assistant","content":[{"type":"toolCall","id":%q,"name":%q,"arguments":%s}],"stopReason":"toolUse"}`, callID, name, args)
}
func toolResult(callID, name, out string, isErr bool, exit int) string {
	return fmt.Sprintf(`{"role":"toolResult","toolCallId":%q,"toolName":%q,"content":[{"type":"text","text":%s}],"isError":%v,"details":{"exitCode":%d}}`, callID, name, jsString(out), isErr, exit)
}

func jsString(s string) string { return string(jsjson.AppendString(nil, s)) }

// write writes a session file with lines after a header, mtime ordered by
// creation so that later sessions are newer.
func (w *world) write(id string, lines ...string) string {
	w.n++
	p := filepath.Join(w.bucket, fmt.Sprintf("2026-09-01T10-00-%02d-000Z_%s.jsonl", w.n, id))
	body := fmt.Sprintf(`{"type":"session","version":3,"id":%q,"timestamp":"2026-09-01T10:00:00.000Z","cwd":%q}`, id, w.project) + "\n" + strings.Join(lines, "\n") + "\n"
	require.NoError(w.t, os.WriteFile(p, []byte(body), 0o600))
	mt := time.Now().Add(-time.Hour + time.Duration(w.n)*time.Minute)
	require.NoError(w.t, os.Chtimes(p, mt, mt))
	return p
}

func (w *world) appendTo(p, line string) {
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(w.t, err)
	_, err = f.WriteString(line + "\n")
	require.NoError(w.t, err)
	require.NoError(w.t, f.Close())
}

func str(s string) *string { return &s }

func recall(t *testing.T, e *engine.Engine, req engine.RecallRequest) *engine.RecallPage {
	t.Helper()
	p, err := e.Recall(ctx, req)
	require.NoError(t, err)
	return p
}

func texts(p *engine.RecallPage) []string {
	var out []string
	for _, h := range p.Hits {
		if h.Entry != nil {
			out = append(out, h.Entry.Snippet)
		} else {
			out = append(out, "session:"+h.Session.SessionID)
		}
	}
	return out
}

const ts = "2026-09-01T10:01:00.000Z"

func basicSession(w *world) string {
	return w.write("s-basic",
		msgLine("u1", "", ts, user("Why does the deploy timeout at 30 seconds?")),
		msgLine("a1", "u1", ts, toolCall("c1", "bash", `{"command":"make deploy"}`)),
		msgLine("r1", "a1", ts, toolResult("c1", "bash", "error: deploy timeout after 30s", true, 2)),
		msgLine("a2", "r1", ts, assistant("The deploy timeout comes from the load balancer health check.")),
	)
}

// The retrieval workflow: recall, inspect, follow, page with next.
func TestRecallFollowExpand(t *testing.T) {
	w := newWorld(t)
	path := basicSession(w)
	e := w.engine()
	p := recall(t, e, engine.RecallRequest{Query: "deploy timeout", Scope: "project"})
	require.Nil(t, p.Error)
	require.Equal(t, 4, p.Total, "any term: the call's arguments say deploy too")
	assert.True(t, p.Coverage.Complete, p.Coverage.Reasons)
	assert.Equal(t, 1, p.Coverage.EligibleSessions)
	// Prose ranks ahead of tool plumbing.
	first := p.Hits[0].Entry
	require.NotNil(t, first)
	assert.Equal(t, "assistant", *first.Role)
	assert.Contains(t, first.Snippet, "load balancer")
	assert.Equal(t, "memory.expand", first.Follow.Ref)

	res, err := e.Call(ctx, first.Follow)
	require.NoError(t, err)
	x := res.Expand
	require.Nil(t, x.Error)
	require.Len(t, x.Entries, 1)
	assert.Equal(t, "The deploy timeout comes from the load balancer health check.", x.Entries[0].Text)
	assert.Equal(t, path, x.Session)
	assert.True(t, x.Entries[0].TextRange.Complete)

	// Paging: pageSize 1 walks the stream with next until null.
	var seen []string
	page := recall(t, e, engine.RecallRequest{Query: "deploy timeout", Scope: "project", PageSize: 1})
	for {
		seen = append(seen, texts(page)...)
		if page.Next == nil {
			break
		}
		r, err := e.Call(ctx, *page.Next)
		require.NoError(t, err)
		page = r.Recall
		require.Nil(t, page.Error)
	}
	assert.Equal(t, texts(p), seen)
}

func TestRecallPrefersNothingFromAbandonedBranch(t *testing.T) {
	w := newWorld(t)
	w.write("s-branch",
		msgLine("u1", "", ts, user("start here")),
		msgLine("a1", "u1", ts, assistant("abandoned idea zebrafish")),
		msgLine("a2", "u1", ts, assistant("chosen idea giraffe")),
	)
	e := w.engine()
	p := recall(t, e, engine.RecallRequest{Query: "zebrafish", Scope: "project"})
	assert.Equal(t, 0, p.Total)
	assert.True(t, p.Coverage.Complete, "an empty answer over a complete index is authoritative")
	p = recall(t, e, engine.RecallRequest{Query: "zebrafish", Scope: "project", Branches: "all"})
	require.Equal(t, 1, p.Total)
	var args engine.ExpandRequest
	require.NoError(t, json.Unmarshal(p.Hits[0].Entry.Follow.Args, &args))
	assert.Equal(t, engine.BranchesAll, args.Branches, "follow calls keep the branch mode")
	assert.Equal(t, 1, recall(t, e, engine.RecallRequest{Query: "giraffe", Scope: "project"}).Total)
}

func TestLiveSessionOverridesPersistedLeaf(t *testing.T) {
	w := newWorld(t)
	path := w.write("s-live",
		msgLine("u1", "", ts, user("start here")),
		msgLine("a1", "u1", ts, assistant("abandoned idea zebrafish")),
		msgLine("a2", "u1", ts, assistant("chosen idea giraffe")),
	)
	live := engine.StaticLive{File: path, Leaf: "a1", Branch: []string{"u1", "a1"}}
	e := w.engine(func(o *engine.Options) { o.Live = live })
	assert.Equal(t, 1, recall(t, e, engine.RecallRequest{Query: "zebrafish"}).Total, "the host navigated to a1")
	assert.Equal(t, 0, recall(t, e, engine.RecallRequest{Query: "giraffe"}).Total)
	// Without the live view, the persisted leaf (a2) wins again.
	plain := w.engine()
	assert.Equal(t, 0, recall(t, plain, engine.RecallRequest{Query: "zebrafish", Scope: "project"}).Total)
	// The session listing describes the live branch too, and a listing
	// between two recalls rebuilds nothing.
	row := func(e *engine.Engine) engine.SessionRow {
		res, err := e.Sessions(ctx, engine.SessionsRequest{Scope: "project"})
		require.NoError(t, err)
		require.Len(t, res.Sessions, 1)
		return res.Sessions[0]
	}
	liveRow, plainRow := row(e), row(plain)
	require.NotNil(t, liveRow.LineageFingerprint)
	require.NotNil(t, plainRow.LineageFingerprint)
	assert.NotEqual(t, *plainRow.LineageFingerprint, *liveRow.LineageFingerprint, "the live branch's lineage")
	time.Sleep(index.FineRacyWindow + 50*time.Millisecond) // settled: no re-hash
	assert.Equal(t, 1, recall(t, e, engine.RecallRequest{Query: "zebrafish"}).Total)
	before := index.SourceReads()
	row(e)
	assert.Equal(t, 1, recall(t, e, engine.RecallRequest{Query: "zebrafish"}).Total)
	assert.Zero(t, index.SourceReads()-before, "listing and recall agree on the live branch's record")
}

func TestStalePointer(t *testing.T) {
	w := newWorld(t)
	path := basicSession(w)
	e := w.engine()
	p := recall(t, e, engine.RecallRequest{Query: "balancer", Scope: "project"})
	require.Equal(t, 1, p.Total)
	follow := p.Hits[0].Entry.Follow
	w.appendTo(path, msgLine("u2", "a2", ts, user("and now?")))
	res, err := e.Call(ctx, follow)
	require.NoError(t, err)
	x := res.Expand
	require.NotNil(t, x.Error)
	assert.Equal(t, coverage.StalePointer, x.Error.Code)
	assert.Empty(t, x.Entries, "a stale pointer returns no source content")

	// A single-session continuation is bound too.
	p = recall(t, e, engine.RecallRequest{Query: "deploy", Scope: engine.ScopeOf(path), PageSize: 1})
	require.NotNil(t, p.Next)
	w.appendTo(path, msgLine("u3", "u2", ts, user("more")))
	r, err := e.Call(ctx, *p.Next)
	require.NoError(t, err)
	assert.Equal(t, coverage.StalePointer, r.Recall.Error.Code)
}

func TestColdSessionsAndHydration(t *testing.T) {
	w := newWorld(t)
	w.cfg.HotSessions = 1
	old := w.write("s-old",
		msgLine("u1", "", ts, user("the flamingo migration failed")),
		msgLine("a1", "u1", ts, toolCall("c1", "bash", `{"command":"migrate flamingo"}`)),
		msgLine("r1", "a1", ts, toolResult("c1", "bash", "flamingo: exit status 1", true, 1)),
	)
	w.write("s-new", msgLine("u1", "", ts, user("unrelated pelican work")))
	e := w.engine()
	p := recall(t, e, engine.RecallRequest{Query: "flamingo", Scope: "project"})
	require.Equal(t, 1, p.Total)
	sh := p.Hits[0].Session
	require.NotNil(t, sh, "a cold session is a session candidate")
	assert.Equal(t, "cold", sh.Tier)
	assert.Equal(t, 1, sh.MatchedTerms)
	assert.Equal(t, "memory.recall", sh.Follow.Ref)
	assert.True(t, p.Coverage.Complete, p.Coverage.Reasons)

	// Following it resolves exact entries, bound to the source.
	r, err := e.Call(ctx, sh.Follow)
	require.NoError(t, err)
	rp := r.Recall
	require.Nil(t, rp.Error)
	require.Equal(t, 3, rp.Total)
	for _, h := range rp.Hits {
		require.NotNil(t, h.Entry)
		assert.Equal(t, "cold", h.Entry.Tier)
	}

	// What the cold tier cannot prove is said.
	p = recall(t, e, engine.RecallRequest{Query: "flamingo migration", QueryMatch: "all", Scope: "project"})
	assert.Contains(t, p.Coverage.Reasons, coverage.ColdAllTermsRequiresHydration)
	p = recall(t, e, engine.RecallRequest{Query: "flamingo migration", QueryMode: "phrase", Scope: "project"})
	assert.Contains(t, p.Coverage.Reasons, coverage.ColdPhraseRequiresHydration)
	p = recall(t, e, engine.RecallRequest{Query: "flamingo", Outcome: "failed", Scope: "project"})
	require.Equal(t, 1, p.Total)
	assert.Equal(t, 1, p.Hits[0].Session.MatchedStructuralEntries)
	assert.Contains(t, p.Coverage.Reasons, coverage.ColdStructuralFilterRequiresHydration)
	// A structural filter alone is proved by the cold postings.
	p = recall(t, e, engine.RecallRequest{Ref: "omp.bash", Outcome: "failed", Scope: "project"})
	require.Equal(t, 1, p.Total)
	assert.NotContains(t, p.Coverage.Reasons, coverage.ColdStructuralFilterRequiresHydration)

	// A changed cold source answers stale_pointer on follow.
	w.appendTo(old, msgLine("u2", "r1", ts, user("again")))
	r, err = e.Call(ctx, sh.Follow)
	require.NoError(t, err)
	assert.Equal(t, coverage.StalePointer, r.Recall.Error.Code)
}

// Tiers are a function of the archive, not of call order. With
// hotSessions 1 and a fresh index, inspecting the older of two sessions
// first must not rank it among the sessions the index knows (itself
// alone) and make it hot: it is cold before a project recall as after.
func TestTierDoesNotDependOnCallOrder(t *testing.T) {
	w := newWorld(t)
	w.cfg.HotSessions = 1
	older := w.write("s-older", msgLine("u1", "", ts, user("older narwhal")))
	w.write("s-newer", msgLine("u1", "", ts, user("newer narwhal")))
	e := w.engine()
	first, err := e.InspectSession(ctx, older, "active")
	require.NoError(t, err)
	require.NotNil(t, first.Record)
	recall(t, e, engine.RecallRequest{Query: "narwhal", Scope: "project"})
	after, err := e.InspectSession(ctx, older, "active")
	require.NoError(t, err)
	require.Equal(t, "cold", after.Record.Tier)
	require.Equal(t, after.Record.Tier, first.Record.Tier, "the first call already knows the newer session")
	require.NotNil(t, first.Digest, "a cold session shows its digest")
}

func TestStructuralFilters(t *testing.T) {
	w := newWorld(t)
	w.write("s-ops",
		msgLine("u1", "", ts, user("please check")),
		msgLine("a1", "u1", ts, `{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"read","arguments":{"path":"a.go"}},{"type":"toolCall","id":"c2","name":"grep","arguments":{"pattern":"x"}}]}`),
		msgLine("r1", "a1", ts, toolResult("c1", "read", "package a", false, 0)),
		msgLine("r2", "r1", ts, toolResult("c2", "grep", "no matches", true, 1)),
	)
	e := w.engine()
	count := func(req engine.RecallRequest) int {
		req.Scope = "project"
		return recall(t, e, req).Total
	}
	assert.Equal(t, 2, count(engine.RecallRequest{Tool: "grep"}), "the second tool call of a message is searchable")
	assert.Equal(t, 2, count(engine.RecallRequest{Ref: "omp.read"}))
	assert.Equal(t, 1, count(engine.RecallRequest{Ref: "omp.grep", Outcome: "failed"}))
	assert.Equal(t, 1, count(engine.RecallRequest{Role: "user"}))
	assert.Equal(t, 0, count(engine.RecallRequest{Ref: "omp.nothing"}), "a nonexistent ref returns nothing")
	assert.Equal(t, 4, count(engine.RecallRequest{}), "browse")
	p := recall(t, e, engine.RecallRequest{Tool: "grep", Scope: "project"})
	assert.Equal(t, "read", *p.Hits[0].Entry.Tool, "the hit's tool stays the first call's")
	assert.Equal(t, 0, count(engine.RecallRequest{Since: engine.EpochMs(time.UnixMilli(2e12))}))
	assert.Equal(t, 4, count(engine.RecallRequest{Since: engine.EpochMs(time.UnixMilli(1.7e12)), Until: engine.EpochMs(time.UnixMilli(1.9e12))}))
}

func TestLiteralQueriesAreNeverRegexes(t *testing.T) {
	w := newWorld(t)
	w.write("s-lit",
		msgLine("u1", "", ts, user("edit src/foo.ts please")),
		msgLine("a1", "u1", ts, assistant("the cat sat on the concatenated mat")),
	)
	e := w.engine()
	p := recall(t, e, engine.RecallRequest{Query: "src/foo.ts", Scope: "project"})
	require.GreaterOrEqual(t, p.Total, 1)
	assert.Contains(t, p.Hits[0].Entry.Snippet, "src/foo.ts")
	assert.Equal(t, 0, recall(t, e, engine.RecallRequest{Query: "s.c/f.*", Scope: "project"}).Total)
	assert.Equal(t, 1, recall(t, e, engine.RecallRequest{Query: `"cat" "mat"`, QueryMatch: "all", Scope: "project"}).Total)
	// Phrases match whole tokens in order: "cat sat" yes, "cat concatenated" no.
	assert.Equal(t, 1, recall(t, e, engine.RecallRequest{Query: "Cat  SAT", QueryMode: "phrase", Scope: "project"}).Total)
	assert.Equal(t, 0, recall(t, e, engine.RecallRequest{Query: "sat cat", QueryMode: "phrase", Scope: "project"}).Total)
	assert.Equal(t, 0, recall(t, e, engine.RecallRequest{Query: "cat", QueryMode: "phrase", Scope: "session:s-lit", Role: "user"}).Total)
}

func TestTruncatedHotTextIsNotAuthoritative(t *testing.T) {
	w := newWorld(t)
	w.cfg.MaxEntryChars = 100
	w.write("s-long", msgLine("u1", "", ts, user(strings.Repeat("filler ", 30)+"needleword")))
	e := w.engine()
	p := recall(t, e, engine.RecallRequest{Query: "needleword", Scope: "project"})
	assert.Equal(t, 0, p.Total)
	assert.False(t, p.Coverage.Complete)
	assert.Contains(t, p.Coverage.Reasons, coverage.MaxEntryChars)
}

func TestScopeErrors(t *testing.T) {
	w := newWorld(t)
	basicSession(w)
	dupDir := filepath.Join(w.agent, "sessions", "-elsewhere")
	require.NoError(t, os.MkdirAll(dupDir, 0o755))
	b, _ := os.ReadFile(filepath.Join(w.bucket, "2026-09-01T10-00-01-000Z_s-basic.jsonl"))
	require.NoError(t, os.WriteFile(filepath.Join(dupDir, "2026-09-01T10-00-09-000Z_s-basic.jsonl"), b, 0o600))
	e := w.engine()
	for scope, code := range map[string]string{
		"projects":          coverage.InvalidScope,
		"all":               coverage.InvalidScope,
		"session:no-such":   coverage.SessionNotFound,
		"session:s-basic":   coverage.AmbiguousSession,
		"session:/dev/null": coverage.SessionNotFound,
	} {
		p := recall(t, e, engine.RecallRequest{Query: "deploy", Scope: engine.Scope(scope)})
		require.NotNil(t, p.Error, scope)
		assert.Equal(t, code, p.Error.Code, scope)
		assert.False(t, p.Coverage.Complete, "%s: a failure is never an authoritative empty result", scope)
		if code == coverage.AmbiguousSession {
			assert.Len(t, p.Error.Candidates, 2)
		}
	}
}

func TestRequestValidation(t *testing.T) {
	w := newWorld(t)
	path := basicSession(w)
	e := w.engine()
	for name, raw := range map[string]string{
		"unknown field":        `{"query":"x","pagesize":3}`,
		"wrong type":           `{"query":5}`,
		"bad mode":             `{"query":"x","queryMode":"fuzzy"}`,
		"match with phrase":    `{"query":"x","queryMode":"phrase","queryMatch":"all"}`,
		"bad outcome":          `{"outcome":"exploded"}`,
		"bad branches":         `{"branches":"some"}`,
		"expect without scope": `{"query":"x","expectedSourceHash":"ab"}`,
	} {
		r, err := e.Call(ctx, engine.FabricCall{Ref: "memory.recall", Args: json.RawMessage(raw)})
		require.NoError(t, err)
		p := r.Recall
		require.NotNil(t, p.Error, name)
		assert.Equal(t, coverage.InvalidRequest, p.Error.Code, name)
	}
	p := recall(t, e, engine.RecallRequest{Scope: engine.ScopeOf(path), EntryRange: &engine.Range{First: 0, Last: 99}})
	require.NotNil(t, p.Error)
	assert.Equal(t, coverage.IndexOutOfBounds, p.Error.Code, "never clamped")
	p = recall(t, e, engine.RecallRequest{Scope: engine.ScopeOf(path), EntryRange: &engine.Range{First: 1, Last: 2}})
	require.Nil(t, p.Error)
	assert.Equal(t, 2, p.Total)
}

func TestEnvelopeBound(t *testing.T) {
	w := newWorld(t)
	var lines []string
	parent := ""
	for i := 0; i < 60; i++ {
		id := fmt.Sprintf("u%d", i)
		lines = append(lines, msgLine(id, parent, ts, user(strings.Repeat("<&> 😀 \u2028 common ", 200))))
		parent = id
	}
	w.write("s-big", lines...)
	e := w.engine()
	p := recall(t, e, engine.RecallRequest{Query: "common", Scope: "project", PageSize: 50, SnippetChars: 2000})
	b, err := json.Marshal(p)
	require.NoError(t, err)
	assert.LessOrEqual(t, jsjson.UTF16Len(string(b)), engine.MaxResponseChars)
	assert.Less(t, len(p.Hits), 50, "hits were dropped to fit")
	require.NotNil(t, p.Next)
	var next engine.RecallRequest
	require.NoError(t, json.Unmarshal(p.Next.Args, &next))
	assert.Equal(t, len(p.Hits), next.Offset, "next starts at the first dropped hit")
}

func TestExpandChunksReconstructText(t *testing.T) {
	w := newWorld(t)
	long := strings.Repeat("abc😀def ", 5000) // 45,000 UTF-16 units
	path := w.write("s-chunk",
		msgLine("u1", "", ts, user("short")),
		msgLine("a1", "u1", ts, assistant(long)),
		msgLine("u2", "a1", ts, user("tail")),
	)
	e := w.engine()
	got := ""
	req := engine.ExpandRequest{Session: path, EntryIDs: []string{"a1"}, MaxChars: 7001}
	for pages := 0; ; pages++ {
		require.Less(t, pages, 100)
		x, err := e.Expand(ctx, req)
		require.NoError(t, err)
		require.Nil(t, x.Error)
		require.Len(t, x.Entries, 1)
		got += x.Entries[0].Text
		b, _ := json.Marshal(x)
		assert.LessOrEqual(t, jsjson.UTF16Len(string(b)), engine.MaxResponseChars)
		if x.Next == nil {
			assert.True(t, x.Entries[0].TextRange.Complete)
			break
		}
		require.NoError(t, json.Unmarshal(x.Next.Args, &req))
	}
	assert.Equal(t, long, got)

	// Context around one anchor.
	x, err := e.Expand(ctx, engine.ExpandRequest{Session: path, Indices: []int{1}, Before: 1, After: 1, MaxChars: 24000})
	require.NoError(t, err)
	require.Nil(t, x.Error)
	assert.Equal(t, 0, x.Entries[0].Index)
	assert.False(t, *x.Entries[0].Anchor)
	assert.True(t, *x.Entries[1].Anchor)

	// Walk reassembles every entry whole.
	var walked []string
	res, err := e.Walk(ctx, engine.ExpandRequest{Session: path}, func(en engine.ExpandedEntry) (bool, error) {
		walked = append(walked, en.Text)
		return true, nil
	})
	require.NoError(t, err)
	assert.Equal(t, 3, res.Visited)
	assert.Equal(t, []string{"short", long, "tail"}, walked)
	res, err = e.Walk(ctx, engine.ExpandRequest{Session: path}, func(engine.ExpandedEntry) (bool, error) { return false, nil })
	require.NoError(t, err)
	assert.True(t, res.Stopped)
	assert.Equal(t, 1, res.Visited)
}

func TestExpandAddresses(t *testing.T) {
	w := newWorld(t)
	path := w.write("s-addr",
		msgLine("u1", "", ts, user("root")),
		msgLine("a1", "u1", ts, assistant("abandoned")),
		msgLine("dup", "a1", ts, user("one")),
		msgLine("a2", "u1", ts, assistant("chosen")),
		msgLine("dup", "a2", ts, user("two")),
	)
	e := w.engine()
	code := func(req engine.ExpandRequest) string {
		x, err := e.Expand(ctx, req)
		require.NoError(t, err)
		if x.Error == nil {
			return ""
		}
		assert.Empty(t, x.Entries)
		return x.Error.Code
	}
	assert.Equal(t, coverage.AddressNotFound, code(engine.ExpandRequest{Session: path, EntryIDs: []string{"nope"}}))
	assert.Equal(t, coverage.AddressNotFound, code(engine.ExpandRequest{Session: path, EntryIDs: []string{"a1"}}), "off the active lineage")
	assert.Equal(t, "", code(engine.ExpandRequest{Session: path, EntryIDs: []string{"a1"}, Branches: "all"}))
	assert.Equal(t, coverage.AmbiguousAddress, code(engine.ExpandRequest{Session: path, EntryIDs: []string{"dup"}, Branches: "all"}))
	assert.Equal(t, coverage.IndexOutOfBounds, code(engine.ExpandRequest{Session: path, Indices: []int{50}}))
	assert.Equal(t, coverage.InvalidRequest, code(engine.ExpandRequest{Session: path, MaxChars: -1}))
	assert.Equal(t, coverage.InvalidRequest, code(engine.ExpandRequest{Session: path, Indices: []int{0, 1}, Before: 1}))
	assert.Equal(t, coverage.TextOffsetOutOfBounds, code(engine.ExpandRequest{Session: path, Indices: []int{0}, TextOffset: 99}))
	assert.Equal(t, coverage.SessionNotFound, code(engine.ExpandRequest{Session: "nope"}))
	x, err := e.Expand(ctx, engine.ExpandRequest{Session: path})
	require.NoError(t, err)
	assert.Equal(t, 3, *x.EntryCount, "metadata only without a selector")
	assert.Empty(t, x.Entries)
}

func TestSessionsListing(t *testing.T) {
	w := newWorld(t)
	for i := 0; i < 5; i++ {
		w.write(fmt.Sprintf("s%d", i), msgLine("u1", "", ts, user("hello")))
	}
	e := w.engine()
	r, err := e.Sessions(ctx, engine.SessionsRequest{Scope: "project", Limit: 2})
	require.NoError(t, err)
	assert.Equal(t, 5, r.Total)
	assert.True(t, r.Truncated)
	require.Len(t, r.Sessions, 2)
	assert.Equal(t, "s4", r.Sessions[0].ID, "newest first")
	assert.Equal(t, 1, *r.Sessions[0].EntryCount)
	var all []string
	for {
		for _, s := range r.Sessions {
			all = append(all, s.ID)
		}
		if r.Next == nil {
			break
		}
		res, err := e.Call(ctx, *r.Next)
		require.NoError(t, err)
		r = res.Sessions
	}
	assert.Equal(t, []string{"s4", "s3", "s2", "s1", "s0"}, all)
}

func TestCandidateItemBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 10,050-entry session")
	}
	w := newWorld(t)
	var lines []string
	parent := ""
	for i := 0; i < engine.MaxRankedItems+50; i++ {
		id := fmt.Sprintf("e%d", i)
		lines = append(lines, msgLine(id, parent, ts, user("item")))
		parent = id
	}
	w.write("s-many", lines...)
	p := recall(t, w.engine(), engine.RecallRequest{Query: "item", Scope: "project"})
	assert.Equal(t, engine.MaxRankedItems, p.Total)
	assert.Contains(t, p.Coverage.Reasons, coverage.CandidateItemBudget)
	assert.False(t, p.Coverage.Complete)
}

func TestRegexMode(t *testing.T) {
	w := newWorld(t)
	w.cfg.HotSessions = 1
	w.write("s-cold", msgLine("u1", "", ts, user("the error code E1234 appeared")))
	w.write("s-hot",
		msgLine("u1", "", ts, user("we saw E5678 and E9999")),
		msgLine("a1", "u1", ts, assistant("no codes here")),
	)
	e := w.engine()
	p := recall(t, e, engine.RecallRequest{Query: `e\d{4}`, QueryMode: "regex", Scope: "project"})
	require.Nil(t, p.Error)
	require.Equal(t, 2, p.Total)
	assert.NotNil(t, p.Hits[0].Entry, "case-insensitive hot match")
	assert.Contains(t, p.Hits[0].Entry.Snippet, "E5678")
	require.NotNil(t, p.Hits[1].Session)
	assert.Equal(t, 1, p.Hits[1].Session.MatchedTerms)
	assert.True(t, p.Coverage.Complete, p.Coverage.Reasons)

	for pattern, code := range map[string]string{
		`(?=x)a`:                  coverage.InvalidRegex,
		`(a)\1`:                   coverage.InvalidRegex,
		strings.Repeat("a", 2000): coverage.RegexPatternTooLarge,
	} {
		p := recall(t, e, engine.RecallRequest{Query: pattern, QueryMode: "regex", Scope: "project"})
		assert.Equal(t, 0, p.Total)
		assert.False(t, p.Coverage.Complete, "an invalid regex is never an authoritative no-match")
		require.NotNil(t, p.Coverage.Error, pattern)
		assert.Equal(t, code, p.Coverage.Error.Code)
		assert.Contains(t, p.Coverage.Reasons, code)
	}

	w.cfg.RegexMaxHaystackTerms = 1
	p = recall(t, w.engine(), engine.RecallRequest{Query: `e\d{4}`, QueryMode: "regex", Scope: "project"})
	assert.Contains(t, p.Coverage.Reasons, coverage.RegexMaxHaystackTerms)
	assert.False(t, p.Coverage.Complete)
}

// A regex anchored at the end never matches at the maxEntryChars cut of
// an entry whose whole text does not match: the cut is not the text's end.
func TestRegexEndAnchorNeverMatchesAtTheCut(t *testing.T) {
	w := newWorld(t)
	w.cfg.MaxEntryChars = 40
	w.write("s-cut",
		msgLine("u1", "", ts, user(strings.Repeat("a", 60)+" and then some more words")),
		msgLine("u2", "u1", ts, user("short text ending in aaaa")),
	)
	e := w.engine()
	for _, pattern := range []string{`(a+)+$`, `a\z`, `(?m)a$`} {
		p := recall(t, e, engine.RecallRequest{Query: pattern, QueryMode: "regex", Scope: "project"})
		require.Nil(t, p.Error, pattern)
		require.Equal(t, 1, p.Total, "%s: only the entry whose whole text ends in a: %v", pattern, texts(p))
		require.Contains(t, p.Hits[0].Entry.Snippet, "short text")
		require.Contains(t, p.Coverage.Reasons, "max_entry_chars", "the cut stays non-authoritative")
	}
	// A match inside the kept head still counts.
	p := recall(t, e, engine.RecallRequest{Query: `a{10}`, QueryMode: "regex", Scope: "project"})
	require.Equal(t, 1, p.Total)
}

// Another process rewrites sessions (hot and cold) between a recall's
// refresh and its search: the search meets tier data of another version
// than its records and must read those sessions from source, so that the
// hits show the sources as they are now and their follow calls are bound
// to them, with nothing left out.
func TestRecallWhileAnotherProcessRewrites(t *testing.T) {
	w := newWorld(t)
	w.cfg.HotSessions = 1
	cold := w.write("s-cold", msgLine("u1", "", ts, user("the narwhal left the cold harbour")))
	hot := w.write("s-hot", msgLine("u1", "", ts, user("the narwhal swam by the hot spring")))
	e := w.engine()
	p := recall(t, e, engine.RecallRequest{Query: "narwhal", Scope: "project"})
	require.Equal(t, 2, p.Total)

	other := w.engine() // another process, sharing the index file
	once := false
	defer engine.SetBeforeSearch(func() {
		if once {
			return
		}
		once = true
		for i, f := range []struct{ path, text string }{
			{cold, "the narwhal came back to the cold harbour"},
			{hot, "the narwhal rested near the hot spring"},
		} {
			// Same entry count and tier, new text: only the data can
			// tell that it is not what the records describe.
			require.NoError(t, os.WriteFile(f.path, []byte(fmt.Sprintf(`{"type":"session","version":3,"id":%q,"timestamp":"2026-09-01T10:00:00.000Z","cwd":%q}`,
				filepath.Base(f.path), w.project)+"\n"+msgLine("u1", "", ts, user(f.text))+"\n"), 0o600))
			mt := time.Now().Add(time.Duration(i-2) * time.Minute)
			require.NoError(t, os.Chtimes(f.path, mt, mt))
		}
		_, err := other.Rebuild(ctx, engine.RebuildRequest{Scope: "project"})
		require.NoError(t, err)
	})()

	p = recall(t, e, engine.RecallRequest{Query: "narwhal", Scope: "project"})
	require.True(t, once)
	require.Equal(t, 2, p.Total)
	assert.True(t, p.Coverage.Complete, p.Coverage.Reasons)
	for _, h := range p.Hits {
		f := h.Follow()
		var args map[string]any
		require.NoError(t, json.Unmarshal(f.Args, &args))
		file := hot
		if h.Session != nil {
			file = cold
		} else {
			assert.Contains(t, h.Entry.Snippet, "rested", "the hot hit shows the source as it is now")
		}
		data, err := os.ReadFile(file)
		require.NoError(t, err)
		sum := sha256.Sum256(data)
		assert.Equal(t, hex.EncodeToString(sum[:]), args["expectedSourceHash"], "the follow call is bound to the current source")
	}
}

// While another process holds the index past the lock timeout, a recall
// answers from what its own refresh built in memory (once, not read again
// from source) and says index_busy: the index is fine, only busy.
func TestRecallWhileIndexBusy(t *testing.T) {
	w := newWorld(t)
	w.cfg.HotSessions = 1
	w.write("s-a", msgLine("u1", "", ts, user("the okapi crossed the river")))
	w.write("s-b", msgLine("u1", "", ts, user("an okapi rested in the shade")))
	want := recall(t, w.engine(), engine.RecallRequest{Query: "okapi", Scope: "project"})
	require.Equal(t, 2, want.Total)
	require.NoError(t, os.RemoveAll(w.cfg.IndexDir)) // every session must be built again

	holder := index.Open(engine.IndexConfig(w.cfg), time.Second)
	inside, release, done := make(chan struct{}), make(chan struct{}), make(chan error)
	go func() {
		done <- holder.Store().Update(ctx, func(*bolt.Tx) error {
			close(inside)
			<-release
			return nil
		})
	}()
	<-inside
	e := w.engine(func(o *engine.Options) { o.LockTimeout = 50 * time.Millisecond })
	p := recall(t, e, engine.RecallRequest{Query: "okapi", Scope: "project"})
	close(release)
	require.NoError(t, <-done)
	require.Nil(t, p.Error)
	assert.Equal(t, texts(want), texts(p))
	assert.Contains(t, p.Coverage.Reasons, index.IndexBusy)
	assert.NotContains(t, p.Coverage.Reasons, index.IndexUnwritable, "the index is busy, not unwritable")
}

// rewriteBetween makes the next recall of e meet a session rewritten (by
// another engine, standing for another process) between its refresh and
// its search; the file keeps its tier (it stays the newest).
func rewriteBetween(t *testing.T, w *world, path, text string) (restore func()) {
	other := w.engine()
	once := false
	return engine.SetBeforeSearch(func() {
		if once {
			return
		}
		once = true
		body := fmt.Sprintf(`{"type":"session","version":3,"id":%q,"timestamp":"2026-09-01T10:00:00.000Z","cwd":%q}`, filepath.Base(path), w.project) +
			"\n" + msgLine("u1", "", ts, user(text)) + "\n"
		require.NoError(t, os.WriteFile(path, []byte(body), 0o600))
		mt := time.Now()
		require.NoError(t, os.Chtimes(path, mt, mt))
		_, err := other.Rebuild(ctx, engine.RebuildRequest{Scope: "project"})
		require.NoError(t, err)
	})
}

// A session read again from source after such a rewrite brings its own
// coverage (here a truncated hot entry), and a session recall bound to the
// source as it was answers stale_pointer, not the new text.
func TestRecallRewriteKeepsCoverageAndBindings(t *testing.T) {
	w := newWorld(t)
	w.cfg.HotSessions = 1
	w.cfg.MaxEntryChars = 100
	p := w.write("s-hot", msgLine("u1", "", ts, user("the axolotl waved")))
	e := w.engine()
	first := recall(t, e, engine.RecallRequest{Query: "axolotl", Scope: "project"})
	require.Equal(t, 1, first.Total)
	require.True(t, first.Coverage.Complete)

	restore := rewriteBetween(t, w, p, "the axolotl waved again "+strings.Repeat("and again ", 30))
	got := recall(t, e, engine.RecallRequest{Query: "axolotl", Scope: "project"})
	restore()
	require.Equal(t, 1, got.Total)
	assert.False(t, got.Coverage.Complete)
	assert.Contains(t, got.Coverage.Reasons, coverage.MaxEntryChars, "the new record's reasons count")

	// Bound to the source as it is now; rewritten again between this
	// call's own refresh and search.
	var args map[string]any
	require.NoError(t, json.Unmarshal(got.Hits[0].Follow().Args, &args))
	bound, _ := args["expectedSourceHash"].(string)
	require.NotEmpty(t, bound)
	restore = rewriteBetween(t, w, p, "the axolotl slept")
	stale := recall(t, e, engine.RecallRequest{Query: "axolotl", Scope: engine.ScopeOf(p), ExpectedSourceHash: bound})
	restore()
	require.NotNil(t, stale.Error, "answered from the rewritten session: %+v", stale.Hits)
	assert.Equal(t, coverage.StalePointer, stale.Error.Code)
}

// rewrittenSession writes session id, reads it once, and makes the first
// read of an expansion or a walk after that (and after each reset of
// *reads to 0) meet a rewrite of it, as another process would make it;
// the later reads count in *reads.
func rewrittenSession(t *testing.T, id string) (e *engine.Engine, path string, reads *int) {
	w := newWorld(t)
	path = w.write(id, msgLine("u1", "", ts, user("the first words")))
	e = w.engine()
	old, err := e.Expand(ctx, engine.ExpandRequest{Session: path, Indices: []int{0}})
	require.NoError(t, err)
	require.Nil(t, old.Error)
	return e, path, rewriteOnFirstRead(t, w, path, id)
}

func rewriteOnFirstRead(t *testing.T, w *world, path, id string) (reads *int) {
	reads = new(int)
	rewrites := 0
	t.Cleanup(engine.SetAfterSnapshot(func() {
		if *reads++; *reads > 1 {
			return
		}
		rewrites++
		text := fmt.Sprintf("rewritten %d", rewrites)
		require.NoError(t, os.WriteFile(path, []byte(fmt.Sprintf(`{"type":"session","version":3,"id":%q,"timestamp":"2026-09-01T10:00:00.000Z","cwd":%q}`,
			id, w.project)+"\n"+msgLine("u1", "", ts, user(text))+"\n"), 0o600))
		mt := time.Now().Add(time.Duration(rewrites) * time.Second)
		require.NoError(t, os.Chtimes(path, mt, mt))
	}))
	return reads
}

// Another process rewrites a session between an expansion's read of it
// and its read of the entries. A request bound to no version reads it
// again and answers from the session as it is now; one bound to the old
// version gets stale_pointer. (Found by the soak: an unbound expand
// failed with stale_pointer.)
func TestExpandWhileAnotherProcessRewrites(t *testing.T) {
	e, path, reads := rewrittenSession(t, "s-exp")

	x, err := e.Expand(ctx, engine.ExpandRequest{Session: path, Indices: []int{0}})
	require.NoError(t, err)
	if assert.Nil(t, x.Error) && assert.Len(t, x.Entries, 1) {
		assert.Contains(t, x.Entries[0].Text, "rewritten", "the session as it is now")
	}
	assert.Equal(t, 2, *reads, "read once more after the rewrite")

	*reads = 0 // the next read meets a rewrite again
	x, err = e.Expand(ctx, engine.ExpandRequest{Session: path, Indices: []int{0}, ExpectedSourceHash: x.SourceHash})
	require.NoError(t, err)
	if assert.NotNil(t, x.Error) {
		assert.Equal(t, coverage.StalePointer, x.Error.Code)
		assert.Empty(t, x.Entries)
	}
	assert.Equal(t, 1, *reads, "a bound request is not read again")
}

// A walk bound to no version meets the same rewrite before its first
// entry: it reads the session again, as an expansion does, whether it
// names a selection or walks the whole session; one bound to the old
// version gets stale_pointer.
func TestWalkWhileAnotherProcessRewrites(t *testing.T) {
	e, path, reads := rewrittenSession(t, "s-walk")

	for _, req := range []engine.ExpandRequest{{Session: path}, {Session: path, Indices: []int{0}}} {
		*reads = 0
		var texts []string
		res, err := e.Walk(ctx, req, func(en engine.ExpandedEntry) (bool, error) {
			texts = append(texts, en.Text)
			return true, nil
		})
		require.NoError(t, err)
		if assert.Nil(t, res.Error, "%+v", req) && assert.Len(t, texts, 1) {
			assert.Contains(t, texts[0], "rewritten", "the session as it is now")
		}
		assert.True(t, res.Complete)
		assert.Equal(t, 2, *reads, "read once more after the rewrite")
	}

	x, err := e.Expand(ctx, engine.ExpandRequest{Session: path, Indices: []int{0}})
	require.NoError(t, err)
	*reads = 0 // the next read meets a rewrite again
	res, err := e.Walk(ctx, engine.ExpandRequest{Session: path, ExpectedSourceHash: x.SourceHash},
		func(engine.ExpandedEntry) (bool, error) { return true, nil })
	require.NoError(t, err)
	if assert.NotNil(t, res.Error) {
		assert.Equal(t, coverage.StalePointer, res.Error.Code)
		assert.Zero(t, res.Visited)
	}
	assert.Equal(t, 1, *reads, "a bound walk is not read again")
}

// hostLive is a host's live session that it moves through its tree.
type hostLive struct {
	mu     sync.Mutex
	file   string
	leaf   string
	branch []string
}

func (h *hostLive) set(leaf string, branch ...string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.leaf, h.branch = leaf, branch
}
func (h *hostLive) SessionFile() string { return h.file }
func (h *hostLive) LeafID() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.leaf
}
func (h *hostLive) BranchIDs() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.branch)
}

// A watching host with a live session answers its quiet calls from the
// kept refresh, as one without does, while its branch stays; when the
// host moves to another leaf the next call sees that branch, and then
// answers quietly again.
func TestWatchedLiveHostAnswersQuietly(t *testing.T) {
	w := newWorld(t)
	path := w.write("s-live",
		msgLine("u1", "", ts, user("start here")),
		msgLine("a1", "u1", ts, assistant("abandoned idea zebrafish")),
		msgLine("a2", "u1", ts, assistant("chosen idea giraffe")),
	)
	w.write("s-other", msgLine("u1", "", ts, user("unrelated pelican work")))
	host := &hostLive{file: path}
	host.set("a1", "u1", "a1")
	e := w.engine(func(o *engine.Options) { o.Live, o.Watch = host, true })
	defer e.Close()
	// Built, verified past the racy window of the files just written
	// (settled), then nothing to do: kept.
	assert.Equal(t, 1, recall(t, e, engine.RecallRequest{Query: "zebrafish", Scope: "global"}).Total)
	time.Sleep(index.FineRacyWindow + 50*time.Millisecond)
	for range 2 {
		assert.Equal(t, 1, recall(t, e, engine.RecallRequest{Query: "zebrafish", Scope: "global"}).Total)
	}
	hits, walked := engine.QuietStats(e)
	for range 3 {
		assert.Equal(t, 1, recall(t, e, engine.RecallRequest{Query: "zebrafish", Scope: "global"}).Total)
		assert.Equal(t, 0, recall(t, e, engine.RecallRequest{Query: "giraffe", Scope: "global"}).Total)
	}
	hitsNow, walkedNow := engine.QuietStats(e)
	assert.Equal(t, hits+6, hitsNow, "quiet calls of a live host")
	assert.Equal(t, walked, walkedNow, "the same targets again, not compared one by one")
	host.set("a2", "u1", "a2") // the host navigated its tree
	assert.Equal(t, 0, recall(t, e, engine.RecallRequest{Query: "zebrafish", Scope: "global"}).Total)
	assert.Equal(t, 1, recall(t, e, engine.RecallRequest{Query: "giraffe", Scope: "global"}).Total)
	hits, _ = engine.QuietStats(e)
	assert.Equal(t, 1, recall(t, e, engine.RecallRequest{Query: "giraffe", Scope: "global"}).Total)
	hitsNow, _ = engine.QuietStats(e)
	assert.Equal(t, hits+1, hitsNow)
	host.set("a1", "u1", "a1")
	assert.Equal(t, 1, recall(t, e, engine.RecallRequest{Query: "zebrafish", Scope: "global"}).Total)
	// The targets are the listing's refs, not a copy; the live session is
	// named once, by its path as listed.
	shared, livePath, err := engine.ResolvedTargets(e, "global")
	require.NoError(t, err)
	assert.True(t, shared, "targets copied from the refs")
	canon, err := filepath.EvalSymlinks(path)
	require.NoError(t, err)
	gotCanon, err := filepath.EvalSymlinks(livePath)
	require.NoError(t, err)
	assert.Equal(t, canon, gotCanon)
}
