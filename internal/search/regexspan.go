package search

import (
	"regexp/syntax"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/memidx/memidx/internal/analyzer"
)

// A cold session is matched one vocabulary term at a time, as the
// reference does. That is exact only for a token-local pattern: one whose
// every match is a non-empty run of token characters (package analyzer),
// so that a match in an entry's text lies inside one token, whose term
// the pattern then matches too. Anchors keep that: ^, \A and (?m)^ can
// hold inside such a match only where a token starts, $, \z and (?m)$
// only where one ends, and \b, \B read the same characters in the term
// (Go's \b knows ASCII word characters only, all of them token
// characters). Any other pattern (., \s, \W, punctuation, a pattern that
// matches the empty string) can match across a token boundary: a cold
// session is then a candidate unless its vocabulary rules it out, and the
// answer says it must be followed (cold_regex_requires_hydration).

// regexSpan is what the vocabulary can decide of a pattern.
type regexSpan struct {
	// local: the pattern is token-local; a vocabulary that no term
	// matches rules the session out.
	local bool
	// needs are lowercase ASCII strings every match holds inside one
	// token: a vocabulary in whose terms one is missing rules the session
	// out even when the pattern spans tokens.
	needs []string
}

// Bounds of the analysis; past them it answers less, never wrongly.
const (
	// maxClassRunes bounds the runes of character classes checked one by
	// one; a pattern whose classes hold more counts as spanning tokens.
	maxClassRunes = 1 << 21
	// maxNeeds bounds the strings a vocabulary is checked for (the
	// longest, which rule out most).
	maxNeeds = 8
)

// spanOf analyses the Go expression a regex query compiled.
func spanOf(expr string) regexSpan {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return regexSpan{} // compiled already; spanning is the safe answer
	}
	budget := maxClassRunes
	sp := regexSpan{local: !nullable(re) && tokenChars(re, &budget)}
	if !sp.local {
		sp.needs = needs(re, nil)
		slices.SortFunc(sp.needs, func(a, b string) int {
			if len(a) != len(b) {
				return len(b) - len(a)
			}
			return strings.Compare(a, b)
		})
		sp.needs = slices.Compact(sp.needs)
		sp.needs = sp.needs[:min(len(sp.needs), maxNeeds)]
	}
	return sp
}

// nullable reports whether re can match the empty string.
func nullable(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpLiteral, syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL, syntax.OpNoMatch:
		return false
	case syntax.OpCapture, syntax.OpPlus:
		return nullable(re.Sub[0])
	case syntax.OpRepeat:
		return re.Min == 0 || nullable(re.Sub[0])
	case syntax.OpConcat:
		for _, s := range re.Sub {
			if !nullable(s) {
				return false
			}
		}
		return true
	case syntax.OpAlternate:
		return slices.ContainsFunc(re.Sub, nullable)
	}
	return true // empty match, star, quest, anchors and boundaries
}

// tokenChars reports whether every character re can consume is a token
// character; budget bounds the class runes checked.
func tokenChars(re *syntax.Regexp, budget *int) bool {
	switch re.Op {
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			if !foldsToWords(r, re.Flags&syntax.FoldCase != 0) {
				return false
			}
		}
		return true
	case syntax.OpCharClass:
		return classOfWords(re.Rune, budget)
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return false
	}
	for _, s := range re.Sub {
		if !tokenChars(s, budget) {
			return false
		}
	}
	return true // the zero-width ops have no Sub
}

// foldsToWords reports whether r, and with fold every rune it folds to, is
// a token character.
func foldsToWords(r rune, fold bool) bool {
	if !analyzer.IsWordRune(r) {
		return false
	}
	for f := unicode.SimpleFold(r); fold && f != r; f = unicode.SimpleFold(f) {
		if !analyzer.IsWordRune(f) {
			return false
		}
	}
	return true
}

// classOfWords reports whether every rune of the class's ranges (pairs
// lo, hi; the parser has added the case variants) is a token character.
func classOfWords(ranges []rune, budget *int) bool {
	for i := 0; i+1 < len(ranges); i += 2 {
		for r := ranges[i]; r <= ranges[i+1]; r++ {
			if *budget--; *budget < 0 || !analyzer.IsWordRune(r) {
				return false
			}
		}
	}
	return true
}

// needs appends the lowercase ASCII strings every match of re holds
// inside one token: from each literal that every match goes through, its
// runs of ASCII token characters. A run's last character is left out
// unless the literal goes on with an ASCII character: a combining mark
// after it in the text would compose with it (e + U+0301 is é in the
// term).
func needs(re *syntax.Regexp, out []string) []string {
	switch re.Op {
	case syntax.OpLiteral:
		return asciiRuns(re.Rune, out)
	case syntax.OpCapture, syntax.OpPlus:
		return needs(re.Sub[0], out)
	case syntax.OpRepeat:
		if re.Min > 0 {
			return needs(re.Sub[0], out)
		}
	case syntax.OpConcat:
		for _, s := range re.Sub {
			out = needs(s, out)
		}
	}
	return out
}

// asciiRuns appends the runs of ASCII token characters of a literal (see
// needs).
func asciiRuns(lit []rune, out []string) []string {
	start := -1
	for i := 0; i <= len(lit); i++ {
		if i < len(lit) && lit[i] < utf8.RuneSelf && analyzer.IsWordRune(lit[i]) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start < 0 {
			continue
		}
		end := i
		if i == len(lit) || lit[i] >= utf8.RuneSelf {
			end-- // what follows may compose with the run's last character
		}
		if end > start {
			out = append(out, strings.ToLower(string(lit[start:end])))
		}
		start = -1
	}
	return out
}
