package corpus

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTitleSlot(t *testing.T) {
	long := strings.Repeat("ab", 150)
	cases := []struct{ name, title, source, want string }{
		{"empty", "", "", ""},
		{"plain", "Fix flaky test", "auto", "Fix flaky test"},
		{"escapes", "quote \" back \\ tab \t <html> & \u2028", "user", "quote \" back \\ tab \t <html> & \u2028"},
		{"unicode", "Größe 数据 🚀 λόγος", "auto", "Größe 数据 🚀 λόγος"},
		{"long", long, "user", ""},
		{"long emoji", strings.Repeat("🚀", 80), "auto", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			line := titleSlot(tc.title, tc.source, 1788256860000)
			require.Len(t, line, 256)
			require.True(t, utf8.Valid(line))
			assert.Equal(t, byte('\n'), line[255])
			var v map[string]any
			require.NoError(t, json.Unmarshal(line, &v))
			got := v["title"].(string)
			pad := len(v["pad"].(string))
			if tc.want != "" || tc.title == "" {
				assert.Equal(t, tc.want, got)
			} else {
				// Cut to the longest whole-code-point prefix that fits.
				require.True(t, strings.HasPrefix(tc.title, got))
				next, _ := utf8.DecodeRuneInString(tc.title[len(got):])
				assert.Less(t, pad, utf8.RuneLen(next))
			}
			assert.Equal(t, "2026-09-01T10:01:00.000Z", v["updatedAt"])
			assert.Equal(t, strings.Repeat(" ", len(v["pad"].(string))), v["pad"])
			if tc.source != "" && tc.title != "" {
				assert.Equal(t, tc.source, v["source"])
			} else {
				assert.NotContains(t, v, "source")
			}
			assert.True(t, strings.HasPrefix(string(line), `{"type":"title","v":1,"title":`))
		})
	}
}

func TestUUIDV7(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	id := uuidV7(1788256860000, r)
	assert.Regexp(t, `^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`, id)
	assert.Equal(t, "01a05c6a-3760", id[:13], "the first 48 bits are the milliseconds 0x01a05c6a3760")
}

func TestRunTerm(t *testing.T) {
	seen := map[string]bool{}
	for _, idx := range []int{0, 1, 2, 1000, maxSessions - 1} {
		r := &run{idx: idx}
		for range 256 {
			term := r.term()
			assert.Len(t, term, 9)
			assert.True(t, strings.HasPrefix(term, plantPrefix))
			assert.False(t, seen[term], term)
			seen[term] = true
		}
		assert.Panics(t, func() { r.term() })
	}
}

func TestSnake(t *testing.T) {
	for in, want := range map[string]string{
		"parseConfig":  "parse_config",
		"PARSE_CONFIG": "parse_config",
		"ParseConfig":  "parse_config",
		"parse_config": "parse_config",
		"userID":       "user_id",
	} {
		assert.Equal(t, want, snake(in), in)
	}
}

// TestVocab_NoPlantPrefix checks the guarantee the planted facts rely on:
// no generated word or random string contains the plant prefix.
func TestVocab_NoPlantPrefix(t *testing.T) {
	v := newVocab(1)
	for _, list := range [][]string{v.prose.words, v.idents.words, v.types.words, v.snakes} {
		for _, w := range list {
			assert.NotContains(t, strings.ToLower(w), plantPrefix)
		}
	}
	assert.NotContains(t, strings.ToLower(idAlphabet), "q")
	assert.Greater(t, len(v.prose.words), 20000)
	nonASCII := 0
	for _, w := range v.prose.words {
		if !isASCII(w) {
			nonASCII++
		}
	}
	assert.Greater(t, nonASCII, 50)
}

func isASCII(s string) bool {
	for i := range len(s) {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func TestZipf(t *testing.T) {
	words := make([]string, 1000)
	for i := range words {
		words[i] = string(rune('a'+i%26)) + strings.Repeat("x", i/26)
	}
	z := newZipf(words, 1, 1)
	r := rand.New(rand.NewPCG(3, 4))
	count := make([]int, len(words))
	const n = 200000
	for range n {
		count[z.index(r)]++
	}
	// Weight of rank i is 1/(i+1); the first rank has 1/H(1000) ≈ 13.4%.
	assert.InDelta(t, 0.134, float64(count[0])/n, 0.01)
	assert.InDelta(t, 2.0, float64(count[0])/float64(count[1]), 0.15)
	assert.Greater(t, count[9], count[99])
	assert.Greater(t, count[99], count[999])
}

func TestJW(t *testing.T) {
	var w jw
	a, b := 0.1, 0.2
	w.obj()
	w.kstr("s", "<a> & \"b\"\n\u2028é")
	w.kint("i", -3)
	w.knum("f", a+b)
	w.knum("big", 1e21)
	w.kbool("t", true)
	w.kstrOrNull("n", "")
	w.kstrs("list", []string{"x", "y"})
	w.key("empty")
	w.obj()
	w.endObj()
	w.key("arr")
	w.arr()
	w.obj()
	w.endObj()
	w.int(1)
	w.endArr()
	w.endObj()
	assert.Equal(t, `{"s":"<a> & \"b\"\n`+"\u2028"+`é","i":-3,"f":0.30000000000000004,"big":1e+21,"t":true,"n":null,"list":["x","y"],"empty":{},"arr":[{},1]}`, string(w.b))
}
