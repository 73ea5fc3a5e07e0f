package benchmark

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var updatePages = flag.Bool("update-pages", false, "rewrite testdata/pages.golden.jsonl")

// pagesGolden holds the whole first page, as JSON, of every request of
// the bench's query set, recorded before memidx added fields of its own
// to the reference's wire format (queryCoverage, weakMatch, titles, an
// entry hit's project directory): literal, phrase and regex pages must
// keep every hit, snippet, follow and next token, and differ only by the
// added fields.
const pagesGolden = "testdata/pages.golden.jsonl"

// addedFields are memidx's extensions of a recall page and of its hits;
// an entry hit's cwd is one too (a session hit's is the reference's).
var addedFields = []string{"queryCoverage", "weakMatch", "title"}

// stripAdded removes addedFields from a page and its hits.
func stripAdded(t *testing.T, page []byte) map[string]any {
	var m map[string]any
	require.NoError(t, json.Unmarshal(page, &m))
	for _, f := range addedFields {
		delete(m, f)
	}
	hits, _ := m["hits"].([]any)
	for _, h := range hits {
		hit := h.(map[string]any)
		for _, f := range addedFields {
			delete(hit, f)
		}
		if hit["kind"] == "entry" {
			delete(hit, "cwd")
		}
	}
	return m
}

// TestBenchPagesAreUnchanged compares whole pages with pagesGolden.
func TestBenchPagesAreUnchanged(t *testing.T) {
	ctx := context.Background()
	e, m, src := goldenCorpus(t)
	var got bytes.Buffer
	for _, req := range benchRequests(m) {
		b, err := recallJSON(ctx, e, req)
		require.NoError(t, err)
		// The corpus's root differs from run to run.
		got.Write(bytes.ReplaceAll(b, []byte(src), []byte("$CORPUS")))
		got.WriteByte('\n')
	}
	if *updatePages {
		require.NoError(t, os.WriteFile(pagesGolden, got.Bytes(), 0o644))
		return
	}
	want, err := os.ReadFile(pagesGolden)
	require.NoError(t, err)
	wantLines := bytes.Split(bytes.TrimSpace(want), []byte("\n"))
	gotLines := bytes.Split(bytes.TrimSpace(got.Bytes()), []byte("\n"))
	require.Equal(t, len(wantLines), len(gotLines), "the query set changed")
	for i := range wantLines {
		assert.Equal(t, stripAdded(t, wantLines[i]), stripAdded(t, gotLines[i]), "request %d", i)
	}
}
