package engine_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"github.com/memidx/memidx/engine"
	"github.com/memidx/memidx/internal/coldvocab"
	"github.com/memidx/memidx/internal/corpus"
	"github.com/memidx/memidx/internal/index"
)

// lexiconWorld is a generated archive, most of it cold, with its index.
func lexiconWorld(t *testing.T) (*engine.Engine, *corpus.Manifest) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "corpus")
	m, err := corpus.Generate(corpus.Options{Sessions: 40, Seed: 7, Out: dir, Scale: 0.05})
	require.NoError(t, err)
	cfg := engine.DefaultConfig()
	cfg.IndexDir = filepath.Join(t.TempDir(), "index")
	cfg.HotSessions = 4
	env := engine.ProcessEnv()
	e, err := engine.Open(engine.Options{AgentDir: dir, Memory: &cfg, Env: &env})
	require.NoError(t, err)
	time.Sleep(index.DefaultRacyWindow) // let generation's ctimes age out
	_, err = e.Rebuild(ctx, engine.RebuildRequest{Scope: "global"})
	require.NoError(t, err)
	return e, m
}

// Every answer through the archive lexicon equals the answer of opening
// every cold digest: rare and common terms, any/all, phrases, browsing,
// structural filters with and without terms, time bounds, pages.
func TestLexiconAnswersEqualDigestProbing(t *testing.T) {
	e, m := lexiconWorld(t)
	reqs := []engine.RecallRequest{
		{Query: "the", Scope: "global"},
		{Query: "the error", Scope: "global", QueryMatch: "all"},
		{Query: "error timeout deploy", Scope: "global", PageSize: 50},
		{Query: "nosuchtermanywhere", Scope: "global"},
		{Query: "failed to", Scope: "global", QueryMode: "phrase"},
		{Scope: "global", Role: "user"},
		{Scope: "global", Tool: "bash", Outcome: "failed"},
		{Query: "error", Scope: "global", Tool: "bash"},
		{Query: "the", Scope: "global", Since: engine.EpochMs(time.UnixMilli(0)), Until: engine.EpochMs(time.UnixMilli(2e12))},
		{Scope: "global", PageSize: 50, Offset: 10},
		// Settled candidates become items only as far as a page needs.
		{Query: "the error", Scope: "global", PageSize: 3},
		{Query: "the error", Scope: "global", PageSize: 3, Offset: 7},
		{Query: "error timeout deploy", Scope: "global", PageSize: 2, Offset: 5},
		{Query: "the", Scope: "global", PageSize: 1, Offset: 20},
		{Scope: "global", PageSize: 2, Offset: 3},
	}
	for i, fact := range m.Facts {
		if i%5 == 0 {
			reqs = append(reqs, engine.RecallRequest{Query: fact.Term, Scope: "global"})
		}
	}
	for _, req := range reqs {
		before, decoded := engine.LexiconUses(), coldvocab.DecodeCount()
		_, err := e.Recall(ctx, req)
		require.NoError(t, err)
		// The lexicon answers for the terms of every digest it opens
		// (a filter's candidates): no vocabulary is decoded.
		assert.Equal(t, decoded, coldvocab.DecodeCount(), "vocabularies decoded for %s", mustJSON(req))
		sameWithoutLexicon(t, e, req)
		assert.Equal(t, before+2, engine.LexiconUses(), "the lexicon answered %s", mustJSON(req))
	}
	t.Logf("%d queries compared", len(reqs))
	// The lexicon counts in the index's size.
	ir, err := e.InspectIndex(ctx)
	require.NoError(t, err)
	assert.Positive(t, ir.Totals.LexiconBytes)
	assert.Less(t, ir.Totals.LexiconBytes, ir.Totals.CacheBytes-ir.Totals.HotCacheBytes-ir.Totals.ColdCacheBytes+1)
}

