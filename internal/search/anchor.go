package search

import (
	"golang.org/x/text/unicode/norm"

	"github.com/memidx/memidx/internal/analyzer"
)

// anchorOf returns the byte offset in text of the first occurrence of the
// longest query term it contains, on token boundaries, or 0. Offsets found
// on the NFKC form are mapped back to text, so a ligature or a fullwidth
// form before the match cannot move the window off it.
func anchorOf(text string, want func(tok string) bool) int {
	if want == nil || text == "" {
		return 0
	}
	best, bestLen := -1, 0
	var normToOrig func(int) int
	if norm.NFKC.IsNormalString(text) {
		normToOrig = func(i int) int { return i }
	} else {
		normToOrig = segmentMap(text)
	}
	analyzer.EachSpan(text, func(tok string, start, end int) {
		if len(tok) > bestLen && want(tok) {
			best, bestLen = start, len(tok)
		}
	})
	if best < 0 {
		return 0
	}
	return normToOrig(best)
}

// segmentMap maps byte offsets of the NFKC form of text back to offsets in
// text, at normalization-segment granularity.
func segmentMap(text string) func(int) int {
	var it norm.Iter
	it.InitString(norm.NFKC, text)
	var normStarts, origStarts []int
	n := 0
	for !it.Done() {
		origStart := it.Pos()
		seg := it.Next()
		normStarts = append(normStarts, n)
		origStarts = append(origStarts, origStart)
		n += len(seg)
	}
	return func(off int) int {
		// The last segment that starts at or before off.
		lo, hi := 0, len(normStarts)
		for lo < hi {
			m := (lo + hi) / 2
			if normStarts[m] <= off {
				lo = m + 1
			} else {
				hi = m
			}
		}
		if lo == 0 {
			return 0
		}
		return origStarts[lo-1]
	}
}
