package cli

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/engine"
)

// TestServeWatchFreshness drives `memidx serve --stdio` in-process: a
// turn appended to a random session just before a recall is sent is
// recalled, with watching on (the default) and off.
func TestServeWatchFreshness(t *testing.T) {
	for _, args := range [][]string{{"--stdio"}, {"--stdio", "--no-watch"}} {
		t.Run(fmt.Sprint(args), func(t *testing.T) { serveWatchRounds(t, args) })
	}
}

func serveWatchRounds(t *testing.T, args []string) {
	w := newServeWorld(t)
	var paths []string
	for i := 0; i < 12; i++ {
		paths = append(paths, w.write(fmt.Sprintf("s%d", i), fmt.Sprintf("first zq%07dy", i)))
	}
	// A second bucket, so that global spans several directories.
	other := filepath.Join(w.agent, "sessions", "-other")
	require.NoError(t, os.MkdirAll(other, 0o755))
	for i, p := range paths[:4] {
		to := filepath.Join(other, filepath.Base(p))
		require.NoError(t, os.Rename(p, to))
		paths[i] = to
	}

	var opened engine.Options
	serveOpening = func(o engine.Options) { opened = o }
	defer func() { serveOpening = nil }()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	g := globals{agentDir: w.agent, indexDir: w.index, cwd: w.project}
	go func() {
		err := cmdServe(context.Background(), g, args, inR, outW, io.Discard)
		outW.Close()
		done <- err
	}()
	out := bufio.NewReader(outR)
	answer := func(id int) json.RawMessage {
		t.Helper()
		for {
			line, err := out.ReadBytes('\n')
			require.NoError(t, err, "serve ended")
			m := decodeMessage(t, line)
			if m.Method != "" {
				continue // memory.progress
			}
			require.Equal(t, fmt.Sprint(id), m.id())
			require.Nil(t, m.Error, m.raw)
			return m.Result
		}
	}
	recallWord := func(id int, word string) []string {
		_, err := io.WriteString(inW, req(id, "memory.recall", map[string]any{"query": word, "scope": "global", "pageSize": 50})+"\n")
		require.NoError(t, err)
		var page struct {
			Hits []struct {
				SessionID string `json:"sessionId"`
				Snippet   string `json:"snippet"`
			} `json:"hits"`
		}
		require.NoError(t, json.Unmarshal(answer(id), &page))
		var ids []string
		for _, h := range page.Hits {
			ids = append(ids, h.SessionID)
		}
		return ids
	}

	require.Len(t, recallWord(0, "first"), 12)
	n := 1000
	if testing.Short() {
		n = 100
	}
	rng := rand.New(rand.NewPCG(3, uint64(time.Now().UnixNano())))
	for i := 1; i <= n; i++ {
		k := rng.IntN(len(paths))
		word := fmt.Sprintf("zq%07dx", i)
		f, err := os.OpenFile(paths[k], os.O_APPEND|os.O_WRONLY, 0)
		require.NoError(t, err)
		_, err = fmt.Fprintf(f, `{"type":"message","id":"a%d","parentId":null,"timestamp":"2026-09-01T10:00:05.000Z","message":{"role":"user","content":"turn %s"}}`+"\n", i, word)
		require.NoError(t, err)
		require.NoError(t, f.Close())
		require.Equal(t, []string{fmt.Sprintf("s%d", k)}, recallWord(i, word), "round %d: miss", i)
	}
	require.NoError(t, inW.Close())
	require.NoError(t, <-done)
	// That a watching engine lists again only what changed is engine's
	// test (TestWatchAppendRecall); serve has to ask for it.
	require.Equal(t, args[len(args)-1] != "--no-watch", opened.Watch, "serve's watch option")
}
