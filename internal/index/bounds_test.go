package index

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/internal/coverage"
	"github.com/memidx/memidx/internal/lineage"
	"github.com/memidx/memidx/internal/memtest"
)

// sparse makes a file of size bytes that holds prefix and then NUL bytes
// (a hole on file systems that have them: nothing is written).
func sparse(t *testing.T, path, prefix string, size int64) {
	t.Helper()
	require.NoError(t, os.WriteFile(path, []byte(prefix), 0o600))
	require.NoError(t, os.Truncate(path, size))
}

func (f *fixture) rebuild(ix *Index) *Report {
	f.t.Helper()
	var targets []Target
	for _, p := range f.paths {
		targets = append(targets, Target{Path: p})
	}
	rep, err := ix.Refresh(ctx, targets, RefreshOptions{Mode: lineage.Active, Searched: []string{f.dir}, NoBudgets: true})
	require.NoError(f.t, err)
	return rep
}

// Sparse *.jsonl files (truncate -s) are files like any other: 4 × 1 GiB
// took 2.1 GB of memory, a file-sized buffer per worker. Scaled
// down: 4 × 64 MiB, 4 workers. Files of NUL bytes hold no session and are
// refused without being read into memory (invalid_header); one with a valid
// header before its hole is too large for a 32 MiB build bound and skipped
// with max_build_bytes, never allocated. The real sessions are indexed.
func TestRebuild_SparseFilesStayWithinTheBound(t *testing.T) {
	f := newFixture(t, 2)
	const size = 64 << 20
	for i := 0; i < 4; i++ {
		p := filepath.Join(f.dir, fmt.Sprintf("sparse%d.jsonl", i))
		prefix := ""
		if i == 3 {
			prefix = sessionText("sparse3", "hello") // a header, then the hole
		}
		sparse(t, p, prefix, size)
		f.paths = append(f.paths, p)
	}
	f.cfg.MaxBuildBytes = 32 << 20
	ix := f.index()
	ix.Workers = 4
	var rep *Report
	peak := memtest.PeakHeap(func() { rep = f.rebuild(ix) })
	t.Logf("peak heap above base: %d MiB", peak>>20)
	assert.Less(t, peak, uint64(32<<20), "peak heap stays under the 32 MiB build bound")
	assert.Equal(t, []string{Cold.String(), Cold.String(), "-" + coverage.InvalidHeader, "-" + coverage.InvalidHeader, "-" + coverage.InvalidHeader, "-" + MaxBuildBytes}, tiersOf(rep))
	assert.Contains(t, rep.Coverage.Reasons, MaxBuildBytes)
	assert.Equal(t, 2, rep.Coverage.IndexedSessions)

	// Under the default bound (1 GiB) the NUL files are still refused
	// before anything of their size is allocated.
	f.cfg.MaxBuildBytes = 0
	f.paths = f.paths[2:5]
	ix = f.index()
	ix.Workers = 4
	peak = memtest.PeakHeap(func() { rep = f.rebuild(ix) })
	t.Logf("default bound: peak heap above base: %d MiB", peak>>20)
	assert.Less(t, peak, uint64(16<<20))
	assert.Equal(t, []string{"-" + coverage.InvalidHeader, "-" + coverage.InvalidHeader, "-" + coverage.InvalidHeader}, tiersOf(rep))
}

// tinySession writes a session of n tiny message records, the shape that
// costs the most memory per source byte (1,000,000 records, 137 MB,
// took 3.0 GB when read whole).
func tinySession(t *testing.T, path string, n int) {
	t.Helper()
	fh, err := os.Create(path)
	require.NoError(t, err)
	w := bufio.NewWriter(fh)
	fmt.Fprintln(w, `{"type":"session","version":3,"id":"tiny","timestamp":"2026-09-01T10:00:00.000Z","cwd":"/p"}`)
	parent := "null"
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("%08x", i+1)
		role := "user"
		if i%2 == 1 {
			role = "assistant"
		}
		fmt.Fprintf(w, `{"type":"message","id":"%s","parentId":%s,"timestamp":"2026-09-01T10:00:00.000Z","message":{"role":"%s","content":"word%d ok"}}`+"\n", id, parent, role, i)
		parent = `"` + id + `"`
	}
	require.NoError(t, w.Flush())
	require.NoError(t, fh.Close())
}