// sameWithoutLexicon asks req with the lexicon, then opening every cold
// digest, checks that the two answers are the same to the byte, and
// returns the first.
func sameWithoutLexicon(t *testing.T, e *engine.Engine, req engine.RecallRequest) *engine.RecallPage {
	t.Helper()
	with, err := e.Recall(ctx, req)
	require.NoError(t, err)
	restore := engine.SetNoLexicon(true)
	without, err := e.Recall(ctx, req)
	restore()
	require.NoError(t, err)
	a, _ := json.Marshal(with)
	b, _ := json.Marshal(without)
	assert.JSONEq(t, string(b), string(a), "%s", mustJSON(req))
	return with
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// As sessions are appended to, rewritten and deleted, refresh by refresh
// (a segment each, merged past the bound), the lexicon keeps answering
// exactly as the digests do: new words are found, removed words are not.
func TestLexiconFollowsChanges(t *testing.T) {
	e, m := lexiconWorld(t)
	dir := filepath.Dir(e.Dirs().SessionsRoot)
	compare := func(q string) *engine.RecallPage {
		t.Helper()
		return sameWithoutLexicon(t, e, engine.RecallRequest{Query: q, Scope: "global"})
	}
	oldest := slices.Clone(m.Sessions)
	slices.SortFunc(oldest, func(a, b corpus.SessionInfo) int { return a.Mtime.Compare(b.Mtime) })
	for round := range 40 {
		sess := oldest[round%30] // old, cold sessions
		path := filepath.Join(dir, sess.Path)
		word := fmt.Sprintf("zqround%02d", round)
		appendTurn(t, path, word)
		if got := compare(word); assert.Equal(t, 1, got.Total, word) {
			assert.NotNil(t, got.Hits[0].Session, "a cold session")
		}
		compare("the error")
	}
	// A deleted session's words are gone, from answers and from the file.
	sess := oldest[0]
	require.NoError(t, os.Remove(filepath.Join(dir, sess.Path)))
	assert.Zero(t, compare("zqround00").Total)
	assert.Zero(t, compare("zqround30").Total)
	assert.False(t, indexHas(t, e, "zqround30"), "the deleted session's word is still in index.db")
}

// The newest (hot) session appended to call after call: each refresh
// writes it, with a lexicon segment of its own, and every few a merge
// moves the lexicon's epoch. The call that wrote still answers through the
// lexicon (its own writes moved the epoch, nobody else's), hot shards that
// cannot match left unopened, and as opening everything does.
func TestLexiconAnswersRightAfterItsOwnWrites(t *testing.T) {
	e, m := lexiconWorld(t)
	dir := filepath.Dir(e.Dirs().SessionsRoot)
	newest := slices.MaxFunc(m.Sessions, func(a, b corpus.SessionInfo) int { return a.Mtime.Compare(b.Mtime) })
	path := filepath.Join(dir, newest.Path)
	for round := range 20 {
		word := fmt.Sprintf("zqhot%02d", round)
		appendTurn(t, path, word)
		before := engine.LexiconUses()
		got := sameWithoutLexicon(t, e, engine.RecallRequest{Query: word, Scope: "global"})
		require.Equal(t, before+1, engine.LexiconUses(), "round %d: the lexicon did not answer after the write", round)
		if assert.Equal(t, 1, got.Total, word) {
			assert.NotNil(t, got.Hits[0].Entry, "an entry of the hot session")
		}
		sameWithoutLexicon(t, e, engine.RecallRequest{Query: "the error " + word, Scope: "global", PageSize: 5})
	}
}

// A refresh that finds the lexicon's segment list damaged while it writes
// resets the lexicon in that write, dropping the cold records it indexed:
// the search that follows must not take the new lexicon for its records'
// (it would rule every old cold session out), and still finds an old
// session's fact.
func TestLexiconResetByTheCallsOwnWriteIsNotTrusted(t *testing.T) {
	e, m := lexiconWorld(t)
	dir := filepath.Dir(e.Dirs().SessionsRoot)
	byAge := slices.Clone(m.Sessions)
	slices.SortFunc(byAge, func(a, b corpus.SessionInfo) int { return a.Mtime.Compare(b.Mtime) })
	i := slices.IndexFunc(m.Facts, func(f corpus.Fact) bool {
		return f.Kind == "term" && slices.ContainsFunc(byAge[:3], func(s corpus.SessionInfo) bool { return s.Path == f.Path })
	})
	require.GreaterOrEqual(t, i, 0, "a fact in one of the oldest sessions")
	req := engine.RecallRequest{Query: m.Facts[i].Term, Scope: "global"}
	want, err := e.Recall(ctx, req)
	require.NoError(t, err)
	require.NotZero(t, want.Total)

	db, err := bolt.Open(filepath.Join(e.Config().IndexDir, "index.db"), 0o600, nil)
	require.NoError(t, err)
	require.NoError(t, db.Update(func(tx *bolt.Tx) error {
		lb := tx.Bucket([]byte("lexicon"))
		v := slices.Clone(lb.Get([]byte("active\x00segs")))
		v[len(v)-1] ^= 0x40
		return lb.Put([]byte("active\x00segs"), v)
	}))
	require.NoError(t, db.Close())
	appendTurn(t, filepath.Join(dir, byAge[len(byAge)-1].Path), "zqresetword") // the next refresh writes
	got, err := e.Recall(ctx, req)
	require.NoError(t, err)
	assert.Equal(t, want.Total, got.Total, "the old session's fact is still found")
}

// Recalls running at once on one Engine share what a quiet refresh kept
// (its states, their split, the cold records' doc index): each answers as
// it does alone. Under -race this also checks that nothing shared is
// written.
func TestConcurrentRecallsShareTheQuietRefresh(t *testing.T) {
	e, m := lexiconWorld(t)
	reqs := []engine.RecallRequest{
		{Query: m.Facts[0].Term, Scope: "global"},
		{Query: "the error", Scope: "global", PageSize: 3},
		{Query: "error timeout deploy", Scope: "global", QueryMatch: "all"},
		{Query: "failed to", Scope: "global", QueryMode: "phrase"},
		{Scope: "global", Role: "user", PageSize: 4},
	}
	want := make([]string, len(reqs))
	for i, req := range reqs {
		p, err := e.Recall(ctx, req)
		require.NoError(t, err)
		want[i] = mustJSON(p)
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for k := range 5 {
				i := (g + k) % len(reqs)
				p, err := e.Recall(ctx, reqs[i])
				if assert.NoError(t, err) {
					assert.JSONEq(t, want[i], mustJSON(p), "%s", mustJSON(reqs[i]))
				}
			}
		})
	}
	wg.Wait()
}

