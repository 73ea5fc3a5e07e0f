package engine_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/engine"
)

// churn is a world whose sessions change between recalls: each session
// holds unique words, so that a recall of one tells whether the change
// that wrote it was seen.
type churn struct {
	*world
	rng    *rand.Rand
	words  map[string][]string // path -> its words, last one last
	ids    map[string]string   // path -> session id
	last   map[string]string   // path -> last entry id
	seq    int
	watchE *engine.Engine
	plainE *engine.Engine
}

func newChurn(t *testing.T, sessions int) *churn {
	if runtime.GOOS != "linux" {
		t.Skip("watch mode lists everything here; the plain tests cover it")
	}
	c := &churn{world: newWorld(t), rng: rand.New(rand.NewPCG(7, uint64(time.Now().UnixNano()))),
		words: map[string][]string{}, ids: map[string]string{}, last: map[string]string{}}
	for i := 0; i < sessions; i++ {
		bucket := c.bucket
		if i%3 == 1 {
			bucket = filepath.Join(c.agent, "sessions", fmt.Sprintf("-other%d", i%4))
		}
		c.create(bucket)
	}
	c.watchE = c.engine(func(o *engine.Options) { o.Watch = true })
	c.plainE = c.engine()
	t.Cleanup(func() { c.watchE.Close() })
	return c
}

// word returns a new unique word; every word has the same length.
func (c *churn) word() string {
	c.seq++
	return fmt.Sprintf("zq%07dx", c.seq)
}

func (c *churn) create(bucket string) string {
	require.NoError(c.t, os.MkdirAll(bucket, 0o755))
	c.seq++
	id := fmt.Sprintf("s%d", c.seq)
	p := filepath.Join(bucket, fmt.Sprintf("2026-09-01T10-00-%05d-000Z_%s.jsonl", c.seq, id))
	w := c.word()
	body := fmt.Sprintf(`{"type":"session","version":3,"id":%q,"timestamp":"2026-09-01T10:00:00.000Z","cwd":%q}`, id, c.project) + "\n" +
		msgLine("e0", "", "2026-09-01T10:00:01.000Z", user("first "+w)) + "\n"
	require.NoError(c.t, os.WriteFile(p, []byte(body), 0o600))
	c.words[p], c.ids[p], c.last[p] = []string{w}, id, "e0"
	return p
}

func (c *churn) pick() string {
	paths := make([]string, 0, len(c.words))
	for p := range c.words {
		paths = append(paths, p)
	}
	// Map order is random but not seeded; sort for the seeded rng.
	slices.Sort(paths)
	return paths[c.rng.IntN(len(paths))]
}

func (c *churn) appendWord(p string) string {
	w := c.word()
	id := fmt.Sprintf("e%d", c.seq)
	c.appendTo(p, msgLine(id, c.last[p], "2026-09-01T10:00:02.000Z", user("turn "+w)))
	c.words[p] = append(c.words[p], w)
	c.last[p] = id
	return w
}

// rewrite replaces p's last word in place: same size, mtime restored.
func (c *churn) rewrite(p string) (old, nw string) {
	st, err := os.Stat(p)
	require.NoError(c.t, err)
	b, err := os.ReadFile(p)
	require.NoError(c.t, err)
	ws := c.words[p]
	old, nw = ws[len(ws)-1], c.word()
	i := strings.LastIndex(string(b), old)
	require.GreaterOrEqual(c.t, i, 0)
	copy(b[i:], nw)
	require.NoError(c.t, os.WriteFile(p, b, 0o600))
	require.NoError(c.t, os.Chtimes(p, st.ModTime(), st.ModTime()))
	ws[len(ws)-1] = nw
	return old, nw
}

// recall asks both engines for word in scope and requires equal answers;
// it returns the watching engine's page.
func (c *churn) recall(word, scope string) *engine.RecallPage {
	c.t.Helper()
	req := engine.RecallRequest{Query: word, Scope: engine.Scope(scope)}
	got := recall(c.t, c.watchE, req)
	want := recall(c.t, c.plainE, req)
	got.Notices, want.Notices = nil, nil
	gj, err := json.Marshal(got)
	require.NoError(c.t, err)
	wj, err := json.Marshal(want)
	require.NoError(c.t, err)
	require.JSONEq(c.t, string(wj), string(gj), "watching and plain engines differ for %q in %s", word, scope)
	return got
}

// found requires word to be recalled from the session of path p.
func (c *churn) found(what, word, p string) {
	c.t.Helper()
	page := c.recall(word, "global")
	require.NotEmpty(c.t, page.Hits, "%s: %q not recalled (miss)", what, word)
	h := page.Hits[0]
	if h.Entry == nil {
		// Past hotSessions sessions (new projects pile up), an older
		// session is cold: a session hit.
		require.NotNil(c.t, h.Session, what)
		require.Equal(c.t, c.ids[p], h.Session.SessionID, what)
		return
	}
	require.Equal(c.t, c.ids[p], h.Entry.SessionID, what)
	require.Contains(c.t, h.Entry.Snippet, word, what)
}