// A session of 1,000,000 tiny records (150 MB) must be indexed within
// 256 MiB, not skipped under the default bound (its whole read is
// estimated at 2.8 GB). Scaled down to 200,000 records (30 MB): it is
// read slim and built entry by entry, under the default bound, with the
// Go heap steered as memidx rebuild steers it, and the heap stays under
// the 256 MiB budget scaled the same way (51 MiB). A bound under its slim
// charge still skips it; a copy the slim reader cannot take (a malformed
// line) keeps the whole read's charge: built under the default bound,
// skipped under 256 MiB.
func TestRebuild_TinyRecordsStayWithinTheBound(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a 200,000-record session")
	}
	const n = 200_000
	budget := uint64(256<<20) * n / 1_000_000
	f := newFixture(t, 1)
	p := filepath.Join(f.dir, "tiny.jsonl")
	tinySession(t, p, n)
	f.paths = append(f.paths, p)
	st, err := os.Stat(p)
	require.NoError(t, err)
	est := SlimBuildCost(st.Size(), n+1)
	t.Logf("%d bytes: slim charge %d MiB, whole %d MiB", st.Size(), est>>20, BuildCost(st.Size(), n+1)>>20)

	f.cfg.MaxBuildBytes = 1 << 20
	var rep *Report
	peak := memtest.PeakHeap(func() { rep = f.rebuild(f.index()) })
	t.Logf("1 MiB bound, skipped: peak heap above base %d MiB", peak>>20)
	assert.Less(t, peak, uint64(8<<20))
	assert.Equal(t, []string{Hot.String(), "-" + MaxBuildBytes}, tiersOf(rep))

	f.cfg.MaxBuildBytes = 0 // the default, 1 GiB
	ix := f.index()
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	// What the process holds besides the heap in use, as the limit
	// counts it (the idle heap is not held: the runtime returns it).
	restore := ix.SteerHeap(int64(ms.Sys-ms.HeapIdle), int64(224<<20)*n/1_000_000)
	peak = memtest.PeakHeap(func() { rep = f.rebuild(ix) })
	restore()
	t.Logf("default bound: built, peak heap above base %d MiB (budget %d MiB)", peak>>20, budget>>20)
	require.NotNil(t, rep.States[1].Record, rep.States[1].Reason())
	rec := rep.States[1].Record
	assert.Equal(t, Hot, rec.Tier)
	assert.Equal(t, n, int(rec.EntryCount))
	assert.Empty(t, rec.Reasons())
	if !raceEnabled {
		assert.Less(t, peak, budget, "the heap stays within the scaled 256 MiB")
	}

	// One malformed line: the whole read, with its charge.
	fh, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = fh.WriteString("{not json\n")
	require.NoError(t, err)
	require.NoError(t, fh.Close())
	f.cfg.MaxBuildBytes = 256 << 20
	rep = f.rebuild(f.index())
	assert.Equal(t, []string{Hot.String(), "-" + MaxBuildBytes}, tiersOf(rep), "the whole read is charged %d MiB", BuildCost(st.Size(), n+2)>>20)
	f.cfg.MaxBuildBytes = 0
	rep = f.rebuild(f.index())
	require.NotNil(t, rep.States[1].Record, rep.States[1].Reason())
	assert.Equal(t, []string{coverage.MalformedLine}, rep.States[1].Record.Reasons())
}

// The newest session is larger than maxSyncSourceBytes: it is skipped with
// its reason and every other session is still indexed (it used to stop
// the whole refresh, leaving indexedSessions: 0).
func TestRefresh_OversizedSessionDoesNotBlockTheOthers(t *testing.T) {
	f := newFixture(t, 3)
	newest := f.paths[2]
	words := make([]string, 200)
	for i := range words {
		words[i] = strings.Repeat("big ", 50)
	}
	require.NoError(t, os.WriteFile(newest, []byte(sessionText("s2", words...)), 0o600))
	now := time.Now()
	require.NoError(t, os.Chtimes(newest, now, now))
	var small int64
	for _, p := range f.paths[:2] {
		st, err := os.Stat(p)
		require.NoError(t, err)
		small += st.Size()
	}
	f.cfg.MaxSyncSourceBytes = int(small + 100)
	rep := f.refresh(f.index(), lineage.Active)
	assert.Equal(t, []string{Cold.String(), Hot.String(), "-" + coverage.MaxSyncSourceBytes}, tiersOf(rep))
	assert.Equal(t, 2, rep.Coverage.IndexedSessions)
	assert.Equal(t, 1, rep.Coverage.StaleSessions)
	assert.Equal(t, []string{coverage.MaxSyncSourceBytes}, rep.Coverage.Reasons)
	assert.False(t, rep.Coverage.Complete)
}

func TestProbeSource(t *testing.T) {
	for _, c := range []struct {
		name, data string
		lines      int64
		not        bool
	}{
		{"nul", strings.Repeat("\x00", 1<<20), 0, true},
		{"nul lines", "\x00\x00\n \t\x00x\n\n\x01", 3, true},
		{"header after nul line", "\x00\n" + `{"type":"session"}` + "\n", 2, false},
		{"blank", " \n\t\n", 2, false},
		{"empty", "", 0, false},
		{"json", sessionText("a", "b"), 2, false},
		{"garbage text", "hello\n", 1, false},
	} {
		lines, not, err := probeSource(strings.NewReader(c.data), int64(len(c.data)), true)
		require.NoError(t, err)
		assert.Equal(t, c.lines, lines, c.name)
		assert.Equal(t, c.not, not, c.name)
	}
}

