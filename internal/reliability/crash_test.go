//go:build unix

package reliability

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// crashCorpus writes sessions of about 24 KB (hot and cold: hotSessions
// 100) in steps of 70 until a rebuild from scratch into ref takes at least
// 300 ms (at most 700 sessions), so that kill points land inside real
// work; a rebuild writes them in batches of 64. It returns the global flags
// that select the config, the session count and the last rebuild's time;
// ref then holds a fresh index of the whole corpus.
func crashCorpus(t testing.TB, w *world, g *gen, ref string) ([]string, int, time.Duration) {
	cfgPath := filepath.Join(w.root, "fabric.json")
	require.NoError(t, os.WriteFile(cfgPath, []byte(`{"memory":{"hotSessions":100}}`), 0o600))
	global := []string{"--config", cfgPath}
	n := 0
	for {
		for i := 0; i < 70; i++ {
			m := g.session(fmt.Sprintf("crash%03d", n), w.project, 24<<10, 60)
			w.writeSession(m.id, m.bytes())
			n++
		}
		require.NoError(t, os.RemoveAll(ref))
		r := w.run(runOpts{index: ref, global: global}, "rebuild", "--scope", "global", "--json")
		require.True(t, clean(t, r) && r.code == 0, "%s", r)
		if r.dur >= 300*time.Millisecond || n >= 700 {
			return global, n, r.dur
		}
	}
}

// killAfter starts the CLI, kills it with SIGKILL after delay and reports
// whether it was still running then.
func (w *world) killAfter(global []string, index string, delay time.Duration, args ...string) (killed bool, r result) {
	full := append([]string{"--agent-dir", w.agent, "--index-dir", index, "--cwd", w.project}, global...)
	cmd := exec.Command(w.bin, append(full, args...)...)
	cmd.Dir, cmd.Env = w.project, w.procEnv
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	require.NoError(w.t, cmd.Start())
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(delay):
		killed = cmd.Process.Signal(syscall.SIGKILL) == nil
		err = <-done
		if ee, ok := err.(*exec.ExitError); ok {
			ws, _ := ee.Sys().(syscall.WaitStatus)
			killed = ws.Signaled() && ws.Signal() == syscall.SIGKILL
		} else {
			killed = false // it finished before the signal
		}
	}
	r = result{args: args, stdout: out.Bytes(), stderr: errb.Bytes(), dur: time.Since(start)}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	}
	return killed, r
}

// TestCrashKillRebuild kills `memidx rebuild` (and, every fourth kill, a
// refreshing recall) with SIGKILL at random points of its work, from 0 to
// the typical rebuild time, sometimes twice in a row so that a rebuild
// starts from a half-written index. After each crash a recall (which
// refreshes) must answer exactly as a fresh index built from scratch.
func TestCrashKillRebuild(t *testing.T) {
	t.Parallel()
	kills := envInt("MEMIDX_CRASH_KILLS", 8)
	rng := seeded(t)
	w := newWorld(t)
	g := newGen(rng)
	queries := []string{g.words[0] + " " + g.words[7], g.words[300], g.words[1200] + " " + g.words[2500]}

	// The typical rebuild time, and the expected answers, from scratch.
	ref := filepath.Join(w.root, "ref-index")
	global, n, typical := crashCorpus(t, w, g, ref)
	t.Logf("corpus: %d sessions; a rebuild from scratch takes %v", n, typical.Round(time.Millisecond))
	want := map[string]recallOut{}
	recallArgs := func(q string) []string {
		return []string{"recall", "-q", q, "--scope", "global", "--page-size", "50"}
	}
	for _, q := range queries {
		r := w.run(runOpts{index: ref, global: global}, recallArgs(q)...)
		require.True(t, clean(t, r) && r.code == 0, "%s", r)
		want[q] = decodeRecall(t, r)
		require.NotEmpty(t, want[q].Hits, q)
	}

	crash := filepath.Join(w.root, "crash-index")
	var survived, finished, attempts int
	reasons := map[string]int{}
	var delays []time.Duration
	var left []int // records found right after each kill
	for survived < kills && attempts < 4*kills {
		require.NoError(t, os.RemoveAll(crash))
		// One or two kills before the check.
		for n := 1 + rng.IntN(2); n > 0 && survived < kills; n-- {
			attempts++
			delay := time.Duration(rng.Int64N(int64(typical) + 1))
			args := []string{"rebuild", "--scope", "global", "--json"}
			if (survived+1)%4 == 0 {
				args = recallArgs(queries[0])
			}
			killed, r := w.killAfter(global, crash, delay, args...)
			if !killed {
				finished++
				clean(t, r)
				continue
			}
			survived++
			delays = append(delays, delay)
			// What the crash left: inspect reads without refreshing.
			ir := w.run(runOpts{index: crash, global: global}, "inspect", "index", "--json")
			if clean(t, ir) && ir.code == 0 {
				var rep struct {
					Totals struct {
						Records int `json:"records"`
					} `json:"totals"`
				}
				require.NoError(t, json.Unmarshal(ir.stdout, &rep))
				left = append(left, rep.Totals.Records)
			} else {
				left = append(left, -1)
			}
			// After each kill, a refreshing recall answers as a fresh index.
			for _, q := range queries {
				r := w.run(runOpts{index: crash, global: global}, recallArgs(q)...)
				if !clean(t, r) || !assert.Zero(t, r.code, "%s", r) {
					continue
				}
				got := decodeRecall(t, r)
				for _, x := range got.Coverage.Reasons {
					reasons[x]++
				}
				assertSameHits(t, want[q], got, "kill %d (%s after %v), query %q", survived, args[0], delay, q)
			}
		}
	}
	sort.Slice(delays, func(a, b int) bool { return delays[a] < delays[b] })
	t.Logf("kills survived: %d (%d runs finished before their kill point), delays %v..%v, records left by each kill %v, reasons after crashes: %v",
		survived, finished, delays[0].Round(time.Millisecond), delays[len(delays)-1].Round(time.Millisecond), left, reasons)
	assert.GreaterOrEqual(t, survived, kills, "not enough runs were still working at their kill point")
	for _, x := range []string{"internal_error", "index_error"} {
		assert.Zero(t, reasons[x], "reason %s after a crash", x)
	}
}
