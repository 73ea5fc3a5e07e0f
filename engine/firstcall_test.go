package engine_test

import (
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/engine"
	"github.com/memidx/memidx/internal/corpus"
	"github.com/memidx/memidx/internal/index"
)

// A first call of an Engine (a one-shot command's only one) reads partial
// records and completes only what it answers with: its answers are those
// of an Engine that holds every full record, to the byte, for sessions
// the lexicon settled without opening their digests too.
func TestFirstCallAnswersAsAWarmEngine(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "corpus")
	m, err := corpus.Generate(corpus.Options{Sessions: 40, Seed: 7, Out: dir, Scale: 0.05})
	require.NoError(t, err)
	cfg := engine.DefaultConfig()
	cfg.IndexDir = filepath.Join(t.TempDir(), "index")
	cfg.HotSessions = 4
	env := engine.ProcessEnv()
	open := func() *engine.Engine {
		e, err := engine.Open(engine.Options{AgentDir: dir, Memory: &cfg, Env: &env})
		require.NoError(t, err)
		t.Cleanup(func() { e.Close() })
		return e
	}
	warm := open()
	time.Sleep(index.DefaultRacyWindow) // let generation's ctimes age out
	_, err = warm.Rebuild(ctx, engine.RebuildRequest{Scope: "global"})
	require.NoError(t, err)
	reqs := []engine.RecallRequest{
		{Query: "the error", Scope: "global", PageSize: 3},
		{Query: "the", Scope: "global", PageSize: 5, Offset: 7},
		{Query: "error timeout deploy", Scope: "global", PageSize: 50},
	}
	for _, fact := range m.Facts[:6] {
		reqs = append(reqs, engine.RecallRequest{Query: fact.Term, Scope: "global"})
	}
	sessions := 0
	for _, req := range reqs {
		want, err := warm.Recall(ctx, req)
		require.NoError(t, err)
		got, err := open().Recall(ctx, req)
		require.NoError(t, err)
		a, _ := json.Marshal(want)
		b, _ := json.Marshal(got)
		assert.JSONEq(t, string(a), string(b), "%s", mustJSON(req))
		for _, h := range got.Hits {
			if h.Session != nil {
				sessions++
				assert.NotEmpty(t, h.Session.SessionID, "%s", mustJSON(req))
			}
		}
	}
	assert.Positive(t, sessions, "cold session hits compared")
}
