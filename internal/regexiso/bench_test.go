package regexiso

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

// codeText returns n bytes of deterministic text shaped like an agent
// transcript: Go code, shell output and some non-ASCII prose.
func codeText(n int) string {
	lines := []string{
		"func (s *Server) handle(ctx context.Context, req *Request) error {",
		"\tif err := s.store.Put(req.Key, req.Value); err != nil {",
		"\t\treturn fmt.Errorf(\"put %s: %w\", req.Key, err)",
		"\t}",
		"$ go test ./... -run TestHandle -count=1",
		"ok  \tgithub.com/example/server\t0.412s",
		"The résumé parser now handles naïve café names — 日本語 too.",
		"FAIL: TestOpen (0.00s) open /tmp/x: no such file or directory",
		"}",
		"",
	}
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		b.WriteString(lines[i%len(lines)])
		fmt.Fprintf(&b, " // %d\n", i)
	}
	return b.String()[:n]
}

// entries cuts text at line ends into items of 200 bytes to 8 KiB, like hot
// entry texts.
func entries(text string) []string {
	var out []string
	for i := 0; len(text) > 0; i++ {
		n := min(len(text), 200+(i*7919)%8000)
		if j := strings.IndexByte(text[n:], '\n'); j >= 0 {
			n += j + 1
		} else {
			n = len(text)
		}
		out = append(out, text[:n])
		text = text[n:]
	}
	return out
}

var benchPatterns = []string{
	`Errorf\("open`,
	`func \(\w+ \*\w+\) \w+\(`,
	`résumé`,
	`\b\w+Error\b`,
	`no such file`,
	`no such host`,
	`(a|aa)*b`,
	`\u{65E5}\p{Han}+`,
}

// BenchmarkSearch searches 2 MiB of entries, the default byte limit. The
// raw variant calls Go's MatchString on each item, without limits, for
// comparison.
func BenchmarkSearch(b *testing.B) {
	text := codeText(2 << 20)
	items := entries(text)
	for _, p := range benchPatterns {
		re := MustCompile(p, Limits{Timeout: time.Minute})
		b.Run(p, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				run := re.NewRun(context.Background())
				for _, item := range items {
					run.Add(item)
				}
				if !run.Result().Complete {
					b.Fatal("incomplete")
				}
			}
		})
		b.Run(p+"/raw", func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				for _, item := range items {
					re.re.MatchString(item)
				}
			}
		})
	}
}

// BenchmarkSearch_OneItem searches 2 MiB as a single item: the cancellable
// path.
func BenchmarkSearch_OneItem(b *testing.B) {
	text := codeText(2 << 20)
	for _, p := range benchPatterns {
		b.Run(p, func(b *testing.B) {
			re := MustCompile(p, Limits{Timeout: time.Minute})
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				run := re.NewRun(context.Background())
				if _, ok := run.Add(text); !ok {
					b.Fatal("not searched")
				}
			}
		})
	}
}

// BenchmarkSearch_Terms searches 20,000 vocabulary terms, the default item
// limit, as a cold haystack.
func BenchmarkSearch_Terms(b *testing.B) {
	terms := strings.Fields(codeText(1 << 20))[:20000]
	size := 0
	for _, t := range terms {
		size += len(t)
	}
	for _, p := range []string{`^open`, `err(or)?s?$`, `résumé`} {
		b.Run(p, func(b *testing.B) {
			re := MustCompile(p, Limits{})
			b.SetBytes(int64(size))
			for b.Loop() {
				run := re.NewRun(context.Background())
				for _, t := range terms {
					run.Add(t)
				}
				if !run.Result().Complete {
					b.Fatal("incomplete")
				}
			}
		})
	}
}

// BenchmarkPathological runs patterns that make RE2 slow over 2 MiB under
// the default limits: each operation must end by the 250 ms deadline. The
// metrics are the share of the haystack searched and the overrun.
func BenchmarkPathological(b *testing.B) {
	text := codeText(2 << 20)
	letters := strings.Repeat("a", 2<<20)
	for _, tt := range []struct{ name, pattern, haystack string }{
		{"letters-class1000", `[\p{L}\p{N}]{1000}z`, letters},
		{"letters-dot1000", `.{1000}Q`, letters},
		{"code-class1000", `[\p{L}\p{N}]{1000}z`, text},
		{"letters-alt", `(a|aa)*b`, letters},
		{"letters-nested", `(x+x+)+y|(.*)*z`, letters},
	} {
		b.Run(tt.name, func(b *testing.B) {
			lim := DefaultLimits()
			re := MustCompile(tt.pattern, Limits{Timeout: time.Minute})
			re.lim = lim
			items := entries(tt.haystack)
			var searched, overrun float64
			for b.Loop() {
				start := time.Now()
				run := re.NewRun(context.Background())
				for _, item := range items {
					if _, ok := run.Add(item); !ok {
						break
					}
				}
				overrun += float64(max(0, time.Since(start)-lim.Timeout).Microseconds())
				searched += float64(run.Result().SearchedBytes) / float64(len(tt.haystack))
			}
			b.ReportMetric(searched/float64(b.N), "searched/op")
			b.ReportMetric(overrun/float64(b.N), "overrun-µs/op")
		})
	}
}

func BenchmarkCompile(b *testing.B) {
	for _, p := range []string{`foo`, `func \(\w+ \*\w+\) \w+\(`, `[\p{L}\p{N}]{1000}z`} {
		b.Run(p, func(b *testing.B) {
			for b.Loop() {
				MustCompile(p, Limits{Timeout: time.Minute})
			}
		})
	}
}
