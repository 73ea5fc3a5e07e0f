package analyzer

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"go/format"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"golang.org/x/text/unicode/norm"
	"golang.org/x/text/unicode/rangetable"
)

var updateDelta = flag.Bool("update-delta", false, "rewrite unicode_delta.go from node's Unicode data")

// TestUnicodeDelta derives unicode_delta.go: it runs
// testdata/unicode_props.js, which prints every code point's properties as
// JavaScript sees them, and diffs them against the base rules (baseIsWord,
// baseLower, baseCaseType) and x/text's normalization data. Without
// -update-delta it checks that the committed file is what it would write;
// it is skipped without node, under -short and -race (it takes seconds),
// and when node's Unicode version is not the one the file was made from.
//
// Regenerate with `go generate` (in analyzer/), which runs
//
//	go test -run ^TestUnicodeDelta$ -update-delta
func TestUnicodeDelta(t *testing.T) {
	if !*updateDelta && (testing.Short() || raceEnabled) {
		t.Skip("slow; run without -short and -race")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	src, version := generateDelta(t, node)
	if !*updateDelta {
		if version != deltaUnicodeVersion {
			t.Skipf("node has Unicode %s, unicode_delta.go is from %s", version, deltaUnicodeVersion)
		}
		old, err := os.ReadFile("unicode_delta.go")
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(old, src) {
			t.Fatal("unicode_delta.go is stale: run go generate in analyzer/")
		}
		return
	}
	if err := os.WriteFile("unicode_delta.go", src, 0o644); err != nil {
		t.Fatal(err)
	}
}

type jsProps struct {
	word    bool
	lower   string
	nfkd    string
	nfd     string
	nfcSelf bool
	sigma   caseType
	ccc     uint8
}

func parseHexRunes(t *testing.T, field string, self rune) string {
	if field == "-" {
		return string(self)
	}
	var b strings.Builder
	for _, h := range strings.Fields(field) {
		v, err := strconv.ParseUint(h, 16, 32)
		if err != nil {
			t.Fatalf("bad hex %q", field)
		}
		b.WriteRune(rune(v))
	}
	return b.String()
}

// readJSProps runs unicode_props.js and calls fn for every code point, in
// order. It returns node's Unicode version.
func readJSProps(t *testing.T, node string, fn func(r rune, p jsProps)) string {
	// A reference mark for every combining class x/text knows.
	refByCCC := map[uint8]rune{}
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if r >= 0xd800 && r <= 0xdfff {
			continue
		}
		p := norm.NFD.PropertiesString(string(r))
		if c := p.CCC(); c != 0 && len(p.Decomposition()) == 0 {
			if _, ok := refByCCC[c]; !ok {
				refByCCC[c] = r
			}
		}
	}
	var refs []string
	for c, r := range refByCCC {
		refs = append(refs, fmt.Sprintf("%d:%x", c, r))
	}
	sort.Strings(refs)

	cmd := exec.Command(node, filepath.Join("testdata", "unicode_props.js"), strings.Join(refs, ","))
	cmd.Stderr = os.Stderr
	raw, err := cmd.Output()
	if err != nil {
		t.Fatalf("running unicode_props.js: %v", err)
	}
	version := ""
	count := 0
	sc := bufio.NewScanner(bytes.NewReader(raw))
	for sc.Scan() {
		line := sc.Text()
		if v, ok := strings.CutPrefix(line, "#unicode "); ok {
			version = v
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 8 {
			t.Fatalf("bad line %q", line)
		}
		v, _ := strconv.ParseUint(f[0], 16, 32)
		r := rune(v)
		if strings.HasPrefix(f[7], "?") {
			t.Fatalf("U+%04X has a combining class %s that no reference mark has; the delta tables cannot express it", r, f[7][1:])
		}
		ccc, err := strconv.Atoi(f[7])
		if err != nil {
			t.Fatalf("bad ccc in %q", line)
		}
		count++
		fn(r, jsProps{
			word:    f[1] == "1",
			lower:   parseHexRunes(t, f[2], r),
			nfkd:    parseHexRunes(t, f[3], r),
			nfd:     parseHexRunes(t, f[4], r),
			nfcSelf: f[5] == "1",
			sigma:   map[string]caseType{"C": caseCased, "I": caseIgnorable, "N": caseNone}[f[6]],
			ccc:     uint8(ccc),
		})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if count != 0x110000-0x800 {
		t.Fatalf("got %d code points from node, want %d", count, 0x110000-0x800)
	}
	return version
}

// generateDelta returns the source of unicode_delta.go and node's Unicode
// version.
func generateDelta(t *testing.T, node string) ([]byte, string) {
	goAssigned := rangetable.Assigned(unicode.Version)
	if goAssigned == nil {
		t.Fatalf("x/text/unicode/rangetable has no table for Unicode %s", unicode.Version)
	}
	goKnows := func(r rune) bool { return unicode.Is(goAssigned, r) }

	type rng struct {
		lo, hi rune
		v      string
	}
	addRange := func(list []rng, r rune, v string) []rng {
		if n := len(list); n > 0 && list[n-1].hi == r-1 && list[n-1].v == v {
			list[n-1].hi = r
			return list
		}
		return append(list, rng{r, r, v})
	}
	type entry struct {
		r rune
		v string
	}
	var (
		word, caseTypes    []rng
		lower, decomp, ccc []entry
		compose            [][3]rune
		trigger            = map[rune]bool{}
		nfdToCP            = map[string]rune{}
	)
	type composite struct {
		r   rune
		nfd string
	}
	var composites []composite
	typeName := map[caseType]string{caseCased: "caseCased", caseIgnorable: "caseIgnorable", caseNone: "caseNone"}
	version := readJSProps(t, node, func(r rune, p jsProps) {
		if p.word != baseIsWord(r) {
			word = addRange(word, r, strconv.FormatBool(p.word))
		}
		if r != 0x3a3 && p.lower != baseLower(r) {
			lower = append(lower, entry{r, p.lower})
		}
		if p.sigma != baseCaseType(r) {
			caseTypes = addRange(caseTypes, r, typeName[p.sigma])
		}
		goNFKD := norm.NFKD.String(string(r))
		if p.nfkd != goNFKD {
			decomp = append(decomp, entry{r, p.nfkd})
			trigger[r] = true
		}
		if p.nfd != norm.NFD.String(string(r)) && p.nfkd == goNFKD {
			t.Fatalf("U+%04X: the canonical decomposition differs but the compatibility one does not", r)
		}
		if goCCC := norm.NFD.PropertiesString(string(r)).CCC(); p.nfd == string(r) && p.ccc != goCCC {
			ccc = append(ccc, entry{r, strconv.Itoa(int(p.ccc))})
			trigger[r] = true
		}
		if p.nfd != string(r) && p.nfcSelf {
			nfdToCP[p.nfd] = r
			composites = append(composites, composite{r, p.nfd})
		}
	})
	// A primary composite: find its one-level decomposition.
	for _, c := range composites {
		r := c.r
		d := []rune(c.nfd)
		a := d[0]
		if len(d) > 2 {
			var ok bool
			if a, ok = nfdToCP[string(d[:len(d)-1])]; !ok {
				t.Fatalf("U+%04X: no one-level decomposition of %U", r, d)
			}
		}
		b := d[len(d)-1]
		if norm.NFC.String(string([]rune{a, b})) != string(r) {
			compose = append(compose, [3]rune{a, b, r})
			// A pair matters only when both halves occur, and one of
			// them is always new (the stability policy excludes new
			// composites of old characters from composition), so only
			// the new ones need to trigger the exact path.
			if goKnows(a) && goKnows(b) {
				t.Fatalf("U+%04X composes from two code points Go knows", r)
			}
			for _, x := range []rune{a, b, r} {
				if !goKnows(x) {
					trigger[x] = true
				}
			}
		}
	}
	sort.Slice(compose, func(i, j int) bool {
		if compose[i][0] != compose[j][0] {
			return compose[i][0] < compose[j][0]
		}
		return compose[i][1] < compose[j][1]
	})
	var trig []rune
	for r := range trigger {
		if r < 0x800 {
			t.Fatalf("U+%04X would trigger the exact normalization path, but hasNormDelta skips code points below U+0800", r)
		}
		trig = append(trig, r)
	}
	sort.Slice(trig, func(i, j int) bool { return trig[i] < trig[j] })
	var trigRanges []rng
	for _, r := range trig {
		trigRanges = addRange(trigRanges, r, "")
	}

	var buf bytes.Buffer
	w := func(format string, args ...any) { fmt.Fprintf(&buf, format, args...) }
	w("// Code generated by go test -run ^TestUnicodeDelta$ -update-delta; DO NOT EDIT.\n\n")
	w("package analyzer\n\n")
	w("// deltaUnicodeVersion is the Unicode version of the JavaScript engine (node's\n")
	w("// ICU) the delta tables were taken from; Go's tables are Unicode %s\n", unicode.Version)
	w("// (package unicode) and %s (x/text/unicode/norm).\n", norm.Version)
	w("const deltaUnicodeVersion = %q\n\n", version)

	w("// deltaWord lists the code points whose membership in [\\p{L}\\p{N}_]\n// differs from baseIsWord.\nvar deltaWord = []wordRange{\n")
	for _, x := range word {
		w("\t{0x%04X, 0x%04X, %s},\n", x.lo, x.hi, x.v)
	}
	w("}\n\n")
	w("// deltaLower lists the code points whose JavaScript lowercase differs from\n// baseLower.\nvar deltaLower = []lowerEntry{\n")
	for _, x := range lower {
		w("\t{0x%04X, %+q},\n", x.r, x.v)
	}
	w("}\n\n")
	w("// deltaCaseType lists the code points whose role in the Final_Sigma context\n// differs from baseCaseType.\nvar deltaCaseType = []caseTypeRange{\n")
	for _, x := range caseTypes {
		w("\t{0x%04X, 0x%04X, %s},\n", x.lo, x.hi, x.v)
	}
	w("}\n\n")
	w("// deltaDecomp lists the code points whose full compatibility decomposition\n// (NFKD) differs from x/text's.\nvar deltaDecomp = []decompEntry{\n")
	for _, x := range decomp {
		w("\t{0x%04X, %+q},\n", x.r, x.v)
	}
	w("}\n\n")
	w("// deltaCCC lists the code points whose canonical combining class differs\n// from x/text's.\nvar deltaCCC = []cccEntry{\n")
	for _, x := range ccc {
		w("\t{0x%04X, %s},\n", x.r, x.v)
	}
	w("}\n\n")
	w("// deltaCompose lists the canonical compositions x/text does not know:\n// {first, second, composite}, sorted by first and second.\nvar deltaCompose = []composeEntry{\n")
	for _, x := range compose {
		w("\t{0x%04X, 0x%04X, 0x%04X},\n", x[0], x[1], x[2])
	}
	w("}\n\n")
	w("// deltaNormTrigger lists the code points of deltaDecomp and deltaCCC and\n")
	w("// the new ones of deltaCompose: text containing none of them is normalized\n")
	w("// by x/text as JavaScript does it.\nvar deltaNormTrigger = []runeRange{\n")
	for _, x := range trigRanges {
		w("\t{0x%04X, 0x%04X},\n", x.lo, x.hi)
	}
	w("}\n")

	src, err := format.Source(buf.Bytes())
	if err != nil {
		t.Fatalf("gofmt: %v", err)
	}
	t.Logf("Unicode %s (node) vs %s (Go) / %s (x/text): %d word ranges, %d lowercase mappings, %d case-type ranges, %d decompositions, %d combining classes, %d compositions",
		version, unicode.Version, norm.Version, len(word), len(lower), len(caseTypes), len(decomp), len(ccc), len(compose))
	return src, version
}
