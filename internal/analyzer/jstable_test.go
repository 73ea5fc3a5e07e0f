package analyzer

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"
)

// jsTable is testdata/js_tokens.json, written by testdata/gen_js_table.js
// (see its header for the format and the defaults of omitted fields).
type jsTable struct {
	Node    string   `json:"node"`
	Unicode string   `json:"unicode"`
	ICU     string   `json:"icu"`
	Seed    int      `json:"seed"`
	Sigma   [][3]any `json:"sigma"`
	Cases   []jsCase `json:"cases"`
}

type jsCase struct {
	Name string    `json:"name"`
	In   *string   `json:"in"`
	R    []rune    `json:"r"`
	Sep  string    `json:"sep"`
	Low  *string   `json:"low"`
	Phr  *string   `json:"phr"`
	Tok  *[]string `json:"tok"`
}

// input returns the case's input string.
func (c jsCase) input() string {
	if c.In != nil {
		return *c.In
	}
	var b strings.Builder
	for r := c.R[0]; r <= c.R[1]; r++ {
		if r >= 0xd800 && r <= 0xdfff {
			continue
		}
		if b.Len() > 0 {
			b.WriteString(c.Sep)
		}
		b.WriteRune(r)
	}
	return b.String()
}

// want returns the expected lower, phrase and tokens, applying the defaults.
func (c jsCase) want() (low, phr string, tok []string) {
	low = c.input()
	if c.Low != nil {
		low = *c.Low
	}
	phr = low
	if c.Phr != nil {
		phr = *c.Phr
	}
	tok = []string{phr}
	if c.Tok != nil {
		tok = *c.Tok
	}
	return low, phr, tok
}

func loadJSTable(t testing.TB, path string) *jsTable {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	var tab jsTable
	require.NoError(t, json.Unmarshal(data, &tab))
	require.NotEmpty(t, tab.Cases)
	return &tab
}

// codePoints formats s as U+XXXX code points, for failure messages.
func codePoints(s string) string {
	var b strings.Builder
	for i, r := range s {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "U+%04X", r)
	}
	return b.String()
}

// firstDiff describes where got and want first differ, by code point.
func firstDiff(got, want string) string {
	g, w := []rune(got), []rune(want)
	i := 0
	for i < len(g) && i < len(w) && g[i] == w[i] {
		i++
	}
	at := func(rs []rune) string {
		if i >= len(rs) {
			return "(end)"
		}
		return codePoints(string(rs[i:min(len(rs), i+4)]))
	}
	ctx := codePoints(string(w[max(0, i-3):i]))
	return fmt.Sprintf("first difference at code point %d (after %s): got %s, want %s", i, ctx, at(g), at(w))
}

func diffTokens(got, want []string) string {
	for i := 0; i < len(got) && i < len(want); i++ {
		if got[i] != want[i] {
			return fmt.Sprintf("token %d: got %q, want %q; %s", i, got[i], want[i], firstDiff(got[i], want[i]))
		}
	}
	return fmt.Sprintf("got %d tokens, want %d; first extra: got %q want %q", len(got), len(want),
		got[min(len(got), len(want)):min(len(got), len(want)+1)], want[min(len(got), len(want)):min(len(want), len(got)+1)])
}

