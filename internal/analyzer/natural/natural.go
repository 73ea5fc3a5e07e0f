package natural

import (
	"strings"
	"sync"

	"github.com/blevesearch/snowballstem"
	"github.com/blevesearch/snowballstem/english"

	"github.com/memidx/memidx/internal/analyzer"
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
	return stems.stem(tok), true
}

// stemMemo remembers the stems of the words met last: a lookup of a
// stem's forms stems every term that shares its prefix, query after
// query, and a long-lived engine meets the same words again and again.
// It holds at most maxMemo words and starts over when full (a bound, not
// an LRU: the common words come back at once).
type stemMemo struct {
	mu sync.RWMutex
	m  map[string]string
}

const maxMemo = 1 << 16

var stems = stemMemo{m: map[string]string{}}

func (c *stemMemo) stem(word string) string {
	c.mu.RLock()
	s, ok := c.m[word]
	c.mu.RUnlock()
	if ok {
		return s
	}
	return c.add(word)
}

// add stems word and remembers it.
func (c *stemMemo) add(word string) string {
	s := Stem(word)
	// The word may share memory with a larger text: keep a copy, and
	// the copy as the stem when the stem is the word itself.
	k := strings.Clone(word)
	if s == word {
		s = k
	}
	c.mu.Lock()
	if len(c.m) >= maxMemo {
		c.m = make(map[string]string, maxMemo/4)
	}
	c.m[k] = s
	c.mu.Unlock()
	return s
}

// TermOf is Term for a token held in bytes (a key read from an index):
// it allocates only when the token is stemmed for the first time.
func TermOf(tok []byte) (string, bool) {
	if _, stop := stopWords[string(tok)]; stop {
		return "", false
	}
	if len(tok) < 3 || !az(string(tok)) {
		return string(tok), true
	}
	stems.mu.RLock()
	s, ok := stems.m[string(tok)] // no copy of tok to look it up
	stems.mu.RUnlock()
	if ok {
		return s, true
	}
	return stems.add(string(tok)), true
}

// IsForm reports whether tok (a key read from an index) is a form of
// stem: a term whose natural form is stem.
func IsForm(tok []byte, stem string) bool {
	st, ok := TermOf(tok)
	return ok && st == stem
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
func Stemmable(tok string) bool { return len(tok) >= 3 && az(tok) }

// az reports whether s is made of a-z only.
func az(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}

// KeyPrefix starts the key of a stem in an index that keeps a stemmed
// field beside canonical terms (hot shard dictionaries, the archive
// lexicon): no canonical token holds the byte, and structural keys start
// with NUL, so the three share one sorted key space.
const KeyPrefix = "\x01"

// Key returns the index key of stem.
func Key(stem string) string { return KeyPrefix + stem }

// SelfStem reports whether stem is its own natural form: then a term equal
// to stem is one of its forms, and an index that stores a stem's key only
// when its forms are not just the stem itself can answer it from the term.
func SelfStem(stem string) bool {
	t, ok := Term(stem)
	return ok && t == stem
}

// FormPrefix returns a prefix every form of stem starts with, so that a
// sorted vocabulary can list the candidates for a stem's forms. The
// Snowball English stemmer removes suffixes; the stem it leaves differs
// from the start of its word only in a last character it rewrote: an 'e'
// it added ("hoping" → "hope"), an 'i' for a 'y' ("flaky" → "flaki"), a
// 'y' of its exception list ("skies" → "sky"), "bl" for "bil"
// ("capability" → "capabl"); and three exceptional words change two
// ("dying" → "die", "lying" → "lie", "tying" → "tie"). Every other stem is
// a prefix of all its forms. This holds over the 169,000 words of a large
// English word list and every token of the test corpora
// (TestFormPrefix). A stem with a character outside a-z is only ever its
// own form (OwnFormOnly).
func FormPrefix(stem string) string {
	switch {
	case !az(stem) || len(stem) < 2:
		return stem
	case stem == "die" || stem == "lie" || stem == "tie":
		return stem[:1]
	case strings.HasSuffix(stem, "bl"):
		return stem[:len(stem)-1]
	}
	switch stem[len(stem)-1] {
	case 'e', 'i', 'y':
		return stem[:len(stem)-1]
	}
	return stem
}

// OwnFormOnly reports whether an index answers stem by the term stem
// alone: a stem with a character outside a-z, which the stemmer never
// writes, and a stem of one letter, whose other forms are as rare as
// "oed" while a lookup of them would scan every word of its letter. Such
// a stem is looked up exactly, not by FormPrefix, and a hot shard keeps
// no key for it.
func OwnFormOnly(stem string) bool { return len(stem) < 2 || !az(stem) }
