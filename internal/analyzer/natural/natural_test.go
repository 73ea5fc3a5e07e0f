package natural

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/internal/analyzer"
)

func TestTerms(t *testing.T) {
	tests := []struct {
		text string
		want []string
	}{
		{"When did the deploys start timing out?", []string{"deploy", "start", "time"}},
		{"how do we publish the package?", []string{"publish", "packag"}},
		{"Published, publishing: PUBLISHES", []string{"publish", "publish", "publish"}},
		{"which version of bleve did we pin? v2.6.3", []string{"version", "bleve", "pin", "v2", "6", "3"}},
		{"parse_config TestReconcileBatch E402 café", []string{"parse_config", "testreconcilebatch", "e402", "café"}},
		{"the a an of", nil},
		{"", nil},
		{"timed out timeouts", []string{"time", "timeout"}},
		{"go js ok", []string{"go", "js", "ok"}},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, Terms(tt.text), "%q", tt.text)
	}
}

func TestTerm(t *testing.T) {
	for _, stop := range []string{"did", "when", "her", "the", "how", "what", "was"} {
		_, ok := Term(stop)
		assert.False(t, ok, stop)
		assert.True(t, IsStop(stop), stop)
	}
	for tok, want := range map[string]string{
		"migrations": "migrat", "migrated": "migrat", "running": "run",
		"flaky": "flaki", "x86_64": "x86_64", "42": "42", "ünïcode": "ünïcode",
	} {
		got, ok := Term(tok)
		assert.True(t, ok, tok)
		assert.Equal(t, want, got, tok)
	}
}

func BenchmarkTerm(b *testing.B) {
	words := []string{"deployment", "timing", "the", "migrations", "parse_config", "v2", "publishing", "reconcile"}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		Term(words[i%len(words)])
	}
}

// TestFormPrefix checks FormPrefix over every token of the project's own
// session fixtures and of the real sessions beside the project, when
// present.
func TestFormPrefix(t *testing.T) {
	var files []string
	for _, glob := range []string{"../../../testdata/*/*.jsonl", "../../../testdata/*/*/*/*.jsonl", "../../../testdata/*/*/*/*/*.jsonl", "../../../../shared/testdata/real/*.jsonl", "../../../../shared/bench/omp-membench/sessions/*.jsonl"} {
		m, _ := filepath.Glob(glob)
		files = append(files, m...)
	}
	if len(files) < 5 {
		t.Fatalf("found only %d session files", len(files))
	}
	seen := map[string]bool{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		for _, tok := range analyzer.Tokens(string(b)) {
			if seen[tok] {
				continue
			}
			seen[tok] = true
			if st, ok := Term(tok); ok {
				assert.True(t, strings.HasPrefix(tok, FormPrefix(st)), "%q stems to %q", tok, st)
			}
		}
	}
	t.Logf("%d distinct tokens of %d files", len(seen), len(files))
	for tok, st := range map[string]string{"dying": "die", "ability": "abil", "skies": "sky", "hoping": "hope", "flaky": "flaki"} {
		got, _ := Term(tok)
		assert.Equal(t, st, got)
		assert.True(t, strings.HasPrefix(tok, FormPrefix(st)), tok)
	}
}

// TestFormPrefixSuffixes builds words from the suffixes the stemmer
// rewrites, in random chains, and checks FormPrefix on each: the
// stemmer's rules, not only the corpora's words.
func TestFormPrefixSuffixes(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	parts := []string{"a", "e", "i", "o", "u", "y", "b", "c", "d", "g", "l", "n", "r", "s", "t", "z",
		"ing", "ed", "ies", "ied", "eed", "ly", "ational", "tional", "enci", "anci", "abli", "ization",
		"ation", "ator", "alism", "aliti", "alli", "fulness", "ousli", "iveness", "iviti", "biliti", "bli",
		"ogi", "li", "icate", "ative", "alize", "ness", "ful", "ement", "ment", "ent", "ism", "ible", "able",
		"ive", "ize", "ous", "ate", "iti", "ic", "er", "ance", "ence", "al", "ant", "ion", "sses", "us", "ss",
		"eedly", "edly", "ingly", "at", "bl", "iz", "yy", "ll", "sky", "ski", "dy", "ty"}
	n := 200_000
	if testing.Short() {
		n = 20_000
	}
	for range n {
		var b strings.Builder
		for range 1 + r.IntN(4) {
			b.WriteString(parts[r.IntN(len(parts))])
		}
		tok := b.String()
		if st, ok := Term(tok); ok && !strings.HasPrefix(tok, FormPrefix(st)) {
			t.Fatalf("%q stems to %q, which FormPrefix %q misses", tok, st, FormPrefix(st))
		}
	}
}
