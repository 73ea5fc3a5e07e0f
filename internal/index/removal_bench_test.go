package index

import (
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/memidx/memidx/internal/corpus"
	"github.com/memidx/memidx/internal/lineage"
)

// corpus200 is a generated corpus of 200 sessions indexed once: its
// sessions directory, session paths (newest last as generated) and a copy
// of the index file to start each iteration from.
func corpus200(b *testing.B) (dir string, paths []string, template string) {
	b.Helper()
	out := b.TempDir()
	m, err := corpus.Generate(corpus.Options{Sessions: 200, Seed: 7, Out: out})
	if err != nil {
		b.Fatal(err)
	}
	for _, s := range m.Sessions {
		paths = append(paths, filepath.Join(out, filepath.FromSlash(s.Path)))
	}
	dir = filepath.Join(out, "sessions")
	cfg := DefaultConfig()
	cfg.IndexDir = filepath.Join(out, "template")
	ix := Open(cfg, 10*time.Second)
	if _, err := ix.Refresh(ctx, benchTargets(paths), RefreshOptions{Mode: lineage.Active, Searched: []string{dir}, NoBudgets: true}); err != nil {
		b.Fatal(err)
	}
	return dir, paths, ix.Store().Path()
}

func copyFile(b *testing.B, from, to string) {
	b.Helper()
	src, err := os.Open(from)
	if err != nil {
		b.Fatal(err)
	}
	defer src.Close()
	if err := os.MkdirAll(filepath.Dir(to), 0o700); err != nil {
		b.Fatal(err)
	}
	dst, err := os.Create(to)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		b.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkRefreshOneDeleted200 is a refresh of a 200-session index after
// one session (a hot one: the most text to scrub) was deleted: the record
// removal and, since it deletes, the scrub of the free pages.
func BenchmarkRefreshOneDeleted200(b *testing.B) {
	dir, paths, template := corpus200(b)
	gone := paths[len(paths)-1]
	if err := os.Remove(gone); err != nil {
		b.Fatal(err)
	}
	rest := benchTargets(paths[:len(paths)-1])
	cfg := DefaultConfig()
	cfg.IndexDir = filepath.Join(b.TempDir(), "idx")
	ix := Open(cfg, 10*time.Second)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		copyFile(b, template, ix.Store().Path())
		b.StartTimer()
		rep, err := ix.Refresh(ctx, rest, RefreshOptions{Mode: lineage.Active, Searched: []string{dir}})
		if err != nil || rep.Removed != 1 {
			b.Fatal(err, rep.Removed)
		}
	}
}

// BenchmarkRefreshUnchanged200 is a refresh of the same index where
// nothing changed.
func BenchmarkRefreshUnchanged200(b *testing.B) {
	dir, paths, template := corpus200(b)
	cfg := DefaultConfig()
	cfg.IndexDir = filepath.Join(b.TempDir(), "idx")
	copyFile(b, template, filepath.Join(cfg.IndexDir, "index.db"))
	ix := Open(cfg, 10*time.Second)
	ix.RacyWindow = -1
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rep, err := ix.Refresh(ctx, benchTargets(paths), RefreshOptions{Mode: lineage.Active, Searched: []string{dir}})
		if err != nil || rep.Rebuilt != 0 {
			b.Fatal(err, rep.Rebuilt)
		}
	}
}
