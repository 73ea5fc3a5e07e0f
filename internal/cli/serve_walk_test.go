package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/engine"
)

// walkAll follows memory.walk pages from params to the end and returns the
// indices and texts of the entries, and the number of pages.
func walkAll(t *testing.T, s func() *server, params map[string]any) (idx []int, texts []string, pages int, last engine.WalkPage) {
	t.Helper()
	call := req(1, "memory.walk", params)
	for pages = 1; pages < 1000; pages++ {
		ms := roundTripMessages(t, s(), call)
		require.Len(t, ms, 1)
		require.Nil(t, ms[0].Error, "%s", ms[0].raw)
		var page engine.WalkPage
		require.NoError(t, json.Unmarshal(ms[0].Result, &page))
		for _, e := range page.Entries {
			require.True(t, e.TextRange.Complete)
			idx = append(idx, e.Index)
			texts = append(texts, e.Text)
		}
		if page.Next == nil || page.Error != nil {
			return idx, texts, pages, page
		}
		require.Equal(t, "memory.walk", page.Next.Ref)
		var p map[string]any
		require.NoError(t, json.Unmarshal(page.Next.Args, &p))
		call = req(1, page.Next.Ref, p)
	}
	t.Fatal("walk does not end")
	return
}

func TestServeWalk(t *testing.T) {
	w := newServeWorld(t)
	var texts []string
	for i := 0; i < 25; i++ {
		texts = append(texts, fmt.Sprintf("entry %d %s", i, strings.Repeat("x", i*1000)))
	}
	path := w.write("walked", texts...)
	e := w.engine(nil)
	for _, tc := range []struct {
		name   string
		params map[string]any
		pages  int
	}{
		{"whole session", map[string]any{"session": "walked", "pageSize": 10}, 3},
		{"whole session, one page", map[string]any{"session": path}, 1},
		{"whole session, pages of 7", map[string]any{"session": "walked", "pageSize": 7}, 4},
		{"a range", map[string]any{"session": "walked", "entryRange": map[string]any{"first": 3, "last": 17}, "pageSize": 4}, 4},
		{"indices", map[string]any{"session": "walked", "indices": []int{20, 2, 9, 14}, "pageSize": 3}, 2},
		{"entry ids with context", map[string]any{"session": "walked", "entryIds": []string{"walked-12"}, "before": 3, "after": 4, "pageSize": 2}, 4},
		{"page size exactly the selection", map[string]any{"session": "walked", "indices": []int{1, 2}, "pageSize": 2}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// What the CLI's walk gives for the same selection.
			var sel map[string]any = map[string]any{}
			for k, v := range tc.params {
				if k != "pageSize" {
					sel[k] = v
				}
			}
			b, _ := json.Marshal(sel)
			ereq, eo := engine.DecodeExpand(b)
			require.Nil(t, eo)
			var wantIdx []int
			var wantTexts []string
			_, err := e.Walk(context.Background(), ereq, func(en engine.ExpandedEntry) (bool, error) {
				wantIdx = append(wantIdx, en.Index)
				wantTexts = append(wantTexts, en.Text)
				return true, nil
			})
			require.NoError(t, err)
			require.NotEmpty(t, wantIdx)

			idx, got, pages, _ := walkAll(t, w.server, tc.params)
			assert.Equal(t, wantIdx, idx)
			assert.Equal(t, wantTexts, got)
			assert.Equal(t, tc.pages, pages)
		})
	}
	t.Run("an empty session", func(t *testing.T) {
		w.write("empty")
		idx, _, pages, last := walkAll(t, w.server, map[string]any{"session": "empty"})
		assert.Empty(t, idx)
		assert.Equal(t, 1, pages)
		assert.Nil(t, last.Error)
	})
	t.Run("a session that changes between pages", func(t *testing.T) {
		p := w.write("changing", "one", "two", "three", "four")
		ms := roundTripMessages(t, w.server(), req(1, "memory.walk", map[string]any{"session": "changing", "pageSize": 2}))
		var page engine.WalkPage
		require.NoError(t, json.Unmarshal(ms[0].Result, &page))
		require.Len(t, page.Entries, 2)
		require.NotNil(t, page.Next)
		f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
		require.NoError(t, err)
		_, err = f.WriteString(`{"type":"message","id":"changing-4","parentId":"changing-3","timestamp":"2026-09-01T10:02:00.000Z","message":{"role":"user","content":"five"}}` + "\n")
		require.NoError(t, err)
		require.NoError(t, f.Close())
		ms = roundTripMessages(t, w.server(), `{"jsonrpc":"2.0","id":2,"method":"memory.walk","params":`+string(page.Next.Args)+`}`)
		require.Nil(t, ms[0].Error, "a stale pointer is a result")
		var next engine.WalkPage
		require.NoError(t, json.Unmarshal(ms[0].Result, &next))
		require.NotNil(t, next.Error, "%s", ms[0].raw)
		assert.Equal(t, "stale_pointer", next.Error.Code)
		assert.Empty(t, next.Entries)
		assert.Nil(t, next.Next)
	})
}