func (c *churn) gone(what, word string) {
	c.t.Helper()
	page := c.recall(word, "global")
	require.Empty(c.t, page.Hits, "%s: %q still recalled", what, word)
}

func rounds(n int) int {
	if testing.Short() || raceEnabled {
		return max(n/10, 10)
	}
	return n
}

// TestWatchAppendRecall: a turn appended just before a recall is always
// recalled by a watching Engine, as by a plain one.
func TestWatchAppendRecall(t *testing.T) {
	c := newChurn(t, 24)
	c.recall("first", "global")
	n := rounds(1000)
	for i := 0; i < n; i++ {
		p := c.pick()
		w := c.appendWord(p)
		c.found(fmt.Sprintf("round %d: append to %s", i, p), w, p)
	}
	st := engine.WatchStats(c.watchE)
	t.Logf("%d rounds: %+v", n, st)
	require.Greater(t, st.Reused, n, "the listing cache was not used")
}

// TestWatchChurn mixes rewrites (same size, mtime restored), deletions,
// new project directories, renames of files and of bucket directories,
// and appends.
func TestWatchChurn(t *testing.T) {
	c := newChurn(t, 24)
	c.recall("first", "global")
	n := rounds(1000)
	kinds := map[string]int{}
	for i := 0; i < n; i++ {
		p := c.pick()
		switch k := c.rng.IntN(6); k {
		case 0: // rewrite
			old, nw := c.rewrite(p)
			what := fmt.Sprintf("round %d: rewrite %s", i, p)
			c.found(what, nw, p)
			c.gone(what, old)
			kinds["rewrite"]++
		case 1: // delete
			if len(c.words) < 12 {
				continue
			}
			require.NoError(t, os.Remove(p))
			ws := c.words[p]
			delete(c.words, p)
			c.gone(fmt.Sprintf("round %d: delete %s", i, p), ws[len(ws)-1])
			kinds["delete"]++
		case 2: // new project directory
			np := c.create(filepath.Join(c.agent, "sessions", fmt.Sprintf("-new%d", i)))
			c.found(fmt.Sprintf("round %d: new project %s", i, np), c.words[np][0], np)
			kinds["new project"]++
		case 3: // rename a session file
			to := filepath.Join(filepath.Dir(p), fmt.Sprintf("2026-09-02T10-00-%05d-000Z_%s.jsonl", i, c.ids[p]))
			require.NoError(t, os.Rename(p, to))
			c.move(p, to)
			ws := c.words[to]
			c.found(fmt.Sprintf("round %d: rename %s", i, p), ws[len(ws)-1], to)
			kinds["rename"]++
		case 4: // rename a bucket directory (never the project's)
			dir := filepath.Dir(p)
			if dir == c.bucket {
				continue
			}
			to := filepath.Join(c.agent, "sessions", fmt.Sprintf("-moved%d", i))
			require.NoError(t, os.Rename(dir, to))
			for q := range c.words {
				if filepath.Dir(q) == dir {
					c.move(q, filepath.Join(to, filepath.Base(q)))
				}
			}
			q := filepath.Join(to, filepath.Base(p))
			ws := c.words[q]
			c.found(fmt.Sprintf("round %d: rename bucket %s", i, dir), ws[len(ws)-1], q)
			kinds["rename bucket"]++
		default:
			w := c.appendWord(p)
			c.found(fmt.Sprintf("round %d: append to %s", i, p), w, p)
			kinds["append"]++
		}
		if i%10 == 0 {
			c.recall("first", "project")
		}
	}
	t.Logf("%v; %+v", kinds, engine.WatchStats(c.watchE))
}

func (c *churn) move(from, to string) {
	c.words[to], c.ids[to], c.last[to] = c.words[from], c.ids[from], c.last[from]
	delete(c.words, from)
	delete(c.ids, from)
	delete(c.last, from)
}

// TestWatchEngineClose: Close releases the watches; the closed Engine
// answers ErrClosed, and one opened again sees what changed meanwhile.
func TestWatchEngineClose(t *testing.T) {
	c := newChurn(t, 4)
	c.recall("first", "global")
	require.NoError(t, c.watchE.Close())
	_, err := c.watchE.Recall(ctx, engine.RecallRequest{Query: "first", Scope: engine.ScopeGlobal})
	require.ErrorIs(t, err, engine.ErrClosed)
	p := c.pick()
	w := c.appendWord(p)
	c.watchE = c.engine(func(o *engine.Options) { o.Watch = true })
	c.found("after close", w, p)
	require.NoError(t, c.watchE.Close())
}

// An unwatched listing is new each call: an engine that does not watch
// keeps none of its refs (64 bytes a session, 6.7 MB at 100k, held to the
// call's end and past it), while a watching one keeps them to give the
// same targets for the same refs again.
func TestOnlyAWatchingEngineKeepsTheListing(t *testing.T) {
	c := newChurn(t, 6)
	c.recall(c.word(), "global")
	require.Zero(t, engine.KeptRefs(c.plainE))
	require.Equal(t, 6, engine.KeptRefs(c.watchE))
}
