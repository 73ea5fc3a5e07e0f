package engine

import (
	"unicode/utf8"

	"github.com/memidx/memidx/internal/jsjson"
)

// makeSnippet cuts text to at most max UTF-16 code units (as a JavaScript
// host counts), keeping the anchor (a byte offset) a third of the way in,
// never splitting a character, and marking cuts with "…" (counted in max).
func makeSnippet(text string, anchor, max int) (string, bool) {
	total := jsjson.UTF16Len(text)
	if total <= max {
		return text, false
	}
	if max < 3 {
		max = 3
	}
	budget := max - 2 // room for a leading and a trailing ellipsis
	a := jsjson.UTF16Len(text[:clampBoundary(text, anchor)])
	start := a - budget/3
	if start < 0 {
		start = 0
	}
	end := start + budget
	if end > total {
		end = total
		start = end - budget
		if start < 0 {
			start = 0
		}
	}
	bs, be := unitsToBytes(text, start, end)
	out := text[bs:be]
	if bs > 0 {
		out = "…" + out
	}
	if be < len(text) {
		out += "…"
	}
	return out, true
}

// clampBoundary moves off back to a rune boundary within text.
func clampBoundary(text string, off int) int {
	if off > len(text) {
		off = len(text)
	}
	for off > 0 && off < len(text) && !utf8.RuneStart(text[off]) {
		off--
	}
	return off
}

// unitsToBytes converts a UTF-16 unit range to byte offsets, moving the
// start forward and the end backward to whole characters.
func unitsToBytes(text string, start, end int) (int, int) {
	u := 0
	bs, be := -1, len(text)
	for i, r := range text {
		w := 1
		if r >= 0x10000 {
			w = 2
		}
		if bs < 0 && u >= start {
			bs = i
		}
		if u+w > end {
			be = i
			break
		}
		u += w
	}
	if bs < 0 {
		bs = len(text)
	}
	if be < bs {
		be = bs
	}
	return bs, be
}

// boundString bounds a metadata string to max UTF-16 units: max-1 units
// plus "…", as the reference bounds hit metadata.
func boundString(s string, max int) string {
	if jsjson.UTF16Len(s) <= max {
		return s
	}
	_, be := unitsToBytes(s, 0, max-1)
	return s[:be] + "…"
}