func TestServeRebuild(t *testing.T) {
	w := newServeWorld(t)
	for i := 0; i < 5; i++ {
		w.write(fmt.Sprint("s", i), "rebuild me", "done")
	}
	for _, tc := range []struct {
		name    string
		params  any
		id      any
		indexed int
		notes   bool
	}{
		{"global", nil, 1, 5, true},
		{"project, all branches", map[string]any{"scope": "project", "branches": "all"}, "p", 5, true},
		{"as a notification", nil, nil, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ms := roundTripMessages(t, w.server(), req(tc.id, "memory.rebuild", tc.params))
			if tc.id == nil {
				assert.Empty(t, ms, "a notification gets neither progress nor an answer")
				return
			}
			require.NotEmpty(t, ms)
			ans := ms[len(ms)-1]
			require.Nil(t, ans.Error, "%s", ans.raw)
			var rep engine.RebuildReport
			require.NoError(t, json.Unmarshal(ans.Result, &rep))
			assert.Equal(t, tc.indexed, rep.Indexed)
			assert.Equal(t, 5, rep.Seen)
			require.Greater(t, len(ms), 1, "progress before the answer")
			var p progressParams
			for _, m := range ms[:len(ms)-1] {
				require.Equal(t, "memory.progress", m.Method)
				require.NoError(t, json.Unmarshal(m.Params, &p))
				assert.Equal(t, ans.id(), string(p.ID))
				assert.Equal(t, "rebuilding", p.Message)
			}
			require.NotNil(t, p.Done)
			assert.Equal(t, *p.Total, *p.Done, "the last progress is the end")
			assert.Equal(t, 5, *p.Total)
		})
	}
	t.Run("the CLI's summary", func(t *testing.T) {
		// The answer has the fields `memidx rebuild --json` prints.
		var out, errOut strings.Builder
		code := run(context.Background(), []string{"--agent-dir", w.agent, "--index-dir", t.TempDir(), "--cwd", w.project,
			"rebuild", "--json"}, strings.NewReader(""), &out, &errOut)
		require.Equal(t, 0, code, out.String()+errOut.String())
		ms := roundTripMessages(t, w.server(), req(1, "memory.rebuild", nil))
		var cli, rpc map[string]any
		require.NoError(t, json.Unmarshal([]byte(out.String()), &cli))
		require.NoError(t, json.Unmarshal(ms[len(ms)-1].Result, &rpc))
		keys := func(m map[string]any) []string {
			var k []string
			for key := range m {
				k = append(k, key)
			}
			return k
		}
		assert.ElementsMatch(t, keys(cli), keys(rpc))
		assert.Equal(t, cli["seen"], rpc["seen"])
	})
}
