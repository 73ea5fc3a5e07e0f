package engine_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/engine"
	"github.com/memidx/memidx/internal/coverage"
	"github.com/memidx/memidx/internal/normalize"
)

// heredoc is a bash command that writes a script whose line with the words
// "purple zebraquokka" starts about `at` scalars into the serialized
// arguments, past the 400-scalar display of the tool call.
func heredoc(at int) string {
	var b strings.Builder
	b.WriteString("cat <<'EOF' > deploy.sh\n")
	for i := 0; b.Len() < at; i++ {
		fmt.Fprintf(&b, "echo step %d\n", i)
	}
	b.WriteString("rotate the purple zebraquokka keys\n")
	for i := 0; i < 20; i++ {
		fmt.Fprintf(&b, "echo after %d\n", i)
	}
	b.WriteString("EOF\nbash deploy.sh")
	return b.String()
}

// bashArgs is the arguments JSON of a bash call, as JSON.stringify writes
// it back.
func bashArgs(command string) string { return `{"command":` + jsString(command) + `}` }

// toolArgsWorld has the same heredoc call in a cold and in a hot session.
func toolArgsWorld(t *testing.T, at int) (w *world, args string) {
	w = newWorld(t)
	w.cfg.HotSessions = 1
	args = bashArgs(heredoc(at))
	for _, id := range []string{"s-cold", "s-hot"} {
		w.write(id,
			msgLine("u1", "", ts, user("deploy it")),
			msgLine("a1", "u1", ts, toolCall("c1", "bash", args)),
			msgLine("r1", "a1", ts, toolResult("c1", "bash", "ok", false, 0)),
		)
	}
	return w, args
}

// A word past the display cut of a tool call's arguments is found in a hot
// session by literal, phrase and regex recall, and in a cold session as a
// session candidate; the hit still shows the reference's display form.
func TestToolArgsPastTheDisplayCutAreSearchable(t *testing.T) {
	w, args := toolArgsWorld(t, 1000)
	require.Greater(t, strings.Index(args, "zebraquokka"), 950)
	e := w.engine()

	for _, req := range []engine.RecallRequest{
		{Query: "zebraquokka"},
		{Query: "purple zebraquokka", QueryMode: "phrase"},
		{Query: `zebra\w+`, QueryMode: "regex"},
	} {
		req.Scope = "project"
		p := recall(t, e, req)
		require.Nil(t, p.Error)
		require.Len(t, p.Hits, 2, "%s: %v", req.Query, texts(p))
		hot, cold := hitsOf(p)
		require.NotNil(t, hot, req.Query)
		assert.Equal(t, "bash", *hot.Tool)
		assert.Contains(t, hot.Snippet, "Tool: bash(")
		assert.NotContains(t, hot.Snippet, "zebraquokka", "the snippet is the display form")
		require.NotNil(t, cold, req.Query)
		assert.Equal(t, "s-cold", cold.SessionID)
		if req.QueryMode == "phrase" {
			assert.Contains(t, p.Coverage.Reasons, coverage.ColdPhraseRequiresHydration)
		} else {
			assert.True(t, p.Coverage.Complete, "%s: %v", req.Query, p.Coverage.Reasons)
		}

		// Following the cold candidate finds the entry itself.
		r, err := e.Call(ctx, cold.Follow)
		require.NoError(t, err)
		rp := r.Recall
		require.Nil(t, rp.Error)
		require.Len(t, rp.Hits, 1, req.Query)
		assert.Equal(t, "bash", *rp.Hits[0].Entry.Tool)
	}
	// Adjacency is still checked across the whole arguments.
	assert.Equal(t, 0, recall(t, e, engine.RecallRequest{Query: "zebraquokka purple", QueryMode: "phrase", Scope: "session:s-hot"}).Total)
}

// hitsOf returns the entry hit and the session hit of a page.
func hitsOf(p *engine.RecallPage) (entry *engine.EntryHit, session *engine.SessionHit) {
	for _, h := range p.Hits {
		if h.Entry != nil {
			entry = h.Entry
		} else {
			session = h.Session
		}
	}
	return entry, session
}

// Expansion returns the whole arguments, and its textRange says complete
// only when they are all there; chunks reassemble them.
func TestToolArgsExpandWhole(t *testing.T) {
	w, args := toolArgsWorld(t, 1000)
	e := w.engine()
	p := recall(t, e, engine.RecallRequest{Query: "zebraquokka", Scope: "session:s-hot"})
	require.Len(t, p.Hits, 1)
	follow := p.Hits[0].Entry.Follow

	r, err := e.Call(ctx, follow)
	require.NoError(t, err)
	x := r.Expand
	require.Nil(t, x.Error)
	require.Len(t, x.Entries, 1)
	whole := "Tool: bash(" + args + ")"
	assert.Equal(t, whole, x.Entries[0].Text)
	assert.True(t, x.Entries[0].TextRange.Complete)
	assert.Nil(t, x.Next)

	var req engine.ExpandRequest
	require.NoError(t, json.Unmarshal(follow.Args, &req))
	req.MaxChars = 300
	var got strings.Builder
	for i := 0; ; i++ {
		require.Less(t, i, 20)
		x, err := e.Expand(ctx, req)
		require.NoError(t, err)
		require.Nil(t, x.Error)
		require.Len(t, x.Entries, 1)
		got.WriteString(x.Entries[0].Text)
		assert.Equal(t, got.Len() == len(whole), x.Entries[0].TextRange.Complete, "complete only with the last chunk")
		if x.Next == nil || x.Entries[0].TextRange.Complete {
			break
		}
		req = engine.ExpandRequest{}
		require.NoError(t, json.Unmarshal(x.Next.Args, &req))
	}
	assert.Equal(t, whole, got.String())
}

// Past the hot entry budget a word is not indexed, and the answer says so
// rather than claiming an authoritative absence.
func TestToolArgsPastTheEntryBudgetAreNotAuthoritative(t *testing.T) {
	w, args := toolArgsWorld(t, 2500)
	require.Greater(t, strings.Index(args, "zebraquokka"), index2000(w))
	p := recall(t, w.engine(), engine.RecallRequest{Query: "zebraquokka", Scope: "session:s-hot"})
	assert.Equal(t, 0, p.Total)
	assert.False(t, p.Coverage.Complete)
	assert.Contains(t, p.Coverage.Reasons, coverage.MaxEntryChars)
}

// index2000 is the hot entry budget of w, checked against the default the
// test relies on.
func index2000(w *world) int {
	if w.cfg.MaxEntryChars != 2000 {
		panic(fmt.Sprintf("maxEntryChars %d", w.cfg.MaxEntryChars))
	}
	return w.cfg.MaxEntryChars - len("Tool: bash(") - normalize.MaxArgsChars
}
