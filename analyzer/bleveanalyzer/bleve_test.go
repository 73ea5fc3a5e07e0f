package bleveanalyzer

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/registry"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/internal/analyzer"
	"github.com/memidx/memidx/internal/analyzer/natural"
)

var bleveInputs = []string{
	"CAFÉ café Ωmega雪 snake_case 42",
	"",
	"ΌΣΟΣ Σ ΑΣ's",
	"İstanbul ﬁx ＡＢＣ１２３ ① x²",
	"e\u0301 x\u0301y नमस्ते 한국어 ㄱㅏ",
	"👨‍👩‍👧 a\u200db a\x00b ab\xffcd",
	"\U00016D63\U00016D67\U00016D67 \U0001CCF4",
	"The Quick Brown Fox, jumps over THE lazy dog -- 3.14 times!",
}

func terms(ts analysis.TokenStream) []string {
	var out []string
	for _, t := range ts {
		out = append(out, string(t.Term))
	}
	return out
}

func TestBleveAnalyzer(t *testing.T) {
	m := bleve.NewIndexMapping()
	require.NotNil(t, m.AnalyzerNamed(Name), "analyzer %q is registered", Name)
	for _, in := range append(bleveInputs, randomInputs(200)...) {
		ts, err := m.AnalyzeText(Name, []byte(in))
		require.NoError(t, err)
		assert.Equal(t, analyzer.Tokens(in), terms(ts), "input %q", in)

		norm := analyzer.Normalize(in)
		for i, tok := range ts {
			assert.Equal(t, i+1, tok.Position, "positions are 1-based and consecutive")
			assert.Equal(t, string(tok.Term), analyzer.Lower(norm[tok.Start:tok.End]), "offsets refer to the normalized text")
		}
	}
}

func TestBleveTokenizer(t *testing.T) {
	ts := BleveTokenizer{}.Tokenize([]byte("Hello 42 雪 ﬁne"))
	require.Len(t, ts, 4)
	assert.Equal(t, []string{"hello", "42", "雪", "fine"}, terms(ts))
	assert.Equal(t, analysis.AlphaNumeric, ts[0].Type)
	assert.Equal(t, analysis.Numeric, ts[1].Type)
	assert.Equal(t, analysis.Ideographic, ts[2].Type)
	assert.Equal(t, [2]int{0, 5}, [2]int{ts[0].Start, ts[0].End})
	// Terms are independent slices: a filter may change one in place.
	ts[0].Term[0] = 'J'
	ts[0].Term = append(ts[0].Term, '!')
	assert.Equal(t, "42", string(ts[1].Term))
	assert.Empty(t, BleveTokenizer{}.Tokenize(nil))
}

func TestBleveIndex(t *testing.T) {
	m := bleve.NewIndexMapping()
	m.DefaultAnalyzer = Name
	idx, err := bleve.NewMemOnly(m)
	require.NoError(t, err)
	defer idx.Close()
	require.NoError(t, idx.Index("d1", map[string]any{"body": "ΌΣΟΣ ＣＡＦÉ İstanbul"}))
	for _, q := range []string{"όσος", "café", "i\u0307stanbul"} {
		res, err := idx.Search(bleve.NewSearchRequest(bleve.NewTermQuery(q)))
		require.NoError(t, err)
		assert.EqualValues(t, 1, res.Total, "term %q", q)
	}
	res, err := idx.Search(bleve.NewSearchRequest(bleve.NewMatchQuery("CAFE\u0301")))
	require.NoError(t, err)
	assert.EqualValues(t, 1, res.Total, "match queries use the same analyzer")
}

// randomInputs mixes code points from every plane, combining marks and
// everyday words, deterministically.
func randomInputs(n int) []string {
	rng := rand.New(rand.NewPCG(7, 1))
	pieces := []string{"Hello", " ", "ΣΑΣ", "İstanbul", "ﬁne", "１２３", "snake_case", "雪", "…", "\n", "e\u0301", "😀"}
	out := make([]string, n)
	for i := range out {
		var b strings.Builder
		for k := 1 + rng.IntN(20); k > 0; k-- {
			if rng.IntN(4) == 0 {
				r := rune(rng.IntN(0x30000))
				if r >= 0xd800 && r <= 0xdfff {
					r = 'x'
				}
				b.WriteRune(r)
			} else {
				b.WriteString(pieces[rng.IntN(len(pieces))])
			}
		}
		out[i] = b.String()
	}
	return out
}

// TestNaturalMatchesBleve holds package natural's analysis equal to the
// bleve analyzer built from bleve's own stop and stem filters.
func TestNaturalMatchesBleve(t *testing.T) {
	a, err := registry.NewCache().AnalyzerNamed(NaturalName)
	require.NoError(t, err)
	inputs := append([]string{
		"When did the deploys start timing out? How do we publish the package?",
		"Which version of bleve did we pin: v2.6.3, parse_config, E402, x86_64, café, naïve",
		"I'm sure they'd've known: isn't it? the THE The ours yourselves",
		"generously generalization running runs ran dying lying skies news",
	}, bleveInputs...)
	r := rand.New(rand.NewPCG(7, 11))
	words := strings.Fields(natural.StopWordText() + " deploy deployment timeouts published migrations flaky v1 42 the_end ÉTÉ")
	for range 500 {
		var b strings.Builder
		for range 1 + r.IntN(12) {
			b.WriteString(words[r.IntN(len(words))])
			b.WriteString([]string{" ", ", ", "'", "-", "\n"}[r.IntN(5)])
		}
		inputs = append(inputs, b.String())
	}
	for _, in := range inputs {
		var got []string
		for _, tok := range a.Analyze([]byte(in)) {
			got = append(got, string(tok.Term))
		}
		assert.Equal(t, natural.Terms(in), got, "%q", in)
	}
}

// TestNaturalStopWordsAreBleves compares the stop-word sets.
func TestNaturalStopWordsAreBleves(t *testing.T) {
	m := analysis.NewTokenMap()
	require.NoError(t, m.LoadBytes(en.EnglishStopWords))
	for w := range m {
		assert.True(t, natural.IsStop(w), "bleve's stop word %q", w)
	}
	for _, w := range strings.Fields(natural.StopWordText()) {
		assert.True(t, m[w], "%q is not a stop word of bleve's", w)
	}
}
