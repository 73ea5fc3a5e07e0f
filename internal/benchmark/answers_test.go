package benchmark

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/engine"
	"github.com/memidx/memidx/internal/catalog"
	"github.com/memidx/memidx/internal/corpus"
	"github.com/memidx/memidx/internal/index"
)

var updateAnswers = flag.Bool("update-answers", false, "rewrite testdata/answers.golden.jsonl")

// answersGolden holds the bench query set's answers as memidx gave them
// before the archive-scale work (the archive lexicon, hot top-k, the
// one-pass listing), recorded with commit 8ae7c98 on the corpus below. A
// change to how recall finds its candidates must not change a hit or its
// order.
const answersGolden = "testdata/answers.golden.jsonl"

// answerLine is one request of the bench's query set and what it answered:
// the total, and every hit of the page by kind, session, entry and score.
type answerLine struct {
	Request string   `json:"request"`
	Total   float64  `json:"total"`
	Hits    []string `json:"hits"`
}

// benchRequests is the bench's query set (see runner.queries) over the
// corpus of m, as wire requests.
func benchRequests(m *corpus.Manifest) []string {
	var out []string
	add := func(v map[string]any) {
		v["scope"] = "global"
		b, _ := json.Marshal(v)
		out = append(out, string(b))
	}
	counts := map[string]int{}
	for _, f := range m.Facts {
		if counts[f.Kind] >= 100 {
			continue
		}
		counts[f.Kind]++
		switch f.Kind {
		case "term", "subagent-term", "deep-term", "thinking-term":
			add(map[string]any{"query": f.Term})
		case "abandoned-term":
			add(map[string]any{"query": f.Term})
			add(map[string]any{"query": f.Term, "branches": "all"})
		case "operation":
			add(map[string]any{"query": f.Term, "ref": f.Ref, "outcome": f.Outcome})
		}
	}
	add(map[string]any{"ref": "omp.no_such_action"})
	add(map[string]any{"query": catalog.MemoryProvider().Actions[0].Description, "queryMode": "phrase"})
	// Broad pages, small enough that the response envelope (which
	// depends on the length of the corpus's paths) never cuts them.
	add(map[string]any{"query": "error test file", "pageSize": 20, "snippetChars": 80})
	add(map[string]any{"query": "error test file", "queryMatch": "all", "pageSize": 20, "snippetChars": 80})
	add(map[string]any{"role": "toolResult", "pageSize": 20, "snippetChars": 80})
	add(map[string]any{"query": "error", "role": "toolResult", "pageSize": 20, "snippetChars": 80})
	return out
}

// answer asks req and keeps what identifies each hit.
func answer(ctx context.Context, e *engine.Engine, req string) (answerLine, error) {
	b, err := recallJSON(ctx, e, req)
	if err != nil {
		return answerLine{}, err
	}
	var wire struct {
		Total float64 `json:"total"`
		Hits  []struct {
			Kind      string   `json:"kind"`
			SessionID string   `json:"sessionId"`
			Index     *float64 `json:"index"`
			EntryID   *string  `json:"entryId"`
			Score     float64  `json:"score"`
		} `json:"hits"`
	}
	if err := json.Unmarshal(b, &wire); err != nil {
		return answerLine{}, err
	}
	line := answerLine{Request: req, Total: wire.Total, Hits: []string{}}
	for _, h := range wire.Hits {
		id := ""
		if h.EntryID != nil {
			id = *h.EntryID
		}
		idx := -1.0
		if h.Index != nil {
			idx = *h.Index
		}
		// Scores to 9 significant digits: a sum in another order may
		// differ in the last bits, a different ranking does not.
		line.Hits = append(line.Hits, fmt.Sprintf("%s %s %g %s %.9g", h.Kind, h.SessionID, idx, id, roundSig(h.Score, 9)))
	}
	return line, nil
}

// recallJSON asks the wire request req and returns the page's JSON.
func recallJSON(ctx context.Context, e *engine.Engine, req string) ([]byte, error) {
	r, eo := engine.DecodeRecall([]byte(req))
	if eo != nil {
		return nil, fmt.Errorf("%s: %s", req, eo.Message)
	}
	page, err := e.Recall(ctx, r)
	if err != nil {
		return nil, err
	}
	return json.Marshal(page)
}

// goldenCorpus generates the corpus the answer goldens were recorded on
// (or takes MEMIDX_ANSWERS_CORPUS, the corpus this tree generates, when
// recording with an older tree) and opens an engine over it.
func goldenCorpus(t *testing.T) (e *engine.Engine, m *corpus.Manifest, src string) {
	if testing.Short() {
		t.Skip("generates a corpus of 120 sessions")
	}
	dir := t.TempDir()
	src = filepath.Join(dir, "corpus")
	m, err := corpus.Generate(corpus.Options{Sessions: 120, Seed: 7, Out: src, Scale: 0.2})
	require.NoError(t, err)
	if given := os.Getenv("MEMIDX_ANSWERS_CORPUS"); given != "" {
		_, m, err = loadManifest(given)
		require.NoError(t, err)
		src = given
	}
	// Let the generation's ctimes age out of the racy window, as the
	// bench does.
	time.Sleep(index.DefaultRacyWindow)
	r := &runner{dir: src, idx: filepath.Join(dir, "index")}
	e, err = r.openEngine()
	require.NoError(t, err)
	return e, m, src
}

func roundSig(f float64, digits int) float64 {
	if f == 0 {
		return 0
	}
	p := math.Pow(10, float64(digits)-math.Ceil(math.Log10(math.Abs(f))))
	return math.Round(f*p) / p
}

// TestBenchAnswersAreUnchanged asks the bench's query set over a generated
// corpus (hot and cold sessions, subagents, abandoned branches, planted
// operations) and compares every hit and its order with the answers
// recorded before the archive-scale work.
func TestBenchAnswersAreUnchanged(t *testing.T) {
	ctx := context.Background()
	e, m, _ := goldenCorpus(t)

	var got bytes.Buffer
	enc := json.NewEncoder(&got)
	for _, req := range benchRequests(m) {
		line, err := answer(ctx, e, req)
		require.NoError(t, err)
		require.NoError(t, enc.Encode(line))
	}
	if *updateAnswers {
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		require.NoError(t, os.WriteFile(answersGolden, got.Bytes(), 0o644))
		return
	}
	want, err := os.ReadFile(answersGolden)
	require.NoError(t, err)
	wantLines := bytes.Split(bytes.TrimSpace(want), []byte("\n"))
	gotLines := bytes.Split(bytes.TrimSpace(got.Bytes()), []byte("\n"))
	require.Equal(t, len(wantLines), len(gotLines), "the query set changed")
	hits := 0
	for i := range wantLines {
		var w, g answerLine
		require.NoError(t, json.Unmarshal(wantLines[i], &w))
		require.NoError(t, json.Unmarshal(gotLines[i], &g))
		assert.Equal(t, w, g, "request %s", w.Request)
		hits += len(w.Hits)
	}
	assert.Positive(t, hits)
	t.Logf("%d requests, %d hits compared", len(wantLines), hits)
}