// appendTurn appends a user message holding word to the session at path,
// as a child of its last entry, keeping the file's mtime.
func appendTurn(t *testing.T, path, word string) {
	t.Helper()
	st, err := os.Stat(path)
	require.NoError(t, err)
	// The session keeps its mtime, so that it stays cold (the ctime tells
	// the refresh that it changed).
	defer func() { require.NoError(t, os.Chtimes(path, st.ModTime(), st.ModTime())) }()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	lines := bytes.Split(bytes.TrimRight(data, "\n"), []byte("\n"))
	var last struct {
		ID string `json:"id"`
	}
	require.NoError(t, json.Unmarshal(lines[len(lines)-1], &last))
	id := fmt.Sprintf("%x", sha256.Sum256([]byte(word)))[:8]
	line := fmt.Sprintf(`{"type":"message","id":%q,"parentId":%q,"timestamp":"2026-06-01T00:00:00.000Z","message":{"role":"user","content":"about %s"}}`, id, last.ID, word)
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString(line + "\n")
	require.NoError(t, err)
	require.NoError(t, f.Close())
}

// A damaged lexicon segment is never answered from: the recall opens the
// digests (same answer, index_reset), the lexicon is dropped with the cold
// records it indexed, and the next recall rebuilds them and uses it again.
func TestLexiconDamageIsRepaired(t *testing.T) {
	e, m := lexiconWorld(t)
	req := engine.RecallRequest{Query: m.Facts[len(m.Facts)-1].Term, Scope: "global"}
	want, err := e.Recall(ctx, req)
	require.NoError(t, err)
	require.NotZero(t, want.Total)

	db, err := bolt.Open(filepath.Join(e.Config().IndexDir, "index.db"), 0o600, nil)
	require.NoError(t, err)
	flipped := 0
	require.NoError(t, db.Update(func(tx *bolt.Tx) error {
		lb := tx.Bucket([]byte("lexicon"))
		require.NotNil(t, lb)
		var segs [][]byte
		require.NoError(t, lb.ForEach(func(k, _ []byte) error {
			if bytes.HasPrefix(k, []byte("active\x00s")) {
				segs = append(segs, slices.Clone(k))
			}
			return nil
		}))
		for _, k := range segs {
			sb := lb.Bucket(k)
			if sb == nil {
				continue // the segment list
			}
			bad := slices.Clone(sb.Get([]byte("v")))
			bad[6] ^= 0x40 // a checksum of the first block
			require.NoError(t, sb.Put([]byte("v"), bad))
			flipped++
		}
		return nil
	}))
	require.NoError(t, db.Close())
	require.NotZero(t, flipped)

	got, err := e.Recall(ctx, req)
	require.NoError(t, err)
	assert.Equal(t, hitKeys(want), hitKeys(got), "the digests answer")
	assert.Contains(t, got.Coverage.Reasons, "index_reset")

	before := engine.LexiconUses()
	again, err := e.Recall(ctx, req)
	require.NoError(t, err)
	assert.Equal(t, hitKeys(want), hitKeys(again))
	assert.Equal(t, want.Coverage, again.Coverage, "repaired")
	assert.Equal(t, before+1, engine.LexiconUses(), "the rebuilt lexicon answers")
}

