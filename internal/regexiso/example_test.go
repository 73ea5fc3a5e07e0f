package regexiso_test

import (
	"context"
	"fmt"

	"github.com/memidx/memidx/internal/regexiso"
)

func ExampleStart() {
	lim := regexiso.Limits{MaxHaystackItems: 2}
	run := regexiso.Start(context.Background(), `caf\u00e9`, lim)
	for _, text := range []string{"the CAFÉ opens", "a bar", "café again"} {
		matched, ok := run.Add(text)
		if !ok {
			break
		}
		fmt.Println(matched, text)
	}
	out := run.Result()
	fmt.Println(out.Complete, out.Reasons, out.Matched, out.NoMatch())
	// Output:
	// true the CAFÉ opens
	// false a bar
	// false [regex_max_haystack_terms] 1 false
}

func ExampleCompile_unsupported() {
	_, err := regexiso.Compile(`(?<=\$)\d+`, regexiso.Limits{})
	fmt.Println(err.Code)
	fmt.Println(err.Message)
	// Output:
	// invalid_regex
	// lookbehind (?<=…) at byte 0 is not supported: RE2 has no lookaround.
}

func ExampleRegexp_FirstMatch() {
	re := regexiso.MustCompile(`résumé`, regexiso.Limits{})
	text := "see my RÉSUMÉ"
	if start, end, ok := re.FirstMatch(text); ok {
		fmt.Println(start, end, text[start:end])
	}
	// Output:
	// 7 15 RÉSUMÉ
}
