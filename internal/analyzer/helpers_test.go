package analyzer

import (
	"math/rand/v2"
	"unicode/utf8"
	"unsafe"
)

func unsafeStringData(s string) *byte { return unsafe.StringData(s) }

func newTestRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, 1)) }

// referenceTokens is the tokenizer written as plainly as possible: the
// whole text normalized at once, split rune by rune, each run lowercased.
func referenceTokens(text string) []string {
	n := Normalize(text)
	var out []string
	start := -1
	for i, r := range n + " " {
		word := r != utf8.RuneError && isWordSlow(r)
		switch {
		case word && start < 0:
			start = i
		case !word && start >= 0:
			out = append(out, Lower(n[start:i]))
			start = -1
		}
	}
	return out
}

// withChunkSize runs f with the scanner's chunk size set to n.
func withChunkSize(n int, f func()) {
	old := chunkSize
	chunkSize = n
	defer func() { chunkSize = old }()
	f()
}
