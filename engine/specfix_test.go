package engine_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/engine"
	"github.com/memidx/memidx/jsjson"
)

// assistantWithRead is an assistant message with prose and one read call.
func assistantWithRead(text, callID, args string) string {
	return fmt.Sprintf(`{"role":"assistant","content":[{"type":"text","text":%s},{"type":"toolCall","id":%q,"name":"read","arguments":%s}],"stopReason":"toolUse","usage":{"cost":{"total":0}}}`,
		jsString(text), callID, args)
}

// Issue 14: expand measured the envelope before it set next, and answered
// up to 30,126 units. Every response of the continuation stays in it.
func TestExpandFinalResponseWithinEnvelope(t *testing.T) {
	w := newWorld(t)
	var paths []string
	for i := 0; i < 20; i++ {
		paths = append(paths, fmt.Sprintf("/repo/%02d/%s.go", i, strings.Repeat("p", 1000)))
	}
	args, _ := json.Marshal(map[string]any{"paths": paths})
	prose := strings.Repeat("a \"quoted\" line\n", 1470) // ~23.5k characters, escapes included
	path := w.write("s-env",
		msgLine("u1", "", ts, user("read these")),
		msgLine("a1", "u1", ts, assistantWithRead(prose, "c1", string(args))),
	)
	e := w.engine()
	req := engine.ExpandRequest{Session: path, Indices: []int64{1}, MaxChars: i64(24000)}
	got := ""
	total := -1
	for pages := 0; ; pages++ {
		require.Less(t, pages, 50)
		x, err := e.Expand(ctx, req)
		require.NoError(t, err)
		require.Nil(t, x.Error)
		b, err := json.Marshal(x)
		require.NoError(t, err)
		require.LessOrEqual(t, jsjson.UTF16Len(string(b)), engine.MaxResponseChars, "page %d", pages)
		require.Len(t, x.Entries, 1)
		got += x.Entries[0].Text
		total = x.Entries[0].TextRange.Total
		if x.Next == nil {
			break
		}
		req = engine.ExpandRequest{}
		require.NoError(t, json.Unmarshal(x.Next.Args, &req))
	}
	require.Equal(t, total, jsjson.UTF16Len(got))
}