func hitKeys(p *engine.RecallPage) []string {
	var out []string
	for _, h := range p.Hits {
		b, _ := json.Marshal(h)
		out = append(out, string(b))
	}
	return out
}

// lexiconWorldAt is lexiconWorld over a given config, sharing dir.
func openAt(t *testing.T, dir string, cfg engine.Config) *engine.Engine {
	t.Helper()
	env := engine.ProcessEnv()
	e, err := engine.Open(engine.Options{AgentDir: dir, Memory: &cfg, Env: &env})
	require.NoError(t, err)
	return e
}

// indexHas reports whether index.db's bytes hold word.
func indexHas(t *testing.T, e *engine.Engine, word string) bool {
	t.Helper()
	db, err := index.Plaintext(e.Config().IndexDir)
	require.NoError(t, err)
	return bytes.Contains(db, []byte(word))
}

// Another process replaces the index file between a recall's refresh and
// its search (a reset after damage, or rm -r of the index directory and a
// rebuild): the new file numbers its docs from 1 again, so the lexicon of
// another file is never trusted with this call's records.
func TestLexiconOfAnotherIndexFileIsNotTrusted(t *testing.T) {
	e, m := lexiconWorld(t)
	other := openAt(t, filepath.Dir(e.Dirs().SessionsRoot), e.Config())
	restore := engine.SetBeforeSearch(func() {
		require.NoError(t, os.RemoveAll(e.Config().IndexDir))
		_, err := other.Rebuild(ctx, engine.RebuildRequest{Scope: "global"})
		require.NoError(t, err)
	})
	defer restore()
	n := 0
	for _, f := range m.Facts {
		if f.Kind != "term" || n == 8 {
			continue
		}
		n++
		p, err := e.Recall(ctx, engine.RecallRequest{Query: f.Term, Scope: "global"})
		require.NoError(t, err)
		assert.Positive(t, p.Total, "%s: the planted fact is found", f.Term)
	}
}

// What leaves the index leaves the lexicon's bytes too: a deleted
// session's words from the lexicon of both branch modes, after a rebuild
// of one; and what indexThinking no longer indexes, after the change.
func TestLexiconForgetsWhatTheIndexDrops(t *testing.T) {
	e, m := lexiconWorld(t)
	dir := filepath.Dir(e.Dirs().SessionsRoot)
	oldest := slices.Clone(m.Sessions)
	slices.SortFunc(oldest, func(a, b corpus.SessionInfo) int { return a.Mtime.Compare(b.Mtime) })
	path := filepath.Join(dir, oldest[0].Path)
	appendTurn(t, path, "zqbothmodes")
	for _, mode := range []string{"active", "all"} {
		p, err := e.Recall(ctx, engine.RecallRequest{Query: "zqbothmodes", Scope: "global", Branches: engine.Branches(mode)})
		require.NoError(t, err)
		require.Equal(t, 1, p.Total, mode)
	}
	require.NoError(t, os.Remove(path))
	_, err := e.Rebuild(ctx, engine.RebuildRequest{Scope: "global"})
	require.NoError(t, err)
	assert.False(t, indexHas(t, e, "zqbothmodes"), "the deleted session's word is still in index.db")

	var thinking string
	for _, f := range m.Facts {
		if f.Kind == "thinking-term" {
			thinking = f.Term
			break
		}
	}
	require.NotEmpty(t, thinking)
	cfg := e.Config()
	cfg.IndexThinking = true
	_, err = openAt(t, dir, cfg).Rebuild(ctx, engine.RebuildRequest{Scope: "global"})
	require.NoError(t, err)
	require.True(t, indexHas(t, e, thinking))
	cfg.IndexThinking = false
	_, err = openAt(t, dir, cfg).Rebuild(ctx, engine.RebuildRequest{Scope: "global"})
	require.NoError(t, err)
	assert.False(t, indexHas(t, e, thinking), "a thinking term is still in index.db after indexThinking went off")
}

