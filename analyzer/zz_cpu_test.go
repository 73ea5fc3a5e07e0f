package analyzer

import (
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"
)

func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func TestZZCPU(t *testing.T) {
	texts := []struct{ name, text string }{
		{"ascii-transcript", benchText(1<<20, transcriptWords)},
		{"ascii-lowercase", strings.ToLower(benchText(1<<20, transcriptWords))},
		{"transcript-typographic", benchText(1<<20, transcriptWordsTypo)},
		{"european", benchText(1<<20, europeanWords)},
		{"multilingual", benchText(1<<20, multilingualWords)},
		{"unnormalized", benchText(1<<20, unnormalizedWords)},
	}
	dst := make([]string, 0, 1<<18)
	for _, x := range texts {
		best := 0.0
		for round := 0; round < 5; round++ {
			c0 := cpuTime()
			n := 0
			for cpuTime()-c0 < 300*time.Millisecond {
				dst = AppendTokens(dst[:0], x.text)
				n++
			}
			el := cpuTime() - c0
			mbs := float64(len(x.text)) * float64(n) / el.Seconds() / 1e6
			if mbs > best {
				best = mbs
			}
		}
		fmt.Printf("%-24s %8.1f MB/s (CPU time)\n", x.name, best)
	}
}
