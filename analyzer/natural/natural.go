package natural

import (
	"strings"
	"sync"

	"github.com/blevesearch/snowballstem"
	"github.com/blevesearch/snowballstem/english"

	"github.com/memidx/memidx/analyzer"
)

// Term returns the natural-language form of one canonical token: its
// stem, and false when the token is a stop word (which has no form).
func Term(tok string) (string, bool) {
	if _, stop := stopWords[tok]; stop {
		return "", false
	}
	if !Stemmable(tok) {
		return tok, true
	}
	return Stem(tok), true
}

// Stem returns the Snowball English stem of a lowercase word. It does not
// look at stop words.
func Stem(word string) string {
	env := envPool.Get().(*snowballstem.Env)
	env.SetCurrent(word)
	english.Stem(env)
	s := env.Current()
	envPool.Put(env)
	if s == word {
		return word
	}
	return s
}

var envPool = sync.Pool{New: func() any { return snowballstem.NewEnv("") }}

// IsStop reports whether tok is an English stop word.
func IsStop(tok string) bool {
	_, ok := stopWords[tok]
	return ok
}

// Terms returns the natural-language terms of text: its canonical tokens
// less stop words, stemmed, in order and with duplicates.
func Terms(text string) []string {
	var out []string
	analyzer.Each(text, func(tok string) {
		if t, ok := Term(tok); ok {
			out = append(out, strings.Clone(t))
		}
	})
	return out
}

// Stemmable reports whether tok is a word the English stemmer is for: at
// least three letters, all a-z.
func Stemmable(tok string) bool {
	if len(tok) < 3 {
		return false
	}
	for i := 0; i < len(tok); i++ {
		if c := tok[i]; c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}
