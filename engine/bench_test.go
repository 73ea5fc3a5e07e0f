package engine_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/memidx/memidx/engine"
)

// benchWorld holds copies of the real session files in one project.
func benchWorld(b *testing.B, copies, hot int) *engine.Engine {
	src, _ := filepath.Glob("../../shared/testdata/real/*.jsonl")
	if len(src) == 0 {
		b.Skip("real session files not available: ../shared/testdata/real is absent")
	}
	w := newWorld(nil)
	b.Cleanup(func() { os.RemoveAll(w.root) })
	w.cfg.HotSessions = hot
	for c := 0; c < copies; c++ {
		for i, p := range src {
			data, _ := os.ReadFile(p)
			dst := filepath.Join(w.bucket, filepath.Base(p)+string(rune('a'+c))+string(rune('a'+i))+".jsonl")
			os.WriteFile(dst, data, 0o600)
			mt := time.Now().Add(-time.Hour * time.Duration(1+c*len(src)+i))
			os.Chtimes(dst, mt, mt)
		}
	}
	e := w.engineB(b)
	// Let the copies' ctimes leave the racy window, as any archive's have.
	time.Sleep(2 * time.Second)
	if _, err := e.Rebuild(ctx, engine.RebuildRequest{Scope: "project"}); err != nil {
		b.Fatal(err)
	}
	return e
}

func benchRecall(b *testing.B, e *engine.Engine, req engine.RecallRequest) {
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		p, err := e.Recall(ctx, req)
		if err != nil || p.Total == 0 {
			b.Fatal(err, p.Error)
		}
	}
}

// BenchmarkRecallHot: 40 hot copies of the real files (~55 MB, ~40k entries).
func BenchmarkRecallHot(b *testing.B) {
	e := benchWorld(b, 8, 100)
	benchRecall(b, e, engine.RecallRequest{Query: "compaction summary tokens", Scope: "project"})
}

// BenchmarkRecallCold: the same sessions, all cold.
func BenchmarkRecallCold(b *testing.B) {
	e := benchWorld(b, 8, 0)
	benchRecall(b, e, engine.RecallRequest{Query: "compaction summary tokens", Scope: "project"})
}