// A segment key that holds a plain value (a damaged file) is dropped like
// any damaged segment; later writes keep working.
func TestLexiconPlainValueSegment(t *testing.T) {
	e, m := lexiconWorld(t)
	db, err := bolt.Open(filepath.Join(e.Config().IndexDir, "index.db"), 0o600, nil)
	require.NoError(t, err)
	require.NoError(t, db.Update(func(tx *bolt.Tx) error {
		return tx.Bucket([]byte("lexicon")).Put([]byte("active\x00s\x00\x00\x00\x00\x00\x00\x00\x01"), []byte("not a segment"))
	}))
	require.NoError(t, db.Close())
	var term string
	for _, f := range m.Facts {
		if f.Kind == "term" {
			term = f.Term
			break
		}
	}
	// A removed session makes the next write rewrite every segment.
	oldest := slices.Clone(m.Sessions)
	slices.SortFunc(oldest, func(a, b corpus.SessionInfo) int { return a.Mtime.Compare(b.Mtime) })
	require.NoError(t, os.Remove(filepath.Join(filepath.Dir(e.Dirs().SessionsRoot), oldest[0].Path)))
	req := engine.RecallRequest{Query: term, Scope: "global"}
	for i := range 3 {
		p, err := e.Recall(ctx, req)
		require.NoError(t, err)
		assert.Positive(t, p.Total)
		assert.NotContains(t, p.Coverage.Reasons, "index_unwritable", "call %d", i)
		if i > 0 {
			assert.NotContains(t, p.Coverage.Reasons, "index_reset", "call %d: repaired", i)
		}
	}
}

// A segment whose bucket name was damaged (so that it no longer looks like
// one) is missed by a scan, and the sessions only it indexes would be too;
// the sealed list of segments names it, so its absence is damage: the
// answer comes from the digests and the lexicon is rebuilt.
func TestLexiconHiddenSegmentIsDamage(t *testing.T) {
	e, m := lexiconWorld(t)
	var terms []string
	for _, f := range m.Facts {
		if f.Kind == "term" {
			terms = append(terms, f.Term)
		}
	}
	want := map[string]int{}
	for _, term := range terms {
		p, err := e.Recall(ctx, engine.RecallRequest{Query: term, Scope: "global"})
		require.NoError(t, err)
		want[term] = p.Total
	}
	db, err := bolt.Open(filepath.Join(e.Config().IndexDir, "index.db"), 0o600, nil)
	require.NoError(t, err)
	require.NoError(t, db.Update(func(tx *bolt.Tx) error {
		lb := tx.Bucket([]byte("lexicon"))
		c := lb.Cursor()
		for k, v := c.Seek([]byte("active\x00s")); k != nil; k, v = c.Next() {
			if v == nil && bytes.HasPrefix(k, []byte("active\x00s")) {
				// Rename it, as a flipped byte of its key would.
				seg := slices.Clone(lb.Bucket(k).Get([]byte("v")))
				name := slices.Clone(k)
				require.NoError(t, lb.DeleteBucket(name))
				name[len("active")] = 1
				b, err := lb.CreateBucket(name)
				require.NoError(t, err)
				return b.Put([]byte("v"), seg)
			}
		}
		t.Fatal("no segment")
		return nil
	}))
	require.NoError(t, db.Close())
	for i, term := range terms {
		p, err := e.Recall(ctx, engine.RecallRequest{Query: term, Scope: "global"})
		require.NoError(t, err)
		assert.Equal(t, want[term], p.Total, term)
		if i == 0 {
			assert.Contains(t, p.Coverage.Reasons, "index_reset")
		}
	}
}
