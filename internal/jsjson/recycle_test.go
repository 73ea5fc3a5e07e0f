package jsjson

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// A recycled Parser parses as a new one does, in the chunks it kept: a
// file's worth of objects parsed again allocates nothing for members.
func TestParserRecycle(t *testing.T) {
	var lines [][]byte
	for i := range 200 {
		lines = append(lines, fmt.Appendf(nil, `{"type":"message","id":"m%d","message":{"role":"user","content":[{"type":"text","text":"t%d"}]}}`, i, i))
	}
	parseAll := func(ps *Parser) []Value {
		var out []Value
		for _, l := range lines {
			v, _, err := ps.ParseValue(l, 0)
			require.NoError(t, err)
			out = append(out, v)
		}
		return out
	}
	var ps Parser
	parseAll(&ps)
	ps.Recycle()
	got := parseAll(&ps)
	for i, v := range got {
		var fresh Parser
		want, _, err := fresh.ParseValue(lines[i], 0)
		require.NoError(t, err)
		require.Equal(t, AppendValue(nil, want), AppendValue(nil, v), "line %d", i)
	}
	allocs := testing.AllocsPerRun(5, func() {
		ps.Recycle()
		for _, l := range lines {
			if _, _, err := ps.ParseValue(l, 0); err != nil {
				t.Fatal(err)
			}
		}
	})
	var fresh Parser
	freshAllocs := testing.AllocsPerRun(5, func() {
		fresh = Parser{}
		for _, l := range lines {
			if _, _, err := fresh.ParseValue(l, 0); err != nil {
				t.Fatal(err)
			}
		}
	})
	require.Zero(t, allocs)
	require.Greater(t, freshAllocs, 10.0, "a new Parser carves chunks")
}
