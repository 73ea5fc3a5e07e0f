package analyzer_test

import (
	"fmt"

	"github.com/memidx/memidx/internal/analyzer"
)

func ExampleTokens() {
	fmt.Printf("%q\n", analyzer.Tokens("CAFÉ café Ωmega雪 snake_case 42"))
	fmt.Printf("%q\n", analyzer.Tokens("ΌΣΟΣ ﬁx ＡＢＣ１２３ ① İ"))
	// Output:
	// ["café" "café" "ωmega雪" "snake_case" "42"]
	// ["όσος" "fix" "abc123" "1" "i̇"]
}

func ExampleNormalizePhrase() {
	fmt.Printf("%q\n", analyzer.NormalizePhrase("ΑΣ'Β  ﬁx"))
	// Output:
	// "ασ'β  fix"
}

func ExampleCompareUTF16() {
	// JavaScript sorts U+1F600 (a surrogate pair) before U+FFFD.
	fmt.Println(analyzer.CompareUTF16("\U0001F600", "\uFFFD"))
	// Output:
	// -1
}
