package engine_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/engine"
)

// walkPages follows memory.walk pages through Call from args to the end,
// checking every page's JSON against the byte bound, and reassembles the
// entries' texts from their chunks.
func walkPages(t *testing.T, e *engine.Engine, args string, maxBytes int) (idx []int, texts []string, pages int, last *engine.WalkPage) {
	t.Helper()
	call := engine.FabricCall{Ref: "memory.walk", Args: json.RawMessage(args)}
	for pages = 1; pages < 10000; pages++ {
		res, err := e.Call(ctx, call)
		require.NoError(t, err)
		page := res.Walk
		require.NotNil(t, page)
		b, err := json.Marshal(page.Entries)
		require.NoError(t, err)
		require.LessOrEqual(t, len(b), maxBytes, "page %d's entries exceed the bound", pages)
		for i, en := range page.Entries {
			r := en.TextRange
			if r.Start > 0 {
				require.Zero(t, i, "only a page's first entry continues a chunk")
				require.Equal(t, idx[len(idx)-1], en.Index)
				texts[len(texts)-1] += en.Text
			} else {
				idx = append(idx, en.Index)
				texts = append(texts, en.Text)
			}
			require.Equal(t, r.End == r.Total, r.Complete)
			if !r.Complete {
				require.Equal(t, len(page.Entries)-1, i, "a partial entry ends its page")
				require.NotNil(t, page.Next)
			}
		}
		if page.Next == nil || page.Error != nil {
			return idx, texts, pages, page
		}
		require.Equal(t, "memory.walk", page.Next.Ref)
		call = *page.Next
	}
	t.Fatal("the walk does not end")
	return
}

// A walk page is bounded in bytes whatever its entries hold: an entry
// larger than a page arrives in chunks with its textRange, the page's next
// continuing inside it, and the chunks put together are the entry's text.
func TestWalkPageChunksLargeEntries(t *testing.T) {
	w := newWorld(t)
	big := strings.Repeat("megabyte <&> \"quoted\" line é 😀\n", 40000) // ~1.3 MB, escapes included
	var lines []string
	var want []string
	parent := ""
	for i := 0; i < 12; i++ {
		text := fmt.Sprintf("entry %d", i)
		if i%4 == 1 {
			text += " " + big
		}
		id := fmt.Sprintf("big-%d", i)
		lines = append(lines, msgLine(id, parent, "2026-09-01T10:00:00.000Z", user(text)))
		want = append(want, text)
		parent = id
	}
	w.write("big", lines...)
	e := w.engine(func(o *engine.Options) { o.WalkPageBytes = 256 << 10 })
	defer e.Close()
	for _, c := range []struct {
		name, args string
		minPages   int
		wantIdx    []int
	}{
		{"whole session", `{"session":"big"}`, 3 * 6, nil},
		{"by offset (indices)", `{"session":"big","indices":[9,1,5,0],"pageSize":2}`, 3 * 6, []int{0, 1, 5, 9}},
		{"a range", `{"session":"big","entryRange":{"first":1,"last":3},"pageSize":1}`, 6, []int{1, 2, 3}},
	} {
		t.Run(c.name, func(t *testing.T) {
			idx, texts, pages, last := walkPages(t, e, c.args, 256<<10)
			require.Nil(t, last.Error)
			assert.GreaterOrEqual(t, pages, c.minPages)
			wantIdx := c.wantIdx
			if wantIdx == nil {
				for i := range want {
					wantIdx = append(wantIdx, i)
				}
			}
			require.Equal(t, wantIdx, idx)
			for k, i := range idx {
				require.Equal(t, want[i], texts[k], "entry %d reassembled", i)
			}
		})
	}
	t.Run("a textOffset past the entry", func(t *testing.T) {
		res, err := e.Call(ctx, engine.FabricCall{Ref: "memory.walk", Args: json.RawMessage(`{"session":"big","indices":[0],"textOffset":99}`)})
		require.NoError(t, err)
		require.NotNil(t, res.Walk.Error)
		assert.Equal(t, "text_offset_out_of_bounds", res.Walk.Error.Code)
	})
}

// The walk's own arguments are checked: a bad page size or an unknown
// argument is invalid_request, a result.
func TestWalkPageArguments(t *testing.T) {
	w := newWorld(t)
	w.write("small", msgLine("s-0", "", "2026-09-01T10:00:00.000Z", user("one")))
	e := w.engine()
	defer e.Close()
	for _, args := range []string{`{"session":"small","pageSize":0.5}`, `{"session":"small","pageSize":1001}`, `{"session":"small","pageSize":0}`,
		`{"session":"small","offset":-1}`, `{"session":"small","bogus":1}`, `[1]`, `{"session":"small","maxChars":100}`} {
		res, err := e.Call(ctx, engine.FabricCall{Ref: "memory.walk", Args: json.RawMessage(args)})
		require.NoError(t, err)
		require.NotNil(t, res.Walk.Error, args)
		assert.Equal(t, "invalid_request", res.Walk.Error.Code, args)
	}
}

// A first page bound to no version reads a session rewritten between its
// two reads again; a page bound to the old version answers stale_pointer.
func TestWalkPageSessionChangesDuringFirstPage(t *testing.T) {
	w := newWorld(t)
	p := w.write("growing", msgLine("g-0", "", "2026-09-01T10:00:00.000Z", user("one")),
		msgLine("g-1", "g-0", "2026-09-01T10:01:00.000Z", user("two")))
	e := w.engine()
	defer e.Close()
	first, err := e.Expand(ctx, engine.ExpandRequest{Session: p})
	require.NoError(t, err)
	tries := 0
	defer engine.SetBeforeWalkPage(func() {
		if tries++; tries == 1 {
			w.appendTo(p, msgLine("g-2", "g-1", "2026-09-01T10:02:00.000Z", user("three")))
		}
	})()
	page, err := e.WalkPage(ctx, engine.WalkPageRequest{Selection: engine.ExpandRequest{Session: "growing"}})
	require.NoError(t, err)
	require.Nil(t, page.Error)
	assert.Len(t, page.Entries, 3, "the version read again, with the new turn")
	assert.Equal(t, 2, tries)
	assert.NotEqual(t, first.SourceHash, page.SourceHash)

	bound, err := e.WalkPage(ctx, engine.WalkPageRequest{Selection: engine.ExpandRequest{Session: "growing", ExpectedSourceHash: first.SourceHash}})
	require.NoError(t, err)
	require.NotNil(t, bound.Error)
	assert.Equal(t, "stale_pointer", bound.Error.Code)
}
