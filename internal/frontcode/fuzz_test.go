package frontcode

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzDecode: any bytes decode to an error or to a strictly increasing
// list that encodes back to itself; never a panic.
func FuzzDecode(f *testing.F) {
	f.Add(mustEncodeF(f, []string{"alpha", "alphabet", "beta"}))
	f.Add(mustEncodeF(f, nil))
	f.Add([]byte("FC1\x00\x02\x04"))
	f.Add([]byte("FC2\x00\x02\x01a\x11b"))
	f.Add(EncodeSet([]string{"b", "", "ab"}))
	f.Fuzz(func(t *testing.T, b []byte) {
		l, err := Decode(b, 1<<16)
		if err != nil {
			require.ErrorIs(t, err, ErrCorrupt)
			return
		}
		terms := make([]string, l.Len())
		for i := range terms {
			terms[i] = string(l.Term(i))
			if i > 0 {
				require.Less(t, terms[i-1], terms[i])
			}
		}
		roundTrip(t, terms)
	})
}

// FuzzRoundTrip: any set of strings comes back whole and in order.
func FuzzRoundTrip(f *testing.F) {
	f.Add("go goroutine goroutines channel chan", uint8(1))
	f.Add(strings.Repeat("abcdefghijklmnopq ", 3)+"abcdefghijklmnopqr", uint8(16))
	f.Fuzz(func(t *testing.T, words string, sep uint8) {
		terms := strings.Split(words, string(rune(sep%128)))
		slices.Sort(terms)
		terms = slices.Compact(terms)
		roundTrip(t, terms)
	})
}

func mustEncodeF(f *testing.F, terms []string) []byte {
	b, err := Encode(terms)
	if err != nil {
		f.Fatal(err)
	}
	return b
}
