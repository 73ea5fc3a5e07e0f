package engine_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/engine"
	"github.com/memidx/memidx/internal/memtest"
)

// writeLongSession writes a session of n tiny message records in one
// parent chain, as a long-running agent writes them (about 140 bytes a
// record), and returns its path.
func writeLongSession(tb testing.TB, dir string, n int) string {
	tb.Helper()
	p := filepath.Join(dir, fmt.Sprintf("2026-09-01T10-00-00-000Z_s-long-%d.jsonl", n))
	f, err := os.Create(p)
	if err != nil {
		tb.Fatal(err)
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	fmt.Fprintf(bw, `{"type":"session","version":3,"id":"s-long-%d","timestamp":"2026-09-01T10:00:00.000Z","cwd":"/p"}`+"\n", n)
	for i := 0; i < n; i++ {
		parent := "null"
		if i > 0 {
			parent = fmt.Sprintf(`"e%07d"`, i-1)
		}
		msg := fmt.Sprintf(`{"role":"user","content":"entry %d says hi"}`, i)
		if i%2 == 1 {
			msg = fmt.Sprintf(`{"role":"assistant","content":[{"type":"text","text":"entry %d says hi"}],"usage":{"cost":{"total":0}}}`, i)
		}
		fmt.Fprintf(bw, `{"type":"message","id":"e%07d","parentId":%s,"timestamp":"2026-09-01T10:01:00.000Z","message":%s}`+"\n", i, parent, msg)
	}
	if err := bw.Flush(); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
	old := time.Now().Add(-time.Hour) // out of the racy window
	os.Chtimes(p, old, old)
	return p
}

func longWorld(tb testing.TB, n int) (*world, string) {
	w := newWorld(nil)
	tb.Cleanup(func() { os.RemoveAll(w.root) })
	return w, writeLongSession(tb, w.bucket, n)
}

func openLong(tb testing.TB, w *world) *engine.Engine {
	cfg := w.cfg
	e, err := engine.Open(engine.Options{AgentDir: w.agent, Cwd: w.project, Env: w.engineEnv(), Memory: &cfg, LockTimeout: time.Second})
	if err != nil {
		tb.Fatal(err)
	}
	return e
}

// BenchmarkWalkLong walks a whole long session; entries/s is the figure
// to watch (the target is ≥ 50,000, so that a host can walk a long
// session in seconds).
func BenchmarkWalkLong(b *testing.B) {
	for _, n := range []int{10_000, 200_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			w, path := longWorld(b, n)
			e := openLong(b, w)
			b.ResetTimer()
			start := time.Now()
			for i := 0; i < b.N; i++ {
				res, err := e.Walk(ctx, engine.ExpandRequest{Session: path}, func(engine.ExpandedEntry) (bool, error) { return true, nil })
				if err != nil || res.Visited != n {
					b.Fatal(err, res)
				}
			}
			b.ReportMetric(float64(n*b.N)/time.Since(start).Seconds(), "entries/s")
		})
	}
}

// BenchmarkExpandOneLong expands one entry of a 200,000-record session
// from a fresh engine (no cached read): time, and the peak live heap.
func BenchmarkExpandOneLong(b *testing.B) {
	w, path := longWorld(b, 200_000)
	var peak uint64
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		e := openLong(b, w)
		b.StartTimer()
		p := memtest.PeakHeap(func() {
			x, err := e.Expand(ctx, engine.ExpandRequest{Session: path, Indices: []int{123_455}})
			if err != nil || x.Error != nil || len(x.Entries) != 1 || x.Entries[0].Text != "entry 123455 says hi" {
				b.Fatal(err, x)
			}
		})
		peak = max(peak, p)
		b.StopTimer()
		b.StartTimer()
	}
	b.ReportMetric(float64(peak)/(1<<20), "peak-MiB")
}

// Cancelling the context at the 5th entry stops the walk at the 5th: the
// walk checks its context before every entry, not once a page (which
// visited 10).
func TestWalkCancelStopsAtOnce(t *testing.T) {
	w, path := longWorld(t, 100)
	e := openLong(t, w)
	c, cancel := context.WithCancel(ctx)
	defer cancel()
	seen := 0
	res, err := e.Walk(c, engine.ExpandRequest{Session: path}, func(engine.ExpandedEntry) (bool, error) {
		seen++
		if seen == 5 {
			cancel()
		}
		return true, nil
	})
	require.ErrorIs(t, err, context.Canceled)
	require.Equal(t, 5, seen)
	require.Equal(t, 5, res.Visited)
}

