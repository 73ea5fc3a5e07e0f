package frontcode

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func roundTrip(t testing.TB, terms []string) *List {
	t.Helper()
	b, err := Encode(terms)
	require.NoError(t, err)
	l, err := Decode(b, 1<<30)
	require.NoError(t, err)
	require.Equal(t, len(terms), l.Len())
	for i, term := range terms {
		require.Equal(t, term, string(l.Term(i)), "term %d", i)
	}
	// ListOf gives what the round trip gives, its own copy of the bytes.
	of := ListOf(terms)
	require.Equal(t, l.Len(), of.Len())
	for i := range terms {
		require.Equal(t, string(l.Term(i)), string(of.Term(i)), "ListOf: term %d", i)
	}
	if len(terms) > 0 && len(terms[len(terms)-1]) > 0 {
		require.NotSame(t, unsafe.StringData(terms[len(terms)-1]), &of.Term(len(terms) - 1)[0], "ListOf copies")
	}
	return l
}

func TestRoundTrip(t *testing.T) {
	long := strings.Repeat("x", 300)
	for _, tc := range []struct {
		name  string
		terms []string
	}{
		{"empty", nil},
		{"one", []string{"a"}},
		{"the empty string first", []string{"", "a", "ab"}},
		{"shared prefix past 15", []string{long, long + "a", long + "b", long + "bc"}},
		{"suffix of exactly 14, 15 and 16", []string{strings.Repeat("a", 14), strings.Repeat("b", 15), strings.Repeat("c", 16)}},
		{"prefix of the next", []string{"go", "goroutine", "goroutines"}},
		{"non-ASCII", []string{"café", "cafés", "日本", "日本語"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := roundTrip(t, tc.terms)
			for i, term := range tc.terms {
				j, ok := l.Find(term)
				require.True(t, ok)
				require.Equal(t, i, j)
			}
			require.False(t, l.Has("zz-not-there"))
		})
	}
}

func TestRandomLists(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for round := 0; round < 200; round++ {
		terms := randomTerms(r, r.IntN(400))
		l := roundTrip(t, terms)
		// Absent strings are placed where they would be inserted.
		for k := 0; k < 20; k++ {
			q := randomTerm(r)
			i, ok := l.Find(q)
			want, wantOK := slices.BinarySearch(terms, q)
			require.Equal(t, wantOK, ok, q)
			require.Equal(t, want, i, q)
		}
	}
}

func randomTerm(r *rand.Rand) string {
	const alpha = "abcé_0"
	n := r.IntN(40)
	var b strings.Builder
	for range n {
		b.WriteString(string([]rune(alpha)[r.IntN(6)]))
	}
	return b.String()
}

func randomTerms(r *rand.Rand, n int) []string {
	terms := make([]string, n)
	for i := range terms {
		terms[i] = randomTerm(r)
	}
	slices.Sort(terms)
	return slices.Compact(terms)
}

func TestEncodeRejectsUnsorted(t *testing.T) {
	for _, terms := range [][]string{{"b", "a"}, {"a", "a"}} {
		_, err := Encode(terms)
		require.Error(t, err, "%q", terms)
	}
}

func TestDecodeRejectsDamage(t *testing.T) {
	good, err := Encode([]string{"alpha", "alphabet", "beta", "gamma"})
	require.NoError(t, err)
	legacy := deflated(t, []string{"alpha", "alphabet", "beta", "gamma"}, nil)
	stream, err := appendStream(nil, []string{"alpha", "alphabet"})
	require.NoError(t, err)
	type damage struct {
		name string
		b    []byte
	}
	cases := []damage{
		{"no magic", []byte("FC4\x00\x01\x01a")},
		{"truncated header", good[:4]},
		{"truncated stream", good[:len(good)-3]},
		{"raw over the bound", append(append(append([]byte{}, rawMagic...), 1), bytes.Repeat([]byte{'a'}, 1<<20)...)},
		{"count over the stream", append(append([]byte{}, rawMagic...), 9, 0x01, 'a')},
		{"count off by one", append(append([]byte{}, rawMagic...), append([]byte{5}, good[magicLen+1:]...)...)},
		{"unsorted", raw(2, swapFirstTwo(stream))},
		{"shared past the last string", raw(2, []byte{0x01, 'a', 0x51, 'b'})},
		{"first string shares", raw(1, []byte{0x11, 'a'})},
		{"suffix past the end", raw(1, []byte{0x05, 'a'})},
		{"trailing bytes", raw(1, []byte{0x01, 'a', 0x01})},
		// The set layout: lengths and bytes, any order, no repeats.
		{"set: a repeated string", append(append([]byte{}, setMagic...), 2, 1, 'a', 1, 'a')},
		{"set: length past the end", append(append([]byte{}, setMagic...), 1, 5, 'a')},
		{"set: bytes left over", append(append([]byte{}, setMagic...), 1, 1, 'a', 'b')},
		{"set: count over the bytes", append(append([]byte{}, setMagic...), 3, 1, 'a')},
		{"set: truncated length", append(append([]byte{}, setMagic...), 1, 0x80)},
		{"set: over the bound", append(append(append([]byte{}, setMagic...), 1, 0x80, 0x80, 0x40), bytes.Repeat([]byte{'a'}, 1<<20)...)},
		// The deflated layout, written before: read with the same care.
		{"deflated: truncated header", legacy[:5]},
		{"deflated: truncated deflate", legacy[:len(legacy)-3]},
		{"deflated: raw over the bound", append(append([]byte{}, deflatedMagic...), 1, 0xff, 0xff, 0x7f)},
		{"deflated: count over raw", append(append([]byte{}, deflatedMagic...), 9, 2)},
		{"deflated: count off by one", deflated(t, []string{"alpha", "alphabet", "beta", "gamma"}, func(n, raw int, s []byte) (int, int, []byte) { return n + 1, raw, s })},
		{"deflated: stream longer than raw", deflated(t, []string{"alpha", "alphabet", "beta", "gamma"}, func(n, raw int, s []byte) (int, int, []byte) { return n, raw - 1, s })},
		{"deflated: stream shorter than raw", deflated(t, []string{"alpha", "alphabet", "beta", "gamma"}, func(n, raw int, s []byte) (int, int, []byte) { return n, raw + 1, s })},
		{"deflated: unsorted", deflated(t, nil, func(int, int, []byte) (int, int, []byte) { return 2, len(stream), swapFirstTwo(stream) })},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decode(tc.b, 1<<20)
			require.ErrorIs(t, err, ErrCorrupt)
		})
	}
}

