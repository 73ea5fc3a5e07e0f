package engine_test

import (
	"github.com/memidx/memidx/internal/session/locate"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/engine"
	"github.com/memidx/memidx/internal/session/listing"
	"github.com/memidx/memidx/internal/session/scopes"
)

// TestWatchMeasure compares warm global recalls of a watching and a plain
// Engine over one archive, interleaved in the same run:
//
//	MEMIDX_MEASURE_AGENT=/tmp/c2k MEMIDX_MEASURE_INDEX=/tmp/idx go test ./engine -run TestWatchMeasure -v
//
// The agent directory is only read; the index goes to MEMIDX_MEASURE_INDEX.
func TestWatchMeasure(t *testing.T) {
	agent, idx := os.Getenv("MEMIDX_MEASURE_AGENT"), os.Getenv("MEMIDX_MEASURE_INDEX")
	if agent == "" || idx == "" {
		t.Skip("set MEMIDX_MEASURE_AGENT and MEMIDX_MEASURE_INDEX")
	}
	open := func(watch bool) *engine.Engine {
		cfg := engine.DefaultConfig()
		cfg.IndexDir = idx
		e, err := engine.Open(engine.Options{AgentDir: agent, Cwd: agent, Memory: &cfg, Watch: watch, LockTimeout: 10 * time.Second})
		require.NoError(t, err)
		return e
	}
	plain, watching := open(false), open(true)
	defer watching.Close()
	start := time.Now()
	_, err := plain.Rebuild(ctx, engine.RebuildRequest{Scope: "global"})
	require.NoError(t, err)
	t.Logf("rebuild %v", time.Since(start))
	queries := []string{"flaky", "flaky retry", "PDcAYhoOvi"}
	rounds := 40
	times := map[string][]time.Duration{}
	for r := -2; r < rounds; r++ { // two warm-up rounds
		for _, q := range queries {
			for _, e := range []struct {
				name string
				e    *engine.Engine
			}{{"plain", plain}, {"watch", watching}} {
				t0 := time.Now()
				p, err := e.e.Recall(ctx, engine.RecallRequest{Query: q, Scope: "global"})
				d := time.Since(t0)
				require.NoError(t, err)
				require.Nil(t, p.Error)
				if r >= 0 {
					times[e.name+"\t"+q] = append(times[e.name+"\t"+q], d)
				}
			}
		}
	}
	for _, q := range queries {
		for _, name := range []string{"plain", "watch"} {
			ds := times[name+"\t"+q]
			slices.Sort(ds)
			t.Logf("%-6s %-14q median %8v  p90 %8v  min %8v", name, q, ds[len(ds)/2].Round(10*time.Microsecond), ds[len(ds)*9/10].Round(10*time.Microsecond), ds[0].Round(10*time.Microsecond))
		}
	}
	t.Logf("watch stats: %+v", engine.WatchStats(watching))

	// The listing alone: a global Resolve with and without a ListCache.
	dirs := watching.Dirs()
	cache := listing.NewListCache()
	defer cache.Close()
	for _, c := range []*listing.ListCache{nil, cache} {
		r := &scopes.Resolver{Dirs: locate.Dirs(dirs), Env: locate.DefaultEnv(), Watch: c}
		var ds []time.Duration
		for i := 0; i < 60; i++ {
			t0 := time.Now()
			res, err := r.Resolve(scopes.Scope{Kind: scopes.ScopeGlobal})
			ds = append(ds, time.Since(t0))
			require.NoError(t, err)
			require.NotEmpty(t, res.Refs)
		}
		ds = ds[2:]
		slices.Sort(ds)
		t.Logf("resolve global (watch %v): median %v  p90 %v", c != nil, ds[len(ds)/2].Round(time.Microsecond), ds[len(ds)*9/10].Round(time.Microsecond))
	}
}
