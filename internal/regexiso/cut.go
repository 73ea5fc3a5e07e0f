package regexiso

import (
	"context"
	"regexp"
	"regexp/syntax"
	"unicode"
)

// A haystack may be the head of a longer text that was cut (a hot entry
// bounded by maxEntryChars). A match found in the head is a match of the
// whole text only if it does not depend on what follows the cut: $ and \z
// must not match at the cut, since the text goes on, and neither may a
// multi-line $, \b or \B that would look at the character after it.
//
// cutMatcher answers exactly that. The head is fed to the matcher followed
// by a sentinel rune, one past the last Unicode code point, which no
// character class, literal or any-character of the rewritten program can
// consume (. and [^…] are rewritten into classes over the code points), and
// whose end-of-text, newline and word tests all read false. A match that
// starts at or before the sentinel therefore ends before it, and every
// assertion it evaluated at the cut saw a character that is not the end of
// the text, as the real text has one there. For patterns that look past a
// position (multi-line $, \b, \B), whose answer at the cut depends on the
// unknown next character, the head is first shortened to end just before
// its last character that is neither a word character nor a newline, so
// that the character after the shortened head is known and agrees with the
// sentinel on every test. A match dropped that way is a miss, never a false
// match; the caller already reports the cut as incomplete coverage.
type cutMatcher struct {
	re *regexp.Regexp
	// lookahead: the pattern has a multi-line $, \b or \B.
	lookahead bool
}

// sentinel is the rune fed after a cut head: no UTF-8 text decodes to it.
const sentinel = unicode.MaxRune + 1

// cutVariant returns the matcher for cut haystacks, or nil when the pattern
// has no assertion that can look past a position (then matching the head
// as it is is exact: every character a match consumes lies in the head).
func cutVariant(tree *syntax.Regexp) (*cutMatcher, error) {
	endText, lookahead := false, false
	var scan func(re *syntax.Regexp)
	scan = func(re *syntax.Regexp) {
		switch re.Op {
		case syntax.OpEndText:
			endText = true
		case syntax.OpEndLine, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
			lookahead = true
		}
		for _, s := range re.Sub {
			scan(s)
		}
	}
	scan(tree)
	if !endText && !lookahead {
		return nil, nil
	}
	re, err := regexp.Compile(rewriteAny(tree).String())
	if err != nil {
		return nil, err
	}
	return &cutMatcher{re: re, lookahead: lookahead}, nil
}

// rewriteAny returns a copy of re in which . and (?s). are classes that
// never consume the sentinel. Go compiles the classes [\x00-\x{10FFFF}] and
// [^\n] into "any rune" instructions, which would take it; the classes here
// leave out the surrogates instead, which Go's decoder never yields (it
// reads a surrogate's bytes as U+FFFD), so they still match every
// character of a text.
func rewriteAny(re *syntax.Regexp) *syntax.Regexp {
	c := *re
	switch re.Op {
	case syntax.OpAnyChar:
		c.Op, c.Rune, c.Sub = syntax.OpCharClass, []rune{0, 0xD7FF, 0xE000, unicode.MaxRune}, nil
		c.Flags &^= syntax.FoldCase
		return &c
	case syntax.OpAnyCharNotNL:
		c.Op, c.Rune, c.Sub = syntax.OpCharClass, []rune{0, '\n' - 1, '\n' + 1, 0xD7FF, 0xE000, unicode.MaxRune}, nil
		c.Flags &^= syntax.FoldCase
		return &c
	}
	if len(re.Sub) > 0 {
		c.Sub = make([]*syntax.Regexp, len(re.Sub))
		for i, s := range re.Sub {
			c.Sub[i] = rewriteAny(s)
		}
	}
	return &c
}

// cutHead is where a cut haystack's head ends for the matcher: the whole
// item, or for a lookahead pattern the start of its last character that is
// neither an ASCII word character (\b's definition) nor a newline; -1 when
// it has none (nothing in it can be shown to match).
func (c *cutMatcher) cutHead(item string) int {
	if !c.lookahead {
		return len(item)
	}
	for i := len(item) - 1; i >= 0; i-- {
		b := item[i]
		if b >= 0x80 {
			if b >= 0xC0 {
				return i // the first byte of a non-ASCII character
			}
			continue // a continuation byte
		}
		if b != '\n' && !syntax.IsWordChar(rune(b)) {
			return i
		}
	}
	return -1
}

// matchCut reports whether item, the head of a longer text, holds a match
// of the whole text (see cutMatcher). stopped means the deadline ended the
// search first and matched means nothing.
func (r *Regexp) matchCut(item string, dl *deadline) (matched, stopped bool) {
	if r.cut == nil {
		return r.match(item, dl, dl.remaining())
	}
	_, _, ok, stopped := r.firstCut(item, dl)
	return ok, stopped
}

// firstCut finds the leftmost match in the head item that is a match of
// the whole text.
func (r *Regexp) firstCut(item string, dl *deadline) (start, end int, ok, stopped bool) {
	find := func(q int) []int {
		in := r.reader(item[:q], dl)
		in.sentinel = true
		loc := r.cut.re.FindReaderIndex(in)
		if in.stopped {
			stopped = true
			return nil
		}
		if loc == nil || loc[0] > q {
			return nil
		}
		return loc
	}
	loc := find(len(item))
	if stopped || loc == nil {
		return 0, 0, false, stopped
	}
	if !r.cut.lookahead || loc[1] < len(item) {
		// No assertion of this match looked past the head, or none
		// could tell the sentinel from the real next character.
		return loc[0], loc[1], true, false
	}
	// The match ends at the cut, where a lookahead assertion may have
	// read the sentinel: try again on a head whose next character is known.
	q := r.cut.cutHead(item)
	if q < 0 {
		return 0, 0, false, false
	}
	if loc = find(q); loc == nil {
		return 0, 0, false, stopped
	}
	return loc[0], loc[1], true, false
}

// FirstMatchCutContext is FirstMatchContext for the head of a longer text:
// the leftmost match that is a match of the whole text (see Run.AddCut).
func (r *Regexp) FirstMatchCutContext(ctx context.Context, s string) (start, end int, ok bool) {
	if r.cut == nil {
		return r.FirstMatchContext(ctx, s)
	}
	dl := newDeadline(ctx, r.lim.Timeout)
	start, end, ok, _ = r.firstCut(s, &dl)
	return start, end, ok
}
