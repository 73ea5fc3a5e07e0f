package normalize_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/memidx/memidx/internal/analyzer"
	"github.com/memidx/memidx/internal/lineage"
	"github.com/memidx/memidx/internal/normalize"
	"github.com/memidx/memidx/internal/session"
)

// realFiles loads ../shared/testdata/real, or skips.
func realFiles(tb testing.TB) [][]byte {
	tb.Helper()
	paths, _ := filepath.Glob("../../../shared/testdata/real/*.jsonl")
	if len(paths) == 0 {
		tb.Skip("real session files not available: ../shared/testdata/real is absent")
	}
	var out [][]byte
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

func totalBytes(files [][]byte) int64 {
	n := 0
	for _, f := range files {
		n += len(f)
	}
	return int64(n)
}

// BenchmarkReadNormalizeTokenize is the whole read path of indexing: parse
// as OMP does, select the active branch, normalize, tokenize every entry's
// indexed text (tool-call arguments whole, as the tiers index them) with
// one reused analyzer.Tokenizer, as the hot tier's builder does (the
// tokens as spans, from which the builder takes each token's string).
func BenchmarkReadNormalizeTokenize(b *testing.B) {
	files := realFiles(b)
	b.SetBytes(totalBytes(files))
	b.ReportAllocs()
	var spans []analyzer.Span
	var tokr analyzer.Tokenizer
	for i := 0; i < b.N; i++ {
		for _, data := range files {
			f := session.Parse("bench.jsonl", data)
			res := normalize.Session(f, lineage.Select(f, lineage.Active, nil), normalize.Options{IndexToolOutput: true})
			for j := range res.Entries {
				spans = tokr.AppendSpans(spans[:0], res.Entries[j].IndexText())
			}
		}
	}
}

// BenchmarkReadOnly parses without normalizing: the reader's share.
func BenchmarkReadOnly(b *testing.B) {
	files := realFiles(b)
	b.SetBytes(totalBytes(files))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		for _, data := range files {
			session.Parse("bench.jsonl", data)
		}
	}
}

// BenchmarkBaselineEncodingJSON decodes the same bytes line by line with
// encoding/json into generic maps: the baseline the read path is measured
// against.
func BenchmarkBaselineEncodingJSON(b *testing.B) {
	files := realFiles(b)
	b.SetBytes(totalBytes(files))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		for _, data := range files {
			for _, line := range bytes.Split(data, []byte{'\n'}) {
				var v any
				_ = json.Unmarshal(line, &v)
			}
		}
	}
}

// BenchmarkReadPathVsBaseline alternates the read path and the
// encoding/json baseline on the same files within every iteration, so
// that both see the same machine load, and reports each one's MB/s and
// their ratio (the target: the read path at 150 MB/s where the baseline
// does 88, a ratio of 1.7).
func BenchmarkReadPathVsBaseline(b *testing.B) {
	files := realFiles(b)
	size := float64(totalBytes(files))
	var spans []analyzer.Span
	var tokr analyzer.Tokenizer
	var read, base time.Duration
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		for _, data := range files {
			f := session.Parse("bench.jsonl", data)
			res := normalize.Session(f, lineage.Select(f, lineage.Active, nil), normalize.Options{IndexToolOutput: true})
			for j := range res.Entries {
				spans = tokr.AppendSpans(spans[:0], res.Entries[j].IndexText())
			}
		}
		t1 := time.Now()
		for _, data := range files {
			for _, line := range bytes.Split(data, []byte{'\n'}) {
				var v any
				_ = json.Unmarshal(line, &v)
			}
		}
		read += t1.Sub(t0)
		base += time.Since(t1)
	}
	n := float64(b.N)
	b.ReportMetric(size*n/read.Seconds()/1e6, "readpath-MB/s")
	b.ReportMetric(size*n/base.Seconds()/1e6, "baseline-MB/s")
	b.ReportMetric(base.Seconds()/read.Seconds(), "ratio")
}
