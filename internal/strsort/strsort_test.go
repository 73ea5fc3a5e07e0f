package strsort

import (
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// vocabulary is n distinct token-like strings: identifiers and words that
// share prefixes, numbers, and a few non-ASCII and empty ones, in random
// order.
func vocabulary(r *rand.Rand, n int) []string {
	stems := []string{"a", "err", "error", "errors", "get", "get_", "handler", "http", "id", "x", "zz", "é", "\xff"}
	seen := map[string]bool{}
	var out []string
	for len(out) < n {
		var b strings.Builder
		b.WriteString(stems[r.Intn(len(stems))])
		for k := r.Intn(4); k > 0; k-- {
			switch r.Intn(3) {
			case 0:
				b.WriteString(stems[r.Intn(len(stems))])
			case 1:
				fmt.Fprintf(&b, "%d", r.Intn(1000))
			default:
				b.WriteByte(byte('a' + r.Intn(26)))
			}
		}
		if s := b.String(); !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

func TestStringsSortsAsSlicesSort(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	cases := [][]string{
		nil,
		{},
		{"b", "a"},
		{"", "", "a", ""},
		strings.Fields("ab a abc ab b aa a"), // duplicates, prefixes
		{strings.Repeat("x", 300) + "b", strings.Repeat("x", 300) + "a", strings.Repeat("x", 300)}, // a long shared prefix
	}
	for _, n := range []int{small - 1, small, small + 1, 100, 1000, 5000} {
		cases = append(cases, vocabulary(r, n))
	}
	// More than a bucket's worth sharing a long prefix (skipped in one
	// scan): some end with it, some are equal, one differs inside it.
	long := strings.Repeat("p", 5000)
	var shared []string
	for i := range 40 {
		shared = append(shared, long+fmt.Sprint(i%30))
	}
	shared = append(shared, long, long, long[:4000]+"a"+long[4001:], long+"\xff")
	r.Shuffle(len(shared), func(i, j int) { shared[i], shared[j] = shared[j], shared[i] })
	cases = append(cases, shared, slices.Repeat([]string{"same"}, 100))
	// Many equal strings and strings that share everything but their end.
	var same []string
	for i := range 200 {
		same = append(same, "term", fmt.Sprintf("term%03d", 199-i))
	}
	cases = append(cases, same)
	// Strings shorter than eight bytes, equal to others but for trailing
	// zero bytes.
	var padded []string
	for i := range 100 {
		padded = append(padded, "abc", "abc\x00", "ab", "abc\x00\x00", "abcdefgh", "abcdefgh\x00", "abcdefg", fmt.Sprint(i), "")
	}
	r.Shuffle(len(padded), func(i, j int) { padded[i], padded[j] = padded[j], padded[i] })
	cases = append(cases, padded)
	for i, c := range cases {
		want := slices.Clone(c)
		slices.Sort(want)
		got := slices.Clone(c)
		Strings(got)
		if !slices.Equal(want, got) {
			t.Errorf("case %d (%d strings): not slices.Sort's order", i, len(c))
		}
	}
}

func FuzzStrings(f *testing.F) {
	f.Add([]byte("b\x00a\x00ab\x00\x00a"))
	f.Add([]byte(strings.Repeat("xy\x00x\x00", 40)))
	f.Fuzz(func(t *testing.T, data []byte) {
		s := strings.Split(string(data), "\x00")
		want := slices.Clone(s)
		slices.Sort(want)
		Strings(s)
		if !slices.Equal(want, s) {
			t.Fatalf("%q: got %q", want, s)
		}
	})
}

func TestStringsDoesNotAllocate(t *testing.T) {
	v := vocabulary(rand.New(rand.NewSource(2)), 2000)
	work := make([]string, len(v))
	if n := testing.AllocsPerRun(10, func() { copy(work, v); Strings(work) }); n != 0 {
		t.Errorf("%v allocations a sort", n)
	}
}

// BenchmarkSharedPrefix sorts 25 terms of 20 KB that differ at their
// last byte: a radix level a byte would cost 20,000 passes.
func BenchmarkSharedPrefix(b *testing.B) {
	long := strings.Repeat("a", 20000)
	var terms []string
	for i := range 25 {
		terms = append(terms, long+string(rune('z'-i)))
	}
	work := make([]string, len(terms))
	for b.Loop() {
		copy(work, terms)
		Strings(work)
	}
}

// BenchmarkVocabulary sorts vocabularies of a session's size both ways.
func BenchmarkVocabulary(b *testing.B) {
	r := rand.New(rand.NewSource(3))
	var vs [][]string
	for range 50 {
		vs = append(vs, vocabulary(r, 200+r.Intn(1500)))
	}
	work := make([]string, 0, 2000)
	for _, c := range []struct {
		name string
		sort func([]string)
	}{{"slices", slices.Sort[[]string]}, {"strsort", Strings}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				for _, v := range vs {
					work = append(work[:0], v...)
					c.sort(work)
				}
			}
		})
	}
}

// Order gives what a stable comparison sort of the indexes gives.
func TestOrderSortsAsSortStable(t *testing.T) {
	r := rand.New(rand.NewSource(4))
	long := strings.Repeat("function", 3)
	cases := [][]string{
		nil,
		{"a"},
		{"b", "a", "b", "a"},
		{"abc", "abc\x00", "ab", "abc\x00\x00", "abc"},
		{"abcdefgh", "abcdefg", "abcdefghi", "abcdefgh\x00", "abcdefgh"},
	}
	for range 40 {
		cases = append(cases, vocabulary(r, r.Intn(3000)))
	}
	// Many keys that share their first eight bytes: long runs.
	var shared []string
	for i := range 500 {
		shared = append(shared, fmt.Sprintf("%s%d", long[:8+r.Intn(16)], r.Intn(1000)), fmt.Sprint(i))
	}
	cases = append(cases, shared)
	for _, keys := range cases {
		keys = append([]string(nil), keys...)
		r.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
		want := make([]int32, len(keys))
		for i := range want {
			want[i] = int32(i)
		}
		slices.SortStableFunc(want, func(a, b int32) int { return strings.Compare(keys[a], keys[b]) })
		require.Equal(t, want, Order(keys))
	}
}

func FuzzOrder(f *testing.F) {
	f.Add("abc abc\x00 ab abcdefghij abcdefghi a", uint8(' '))
	f.Fuzz(func(t *testing.T, words string, sep uint8) {
		keys := strings.Split(words, string(rune(sep%128)))
		got := Order(keys)
		want := make([]int32, len(keys))
		for i := range want {
			want[i] = int32(i)
		}
		slices.SortStableFunc(want, func(a, b int32) int { return strings.Compare(keys[a], keys[b]) })
		require.Equal(t, want, got)
	})
}

// BenchmarkOrder orders a batch's worth of distinct keys both ways.
func BenchmarkOrder(b *testing.B) {
	r := rand.New(rand.NewSource(5))
	seen := map[string]bool{}
	var keys []string
	for _, k := range vocabulary(r, 150000) {
		if !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
	}
	r.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
	b.Run("slices", func(b *testing.B) {
		for b.Loop() {
			order := make([]int32, len(keys))
			for i := range order {
				order[i] = int32(i)
			}
			slices.SortFunc(order, func(x, y int32) int { return strings.Compare(keys[x], keys[y]) })
		}
	})
	b.Run("order", func(b *testing.B) {
		for b.Loop() {
			Order(keys)
		}
	})
}
