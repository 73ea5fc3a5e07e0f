package hotbm25

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/internal/analyzer"
	"github.com/memidx/memidx/internal/analyzer/natural"
	"github.com/memidx/memidx/internal/normalize"
)

// stemModel is the stemmed field computed the slow way: for each entry,
// the natural forms of its tokens counted.
func stemModel(entries []normalize.Entry, stem string) map[uint32]uint32 {
	out := map[uint32]uint32{}
	for i := range entries {
		for _, tok := range analyzer.Tokens(entries[i].IndexText()) {
			if st, ok := natural.Term(tok); ok && st == stem {
				out[uint32(i)]++
			}
		}
	}
	return out
}

func postingMap(p Postings) map[uint32]uint32 {
	out := map[uint32]uint32{}
	for {
		e, tf, ok := p.Next()
		if !ok {
			return out
		}
		out[e] = tf
	}
}

func TestStemmedField(t *testing.T) {
	words := []string{
		"deploy", "deploys", "deployed", "deployment", "deployments", "timeout", "timeouts",
		"timed", "time", "timing", "publish", "published", "publishing", "the", "did", "when",
		"packag", "package", "packages", "run", "running", "ran", "v2", "42", "parse_config",
		"flaky", "flaki", "generous", "generously", "was", "doing", "café", "news", "sky", "skies",
	}
	r := rand.New(rand.NewPCG(3, 5))
	entries := make([]normalize.Entry, 40)
	for i := range entries {
		var b strings.Builder
		for range 1 + r.IntN(10) {
			b.WriteString(words[r.IntN(len(words))] + " ")
		}
		entries[i] = normalize.Entry{Index: i, Type: "message", Role: sp("user"), Text: b.String()}
	}
	built, err := Build(entries)
	require.NoError(t, err)
	s, err := built.Open()
	require.NoError(t, err)
	stems := map[string]bool{}
	for _, w := range words {
		if st, ok := natural.Term(w); ok {
			stems[st] = true
		}
		stems[w] = true // a query stem that is some other term's surface
	}
	for st := range stems {
		want := stemModel(entries, st)
		got := postingMap(s.Postings(natural.Key(st)))
		assert.Equal(t, want, got, "stem %q", st)
		assert.Equal(t, len(want), s.Postings(natural.Key(st)).Count(), "stem %q", st)
	}
	// The canonical field is unchanged.
	for _, w := range words {
		n := 0
		for i := range entries {
			for _, tok := range analyzer.Tokens(entries[i].Text) {
				if tok == w {
					n++
				}
			}
		}
		total := 0
		for _, tf := range postingMap(s.Postings(w)) {
			total += int(tf)
		}
		assert.Equal(t, n, total, "term %q", w)
	}
}

func TestStemKeysOnlyWhereFormsDiffer(t *testing.T) {
	entries := []normalize.Entry{
		{Index: 0, Type: "message", Role: sp("user"), Text: "deploy v2 the"},
		{Index: 1, Type: "message", Role: sp("user"), Text: "deployment timeout"},
	}
	built, err := Build(entries)
	require.NoError(t, err)
	s, err := built.Open()
	require.NoError(t, err)
	var keys []string
	for i := range s.Terms().Len() {
		if k := string(s.Terms().Term(i)); strings.HasPrefix(k, natural.KeyPrefix) {
			keys = append(keys, fmt.Sprintf("%q", k))
		}
	}
	assert.Equal(t, []string{`"\x01deploy"`}, keys, "deploy has two forms; timeout and v2 are their own")
}
