package bleveanalyzer

import (
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/registry"

	"github.com/memidx/memidx/internal/analyzer"
	"github.com/memidx/memidx/internal/analyzer/natural"
)

// Name is the name under which this package registers, in bleve's registry,
// both its tokenizer and an analyzer made of that tokenizer alone (no char
// filters, no token filters: the tokenizer already normalizes and
// lowercases). Use it in an index mapping as the analyzer of a field, or
// via mapping.AnalyzeText(Name, text).
const Name = "memidx_canonical"

// NaturalName is the name of the natural-language analyzer (package
// natural's analysis): the canonical tokenizer, bleve's English stop-word
// filter ("stop_en") and bleve's Snowball English stemmer
// ("stemmer_en_snowball") applied to words only (WordStemName).
const NaturalName = "memidx_natural"

// WordStemName is the token filter that hands bleve's Snowball English
// stemmer the tokens natural.Stemmable accepts and keeps the others whole
// (numbers, identifiers, other scripts).
const WordStemName = "memidx_word_stem"

// BleveTokenizer is a bleve analysis.Tokenizer producing exactly the tokens
// of analyzer.Tokens.
//
// Token.Start and Token.End are byte offsets in the NFKC-normalized input
// (see analyzer.EachSpan), which is the input itself when it is already normalized,
// as all ASCII input is. Token.Position is 1-based and counts every token.
// Token.Term is a fresh byte slice that the caller may modify.
type BleveTokenizer struct{}

// Tokenize implements analysis.Tokenizer.
func (BleveTokenizer) Tokenize(input []byte) analysis.TokenStream {
	type span struct{ start, end, off int }
	var (
		spans []span
		terms []byte
	)
	analyzer.EachSpan(string(input), func(tok string, start, end int) {
		spans = append(spans, span{start, end, len(terms)})
		terms = append(terms, tok...)
	})
	tokens := make([]analysis.Token, len(spans))
	stream := make(analysis.TokenStream, len(spans))
	for i, sp := range spans {
		stop := len(terms)
		if i+1 < len(spans) {
			stop = spans[i+1].off
		}
		term := terms[sp.off:stop:stop]
		tokens[i] = analysis.Token{
			Start:    sp.start,
			End:      sp.end,
			Term:     term,
			Position: i + 1,
			Type:     tokenType(term),
		}
		stream[i] = &tokens[i]
	}
	return stream
}

// tokenType is Numeric for a token of numbers only, Ideographic for one with
// a Han, Hiragana or Katakana character, AlphaNumeric otherwise.
func tokenType(term []byte) analysis.TokenType {
	numeric := true
	for i := 0; i < len(term); {
		r, size := utf8.DecodeRune(term[i:])
		i += size
		if r < utf8.RuneSelf {
			if r < '0' || r > '9' {
				numeric = false
			}
			continue
		}
		if unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana) {
			return analysis.Ideographic
		}
		if !unicode.IsNumber(r) {
			numeric = false
		}
	}
	if numeric {
		return analysis.Numeric
	}
	return analysis.AlphaNumeric
}

func init() {
	err := registry.RegisterTokenizer(Name, func(map[string]interface{}, *registry.Cache) (analysis.Tokenizer, error) {
		return BleveTokenizer{}, nil
	})
	if err != nil {
		panic(err)
	}
	err = registry.RegisterAnalyzer(Name, func(_ map[string]interface{}, cache *registry.Cache) (analysis.Analyzer, error) {
		tok, err := cache.TokenizerNamed(Name)
		if err != nil {
			return nil, err
		}
		return &analysis.DefaultAnalyzer{Tokenizer: tok}, nil
	})
	if err != nil {
		panic(err)
	}
	err = registry.RegisterTokenFilter(WordStemName, func(_ map[string]interface{}, cache *registry.Cache) (analysis.TokenFilter, error) {
		stem, err := cache.TokenFilterNamed(en.SnowballStemmerName)
		if err != nil {
			return nil, err
		}
		return wordStem{stem}, nil
	})
	if err != nil {
		panic(err)
	}
	err = registry.RegisterAnalyzer(NaturalName, newNaturalAnalyzer)
	if err != nil {
		panic(err)
	}
}

func newNaturalAnalyzer(_ map[string]interface{}, cache *registry.Cache) (analysis.Analyzer, error) {
	tok, err := cache.TokenizerNamed(Name)
	if err != nil {
		return nil, err
	}
	var filters []analysis.TokenFilter
	for _, name := range []string{en.StopName, WordStemName} {
		f, err := cache.TokenFilterNamed(name)
		if err != nil {
			return nil, err
		}
		filters = append(filters, f)
	}
	return &analysis.DefaultAnalyzer{Tokenizer: tok, TokenFilters: filters}, nil
}

// wordStem runs stem over the tokens that are words (natural.Stemmable).
type wordStem struct{ stem analysis.TokenFilter }

func (w wordStem) Filter(input analysis.TokenStream) analysis.TokenStream {
	for _, t := range input {
		if natural.Stemmable(string(t.Term)) {
			w.stem.Filter(analysis.TokenStream{t})
		}
	}
	return input
}