func equalTokens(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// checkJSTable compares Lower, NormalizePhrase and Tokens with every case.
func checkJSTable(t *testing.T, tab *jsTable) {
	failures := 0
	fail := func(format string, args ...any) {
		t.Helper()
		failures++
		if failures <= 20 {
			t.Errorf(format, args...)
		}
	}
	for _, c := range tab.Cases {
		in := c.input()
		low, phr, tok := c.want()
		if got := Lower(in); got != low {
			fail("%s: Lower: %s", c.Name, firstDiff(got, low))
		}
		if got := NormalizePhrase(in); got != phr {
			fail("%s: NormalizePhrase: %s", c.Name, firstDiff(got, phr))
		}
		if got := Tokens(in); !equalTokens(got, tok) {
			fail("%s: Tokens: %s\ninput: %s", c.Name, diffTokens(got, tok), codePoints(in))
		}
	}
	if failures > 20 {
		t.Errorf("... %d failures in all", failures)
	}
	t.Logf("%d cases from node %s (Unicode %s, ICU %s)", len(tab.Cases), tab.Node, tab.Unicode, tab.ICU)
}

// checkSigmaTable checks the Final_Sigma role of every code point of
// planes 0-3 and 14 with the probes gen_js_table.js used.
func checkSigmaTable(t *testing.T, tab *jsTable) {
	want := map[rune]byte{}
	for _, rg := range tab.Sigma {
		lo, hi, typ := rune(rg[0].(float64)), rune(rg[1].(float64)), rg[2].(string)[0]
		for r := lo; r <= hi; r++ {
			want[r] = typ
		}
	}
	failures := 0
	for _, plane := range []rune{0, 1, 2, 3, 14} {
		for r := plane << 16; r < (plane+1)<<16; r++ {
			if r >= 0xd800 && r <= 0xdfff {
				continue
			}
			c := string(r)
			typ := byte('N')
			switch {
			case strings.HasSuffix(Lower(c+"Σ"), "ς"):
				typ = 'C'
			case strings.HasPrefix(Lower("AΣ" + c + "B")[1:], "σ"):
				typ = 'I'
			}
			w := want[r]
			if w == 0 {
				w = 'N'
			}
			if typ != w {
				failures++
				if failures <= 20 {
					t.Errorf("U+%04X: Final_Sigma role %c, JavaScript's is %c", r, typ, w)
				}
			}
		}
	}
	if failures > 20 {
		t.Errorf("... %d code points differ in all", failures)
	}
}

func TestJSTable(t *testing.T) {
	tab := loadJSTable(t, filepath.Join("testdata", "js_tokens.json"))
	t.Run("cases", func(t *testing.T) { checkJSTable(t, tab) })
	t.Run("sigma", func(t *testing.T) { checkSigmaTable(t, tab) })
	t.Run("delta version", func(t *testing.T) {
		// The delta tables and the committed table must come from the
		// same Unicode version, or one of them is stale.
		require.Equal(t, deltaUnicodeVersion, tab.Unicode)
	})
}

// TestJSTableSlowNormalizer checks that the exact fallback normalizer agrees
// with JavaScript on every case, not only on those that need it.
func TestJSTableSlowNormalizer(t *testing.T) {
	tab := loadJSTable(t, filepath.Join("testdata", "js_tokens.json"))
	failures := 0
	for _, c := range tab.Cases {
		in := c.input()
		_, phr, _ := c.want()
		if got := Lower(slowNFKC(in)); got != phr {
			failures++
			if failures <= 10 {
				t.Errorf("%s: slowNFKC: %s", c.Name, firstDiff(got, phr))
			}
		}
	}
}

// TestJSTableRegenerate reruns the generator when node is installed and
// compares its output with the committed table. It is skipped without node,
// and when node's Unicode version is not the table's (the committed table
// is the authority; regenerate it deliberately, with the delta tables).
func TestJSTableRegenerate(t *testing.T) {
	if testing.Short() {
		t.Skip("short mode")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	committed := loadJSTable(t, filepath.Join("testdata", "js_tokens.json"))
	ver, err := exec.Command(node, "-p", "process.versions.unicode").Output()
	require.NoError(t, err)
	if v := strings.TrimSpace(string(ver)); v != committed.Unicode {
		t.Skipf("node has Unicode %s, the committed table %s", v, committed.Unicode)
	}
	out := filepath.Join(t.TempDir(), "js_tokens.json")
	cmd := exec.Command(node, filepath.Join("testdata", "gen_js_table.js"), out)
	cmd.Stderr = os.Stderr
	require.NoError(t, cmd.Run())
	fresh := loadJSTable(t, out)
	require.Equal(t, len(committed.Cases), len(fresh.Cases), "case count; regenerate testdata/js_tokens.json")
	for i := range fresh.Cases {
		require.Equal(t, committed.Cases[i], fresh.Cases[i], "case %d; regenerate testdata/js_tokens.json", i)
	}
	require.Equal(t, committed.Sigma, fresh.Sigma)
	checkJSTable(t, fresh)
}

func TestCodePointsHelper(t *testing.T) {
	require.Equal(t, "U+0041 U+03A3", codePoints("AΣ"))
	require.True(t, utf8.ValidString(firstDiff("ab", "ac")))
}
