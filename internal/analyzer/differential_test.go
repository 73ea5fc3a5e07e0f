package analyzer

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// randomPieces are fragments that exercise the rules; randomText mixes them
// with random code points.
var randomPieces = []string{
	"the", "Quick", "BROWN", "x", "I", "42", "_", " ", " ", "\t", "\n", ".", ",", "'", "’", ":", "·", "-", "\x00",
	"Σ", "σ", "ς", "ΑΣ", "ΌΣΟΣ", "İ", "ı", "ﬁ", "ǅ", "ß", "ẞ", "K", "Å", "ＡＢ", "１２", "＿", "①", "²", "½", "Ⅻ", "ⅰ", "Ⓐ", "ⓐ",
	"ᄀ", "ᅡ", "ᆨ", "가", "ㄱ", "ㅏ", "ｶ", "ﾞ", "\u0301", "\u0300", "\u0323", "\u0316", "\u0345", "\u0307", "\u034f",
	"क", "\u094d", "\u093c", "雪", "カ", "😀", "\U0001F3FD", "\u200d", "\u200c", "\u00ad", "\ufeff", "ʼ", "ʰ", "ª", "\ufffd",
	"\U00016D63", "\U00016D67", "\U0001611E", "\U0001611F", "\U00016129", "\U00011382", "\U000113C9", "\U000113C2",
	"\U000105D2", "\U00010D50", "\U0001CCF5", "\U0001CCD9", "\uA7F1", "\uA7CB", "\u1ADD", "\u1AE6", "\u0897", "\U000323B0",
}

// randomText returns a random valid string.
func randomText(rng *rand.Rand) string {
	var b strings.Builder
	n := 1 + rng.IntN(20)
	for range n {
		switch u := rng.Float64(); {
		case u < 0.2:
			planes := []rune{0, 0, 0, 0, 1, 1, 2, 3, 14}
			for {
				r := planes[rng.IntN(len(planes))]<<16 | rune(rng.IntN(0x10000))
				if r < 0xd800 || r > 0xdfff {
					b.WriteRune(r)
					break
				}
			}
		case u < 0.25:
			marks := []string{"\u0301", "\u0316", "\u0323", "\u1ADD", "\u0897", "\u0345", "\u093c"}
			b.WriteString(strings.Repeat(marks[rng.IntN(len(marks))], 1+rng.IntN(40)))
		default:
			b.WriteString(randomPieces[rng.IntN(len(randomPieces))])
		}
	}
	return b.String()
}

type oracleResult struct {
	Unicode string               `json:"unicode"`
	Results [][3]json.RawMessage `json:"results"`
}

// TestDifferentialNode compares Lower, NormalizePhrase and Tokens with
// JavaScript on random inputs, when node is installed and has the Unicode
// version of the committed table. MEMIDX_DIFF_N sets the number of inputs
// (default 3000).
func TestDifferentialNode(t *testing.T) {
	if testing.Short() {
		t.Skip("short mode")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	n := 3000
	if v, err := strconv.Atoi(os.Getenv("MEMIDX_DIFF_N")); err == nil {
		n = v
	}
	seed := uint64(1)
	if v, err := strconv.ParseUint(os.Getenv("MEMIDX_DIFF_SEED"), 10, 64); err == nil {
		seed = v
	}
	rng := rand.New(rand.NewPCG(seed, 2))
	inputs := make([]string, n)
	for i := range inputs {
		inputs[i] = randomText(rng)
	}
	payload, err := json.Marshal(inputs)
	require.NoError(t, err)
	cmd := exec.Command(node, filepath.Join("testdata", "js_oracle.js"))
	cmd.Stdin = bytes.NewReader(payload)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	require.NoError(t, err)
	var res oracleResult
	require.NoError(t, json.Unmarshal(out, &res))
	if res.Unicode != deltaUnicodeVersion {
		t.Skipf("node has Unicode %s, the delta tables %s", res.Unicode, deltaUnicodeVersion)
	}
	require.Len(t, res.Results, n)
	failures := 0
	for i, in := range inputs {
		var low, phr string
		var tok []string
		require.NoError(t, json.Unmarshal(res.Results[i][0], &low))
		require.NoError(t, json.Unmarshal(res.Results[i][1], &phr))
		require.NoError(t, json.Unmarshal(res.Results[i][2], &tok))
		ok := true
		if got := Lower(in); got != low {
			t.Errorf("Lower(%s): %s", codePoints(in), firstDiff(got, low))
			ok = false
		}
		if got := NormalizePhrase(in); got != phr {
			t.Errorf("NormalizePhrase(%s): %s", codePoints(in), firstDiff(got, phr))
			ok = false
		}
		if got := Tokens(in); !equalTokens(got, tok) {
			t.Errorf("Tokens(%s): %s", codePoints(in), diffTokens(got, tok))
			ok = false
		}
		if !ok {
			if failures++; failures >= 10 {
				t.Fatal("too many failures")
			}
		}
	}
}
