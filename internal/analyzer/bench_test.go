package analyzer

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// benchText builds about size bytes of text from words, deterministically.
func benchText(size int, words []string) string {
	rng := rand.New(rand.NewPCG(42, 42))
	var b strings.Builder
	for b.Len() < size {
		b.WriteString(words[rng.IntN(len(words))])
		switch rng.IntN(12) {
		case 0:
			b.WriteString(". ")
		case 1:
			b.WriteString(", ")
		case 2:
			b.WriteByte('\n')
		default:
			b.WriteByte(' ')
		}
	}
	return b.String()
}

// transcriptWords look like what memidx indexes: coding-assistant session
// transcripts, English prose with code, paths, numbers and JSON.
var transcriptWords = strings.Fields(`The the I I'll Let me check the file first and then run tests
	go test ./... -race func main() { return nil } err != nil if
	internal/session/parser.go:142 TODO FIXME http://localhost:8080/api/v1
	"type":"assistant","content":[{"text": 0x7fff 3.14159 2024-06-11T10:22:33Z
	snake_case_name CamelCaseName HTTPServer JSONDecoder userID
	should would could because however therefore The function returns an error when the input is empty
	README.md Makefile package import fmt.Println strings.Builder []byte map[string]int
	OK Done. Fixed! Running 12 tests... PASS FAIL ok`)

// Real transcripts carry some typographic punctuation.
var transcriptWordsTypo = append(append([]string(nil), transcriptWords...),
	"“quoted”", "it’s", "—", "…", "naïve", "café", "→", "✓")

var multilingualWords = strings.Fields(`Привет мир это тест ΌΣΟΣ καλημέρα κόσμε
	日本語のテキスト 中文文本 한국어 텍스트 Größe Straße naïve café İstanbul
	العربية नमस्ते ΣΑΣ ПРИВЕТ Ёлка`)

var unnormalizedWords = strings.Fields(`ﬁle ＦＵＬＬ１２３ ① x² ㄱㅏ ｶﾞ cafe` + "\u0301" + ` Ⅻ ǅ ½`)

func benchmarkTokens(b *testing.B, text string) {
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	dst := make([]string, 0, 1<<16)
	b.ResetTimer()
	for b.Loop() {
		dst = AppendTokens(dst[:0], text)
	}
}

func BenchmarkTokens(b *testing.B) {
	const size = 1 << 20
	b.Run("ascii-transcript", func(b *testing.B) { benchmarkTokens(b, benchText(size, transcriptWords)) })
	b.Run("ascii-lowercase", func(b *testing.B) { benchmarkTokens(b, strings.ToLower(benchText(size, transcriptWords))) })
	b.Run("transcript-typographic", func(b *testing.B) { benchmarkTokens(b, benchText(size, transcriptWordsTypo)) })
	b.Run("european", func(b *testing.B) { benchmarkTokens(b, benchText(size, europeanWords)) })
	b.Run("multilingual", func(b *testing.B) { benchmarkTokens(b, benchText(size, multilingualWords)) })
	b.Run("unnormalized", func(b *testing.B) { benchmarkTokens(b, benchText(size, unnormalizedWords)) })
	b.Run("short-message", func(b *testing.B) { benchmarkTokens(b, "Let me run the tests: go test ./... -race") })
}

func BenchmarkTokensAlloc(b *testing.B) {
	text := benchText(1<<20, transcriptWords)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		_ = Tokens(text)
	}
}

func BenchmarkNormalizePhrase(b *testing.B) {
	for name, text := range map[string]string{
		"ascii":        benchText(1<<16, transcriptWords),
		"multilingual": benchText(1<<16, multilingualWords),
	} {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			for b.Loop() {
				_ = NormalizePhrase(text)
			}
		})
	}
}

func BenchmarkCompareUTF16(b *testing.B) {
	words := strings.Fields(benchText(1<<14, append(transcriptWords, multilingualWords...)))
	b.ReportAllocs()
	for b.Loop() {
		for i := 1; i < len(words); i++ {
			_ = CompareUTF16(words[i-1], words[i])
		}
	}
}

var europeanWords = strings.Fields(`Größe Straße naïve café déjà vu Ελληνικά καλημέρα κόσμε
	Привет мир это тест Ёлка façade über Zürich São Paulo Kraków Dvořák
	the and of to in is it that`)
