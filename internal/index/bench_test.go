package index

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/memidx/memidx/internal/lineage"
)

// benchCorpus copies the real session files (or skips) n times into a
// temporary sessions directory.
func benchCorpus(b *testing.B, copies int) (dir string, paths []string, total int64) {
	b.Helper()
	src, _ := filepath.Glob("../../../shared/testdata/real/*.jsonl")
	if len(src) == 0 {
		b.Skip("real session files not available: ../shared/testdata/real is absent")
	}
	dir = b.TempDir()
	for c := 0; c < copies; c++ {
		for i, p := range src {
			data, err := os.ReadFile(p)
			if err != nil {
				b.Fatal(err)
			}
			dst := filepath.Join(dir, fmt.Sprintf("c%d-%d.jsonl", c, i))
			if err := os.WriteFile(dst, data, 0o600); err != nil {
				b.Fatal(err)
			}
			mt := time.Now().Add(-time.Duration(c*len(src)+i) * time.Minute)
			os.Chtimes(dst, mt, mt)
			paths = append(paths, dst)
			total += int64(len(data))
		}
	}
	return dir, paths, total
}

func benchTargets(paths []string) []Target {
	t := make([]Target, len(paths))
	for i, p := range paths {
		t[i] = Target{Path: p}
	}
	return t
}

// BenchmarkRebuild is a full rebuild of 4 copies of the real files, all
// cold (the common tier of a large archive).
func BenchmarkRebuild(b *testing.B) {
	dir, paths, total := benchCorpus(b, 4)
	b.SetBytes(total)
	for i := 0; i < b.N; i++ {
		cfg := DefaultConfig()
		cfg.HotSessions = 2
		cfg.IndexDir = filepath.Join(b.TempDir(), "idx")
		ix := Open(cfg, time.Second)
		rep, err := ix.Refresh(ctx, benchTargets(paths), RefreshOptions{Mode: lineage.Active, Searched: []string{dir}, NoBudgets: true})
		if err != nil || rep.Rebuilt != len(paths) {
			b.Fatal(err, rep)
		}
	}
}

// BenchmarkReadBaseline reads the same bytes: the floor of any rebuild.
func BenchmarkReadBaseline(b *testing.B) {
	_, paths, total := benchCorpus(b, 4)
	b.SetBytes(total)
	for i := 0; i < b.N; i++ {
		for _, p := range paths {
			if _, err := ReadSource(p); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkRefreshUnchanged is a refresh where nothing changed.
func BenchmarkRefreshUnchanged(b *testing.B) {
	dir, paths, _ := benchCorpus(b, 4)
	cfg := DefaultConfig()
	cfg.IndexDir = filepath.Join(b.TempDir(), "idx")
	ix := Open(cfg, time.Second)
	ix.RacyWindow = -1
	opt := RefreshOptions{Mode: lineage.Active, Searched: []string{dir}}
	if _, err := ix.Refresh(ctx, benchTargets(paths), opt); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rep, err := ix.Refresh(ctx, benchTargets(paths), opt)
		if err != nil || rep.Rebuilt != 0 {
			b.Fatal(err, rep.Rebuilt)
		}
	}
}