// A set, written in any order, decodes sorted.
func TestEncodeSet(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for round := range 100 {
		terms := randomTerms(r, r.IntN(300))
		switch round {
		case 0:
			terms = []string{"", "a", "ab"}
		case 1: // lengths past one uvarint byte, and counts past 127
			terms = nil
			for i := range 200 {
				terms = append(terms, strings.Repeat("x", i)+"y")
			}
			slices.Sort(terms)
		}
		shuffled := slices.Clone(terms)
		r.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		b := EncodeSet(shuffled)
		require.Len(t, b, SetLen(shuffled), "SetLen")
		require.Equal(t, b, ListOf(shuffled).EncodeSet(), "a List's EncodeSet")
		n, ok := Count(b)
		require.True(t, ok)
		require.Equal(t, uint64(len(terms)), n)
		l, err := Decode(b, len(b))
		require.NoError(t, err)
		require.Equal(t, len(terms), l.Len())
		for i, term := range terms {
			require.Equal(t, term, string(l.Term(i)))
		}
	}
}

// A list written deflated, before the raw layout, still decodes.
func TestDecodeDeflated(t *testing.T) {
	for _, terms := range [][]string{nil, {"a"}, {"alpha", "alphabet", "beta", "gamma"}} {
		l, err := Decode(deflated(t, terms, nil), 1<<20)
		require.NoError(t, err)
		require.Equal(t, len(terms), l.Len())
		for i, term := range terms {
			require.Equal(t, term, string(l.Term(i)))
		}
		n, ok := Count(deflated(t, terms, nil))
		require.True(t, ok)
		require.Equal(t, uint64(len(terms)), n)
	}
}

// raw frames stream as a list of n strings, unchecked.
func raw(n int, stream []byte) []byte {
	return append(binary.AppendUvarint(append([]byte{}, rawMagic...), uint64(n)), stream...)
}

// deflated writes terms in the deflated layout, as Encode did before the
// raw one; f, when given, changes the count, raw length and stream first.
func deflated(t *testing.T, terms []string, f func(n, raw int, s []byte) (int, int, []byte)) []byte {
	t.Helper()
	s, err := appendStream(nil, terms)
	require.NoError(t, err)
	n, rawLen := len(terms), len(s)
	if f != nil {
		n, rawLen, s = f(n, rawLen, s)
	}
	head := append(append([]byte{}, deflatedMagic...), binary.AppendUvarint(binary.AppendUvarint(nil, uint64(n)), uint64(rawLen))...)
	out := bytes.NewBuffer(head)
	w, err := flate.NewWriter(out, flate.BestSpeed)
	require.NoError(t, err)
	_, err = w.Write(s)
	require.NoError(t, err)
	require.NoError(t, w.Close())
	return out.Bytes()
}

func swapFirstTwo(stream []byte) []byte {
	// "alpha" then "alphabet" as written: swap them as whole strings.
	a, err := appendStream(nil, []string{"alphabet"})
	if err != nil {
		panic(err)
	}
	b := []byte{0x05}
	b = append(b, "alpha"...)
	return append(a, b...)
}

// Count reads a list's length from its head alone.
func TestCount(t *testing.T) {
	for _, terms := range [][]string{nil, {"a"}, {"a", "b", "c"}, make([]string, 0, 300)} {
		if cap(terms) == 300 {
			for i := range 300 {
				terms = append(terms, fmt.Sprintf("t%04d", i))
			}
		}
		b, err := Encode(terms)
		require.NoError(t, err)
		n, ok := Count(b[:min(14, len(b))])
		assert.True(t, ok)
		assert.Equal(t, uint64(len(terms)), n)
	}
	_, ok := Count([]byte("not a list"))
	assert.False(t, ok)
}