// A walk ends at its budget with a reason, never runs for ever.
func TestWalkDeadlineEndsWithAReason(t *testing.T) {
	w, path := longWorld(t, 2000)
	e := openLong(t, w)
	c, cancel := context.WithTimeout(ctx, time.Hour)
	defer cancel()
	res, err := e.Walk(c, engine.ExpandRequest{Session: path}, func(en engine.ExpandedEntry) (bool, error) {
		if en.Index == 99 {
			time.Sleep(60 * time.Millisecond)
		}
		return true, nil
	})
	require.NoError(t, err)
	require.True(t, res.Complete)
	require.Equal(t, []string{}, res.Reasons)
	require.Equal(t, 2000, res.Visited)

	cfg := w.cfg
	e, err = engine.Open(engine.Options{AgentDir: w.agent, Cwd: w.project, Env: w.engineEnv(), Memory: &cfg, WalkTimeout: 500 * time.Millisecond})
	require.NoError(t, err)
	res, err = e.Walk(ctx, engine.ExpandRequest{Session: path}, func(en engine.ExpandedEntry) (bool, error) {
		if en.Index == 99 {
			time.Sleep(600 * time.Millisecond)
		}
		return true, nil
	})
	require.NoError(t, err, "a budget is a result, not a failure")
	require.False(t, res.Complete)
	require.Equal(t, []string{engine.WalkDeadline}, res.Reasons)
	require.Equal(t, 100, res.Visited)
	require.False(t, res.Stopped)
}

// A long walk visits every entry once, in order, with its whole text, and
// a source that changes mid-walk answers stale_pointer.
func TestWalkLongSession(t *testing.T) {
	n := 20_000
	if testing.Short() {
		n = 3000
	}
	w, path := longWorld(t, n)
	e := openLong(t, w)
	next := 0
	res, err := e.Walk(ctx, engine.ExpandRequest{Session: path}, func(en engine.ExpandedEntry) (bool, error) {
		if en.Index != next || en.Text != fmt.Sprintf("entry %d says hi", next) || !en.TextRange.Complete {
			return false, fmt.Errorf("entry %d: %+v", next, en)
		}
		next++
		return true, nil
	})
	require.NoError(t, err)
	require.Equal(t, n, res.Visited)
	require.True(t, res.Complete)

	// A range and an index: the selection only.
	var got []int
	res, err = e.Walk(ctx, engine.ExpandRequest{Session: path, Indices: []int{5, 2000}, EntryRange: &engine.Range{First: 10, Last: 12}},
		func(en engine.ExpandedEntry) (bool, error) { got = append(got, en.Index); return true, nil })
	require.NoError(t, err)
	require.Nil(t, res.Error)
	require.Equal(t, []int{5, 10, 11, 12, 2000}, got)

	// Appended to after 1500 entries: the walk does not mix versions.
	res, err = e.Walk(ctx, engine.ExpandRequest{Session: path}, func(en engine.ExpandedEntry) (bool, error) {
		if en.Index == 1500 {
			w.t = t
			w.appendTo(path, `{"type":"message","id":"late","parentId":null,"message":{"role":"user","content":"late"}}`)
		}
		return true, nil
	})
	require.NoError(t, err)
	require.NotNil(t, res.Error)
	require.Equal(t, "stale_pointer", res.Error.Code)
	require.Less(t, res.Visited, n)
}

// A session of tiny records too long to read whole under the default
// build bound (200,000 here and a fifth of the bound, standing for a
// session of a million records) is rebuilt slim, entry by entry, and then
// answers like any other: a word of one entry is recalled from the hot
// shard, and its follow call expands the entry.
func TestRebuildLongSessionRecallsAndExpands(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 200,000-record session")
	}
	w, path := longWorld(t, 200_000)
	// The default bound scaled down too: the whole read's charge (550
	// MB) is over it, as a million records' is over 1 GiB.
	w.cfg.MaxBuildBytes = (1 << 30) / 5
	e := openLong(t, w)
	rep, err := e.Rebuild(ctx, engine.RebuildRequest{Scope: engine.ScopeGlobal})
	require.NoError(t, err)
	require.Equal(t, 1, rep.Rebuilt, rep.Unindexed)
	require.True(t, rep.Coverage.Complete, rep.Coverage.Reasons)

	p, err := e.Recall(ctx, engine.RecallRequest{Query: "123455", Scope: engine.ScopeGlobal})
	require.NoError(t, err)
	require.Nil(t, p.Error)
	require.True(t, p.Coverage.Complete, p.Coverage.Reasons)
	require.Equal(t, 1, p.Total)
	hit := p.Hits[0].Entry
	require.NotNil(t, hit)
	require.Equal(t, "hot", hit.Tier)
	require.Equal(t, 123_455, hit.Index)
	require.Contains(t, hit.Snippet, "entry 123455 says hi")

	res, err := e.Call(ctx, hit.Follow)
	require.NoError(t, err)
	x := res.Expand
	require.Nil(t, x.Error)
	require.Len(t, x.Entries, 1)
	require.Equal(t, "entry 123455 says hi", x.Entries[0].Text)
	require.Equal(t, path, x.Session)
}
