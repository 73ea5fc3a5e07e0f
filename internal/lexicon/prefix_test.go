package lexicon

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAppendMatchingDocs(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	letters := "abcde"
	sessions := map[uint32][]string{}
	for doc := uint32(1); doc <= 30; doc++ {
		for range 40 {
			n := 1 + r.IntN(5)
			var b strings.Builder
			for range n {
				b.WriteByte(letters[r.IntN(len(letters))])
			}
			sessions[doc] = append(sessions[doc], b.String())
		}
	}
	seg := build(t, sessions)
	require.Greater(t, seg.Len(), 5*runLen, "the keys span many runs")
	for _, prefix := range []string{"", "a", "ab", "abc", "e", "eee", "dd", "b", "abcdea", "f", "\x00", "ca"} {
		for _, odd := range []bool{false, true} {
			match := func(k []byte) bool { return !odd || len(k)%2 == 1 }
			var want []uint32
			keys := map[string]map[uint32]bool{}
			for doc, ks := range sessions {
				for _, k := range ks {
					if strings.HasPrefix(k, prefix) && match([]byte(k)) {
						if keys[k] == nil {
							keys[k] = map[uint32]bool{}
						}
						keys[k][doc] = true
					}
				}
			}
			for _, m := range keys {
				for d := range m {
					want = append(want, d)
				}
			}
			got, err := seg.AppendMatchingDocs(nil, prefix, func(k []byte) (bool, bool) { return match(k), true })
			require.NoError(t, err)
			sort.Slice(want, func(i, j int) bool { return want[i] < want[j] })
			slices.Sort(got)
			assert.Equal(t, want, got, fmt.Sprintf("prefix %q odd %v", prefix, odd))
		}
	}
}

// The scan stops when match says so.
func TestAppendMatchingDocsStops(t *testing.T) {
	seg := build(t, map[uint32][]string{1: {"aa", "ab", "ac", "ad"}, 2: {"ab", "ae"}})
	seen := 0
	got, err := seg.AppendMatchingDocs(nil, "a", func(k []byte) (bool, bool) {
		seen++
		return true, seen <= 2
	})
	require.NoError(t, err)
	assert.Equal(t, 3, seen, "two keys taken, the third stops the scan")
	assert.Equal(t, []uint32{1, 1, 2}, got)
}