// The gate never lets more than its limit in, serves waiters in order, and
// gives a cancelled waiter's turn away.
func TestBuildGate(t *testing.T) {
	g := newBuildGate(100)
	var in, most atomic.Int64
	var wg sync.WaitGroup
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func(n int64) {
			defer wg.Done()
			require.NoError(t, g.acquire(ctx, n))
			if v := in.Add(n); v > most.Load() {
				most.Store(v)
			}
			time.Sleep(time.Millisecond)
			in.Add(-n)
			g.release(n)
		}(int64(10 + i*4))
	}
	wg.Wait()
	assert.LessOrEqual(t, most.Load(), int64(100))

	require.NoError(t, g.acquire(ctx, 90))
	cctx, cancel := context.WithCancel(ctx)
	errc := make(chan error)
	go func() { errc <- g.acquire(cctx, 50) }()
	time.Sleep(5 * time.Millisecond)
	cancel()
	assert.ErrorIs(t, <-errc, context.Canceled)
	g.release(90)
	done := make(chan error)
	go func() { done <- g.acquire(ctx, 100) }()
	select {
	case err := <-done:
		assert.NoError(t, err)
	case <-time.After(5 * time.Second):
		t.Fatal("a cancelled waiter's turn was never given away")
	}
}

// probeSource on real sparse files: holes are passed over without changing
// the answer.
func TestProbeSourceHoles(t *testing.T) {
	dir := t.TempDir()
	probe := func(name string, write func(f *os.File)) (int64, bool) {
		p := filepath.Join(dir, name)
		fh, err := os.Create(p)
		require.NoError(t, err)
		write(fh)
		require.NoError(t, fh.Close())
		fh, err = os.Open(p)
		require.NoError(t, err)
		defer fh.Close()
		st, err := fh.Stat()
		require.NoError(t, err)
		lines, not, err := probeSource(fh, st.Size(), true)
		require.NoError(t, err)
		return lines, not
	}
	lines, not := probe("hole-then-header", func(f *os.File) {
		_, err := f.WriteAt([]byte("\n"+sessionText("h", "x")), 4<<20)
		require.NoError(t, err)
	})
	assert.False(t, not, "a line after the hole can start a value")
	assert.Equal(t, int64(3), lines)
	lines, not = probe("header-then-hole", func(f *os.File) {
		_, err := f.WriteString(sessionText("h", "x"))
		require.NoError(t, err)
		require.NoError(t, f.Truncate(4<<20))
	})
	assert.False(t, not)
	assert.Equal(t, int64(2), lines)
	lines, not = probe("all-hole", func(f *os.File) { require.NoError(t, f.Truncate(4<<20)) })
	assert.True(t, not)
	assert.Zero(t, lines)
	lines, not = probe("blank", func(f *os.File) {
		_, err := f.WriteString(" \n\n")
		require.NoError(t, err)
	})
	assert.False(t, not, "a blank file is a fresh session")
	assert.Equal(t, int64(2), lines)
}

func TestConfigMaxBuildBytes(t *testing.T) {
	assert.Equal(t, 1<<30, DefaultConfig().MaxBuildBytes)
	p := filepath.Join(t.TempDir(), "fabric.json")
	require.NoError(t, os.WriteFile(p, []byte(`{"memory":{"maxBuildBytes":1000}}`), 0o600))
	cfg, notes, err := LoadConfig(ConfigFiles{Global: p})
	require.NoError(t, err)
	assert.Equal(t, 1<<20, cfg.MaxBuildBytes, "clamped to 1 MiB")
	require.Len(t, notes, 1)
	assert.Equal(t, "maxBuildBytes", notes[0].Key)
}

// Index.ReadSource bounds a whole read by the configured maxBuildBytes, as
// a build is; the package's ReadSource by the default.
func TestIndexReadSourceIsBounded(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "s.jsonl")
	var b strings.Builder
	b.WriteString(`{"type":"session","version":3,"id":"s","timestamp":"2026-09-01T10:00:00.000Z","cwd":"/p"}` + "\n")
	for i := 0; i < 200; i++ {
		fmt.Fprintf(&b, `{"type":"message","id":"e%d","parentId":null,"timestamp":"2026-09-01T10:00:00.000Z","message":{"role":"user","content":%q}}`+"\n", i, strings.Repeat("word ", 200))
	}
	require.NoError(t, os.WriteFile(p, []byte(b.String()), 0o600))
	cfg := DefaultConfig()
	cfg.IndexDir = filepath.Join(dir, "index")
	cfg.MaxBuildBytes = 1 << 20 // the file is ~200 KB, about 1.5 MB to build
	_, err := Open(cfg, time.Second).ReadSource(p)
	assert.ErrorIs(t, err, ErrOverBuildBudget)
	cfg.MaxBuildBytes = 64 << 20
	src, err := Open(cfg, time.Second).ReadSource(p)
	require.NoError(t, err)
	assert.Equal(t, int64(b.Len()), int64(len(src.Data)))
	_, err = ReadSource(p)
	assert.NoError(t, err)
}
