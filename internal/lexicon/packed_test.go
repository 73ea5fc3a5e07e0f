package lexicon

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/internal/blocksum"
	"github.com/memidx/memidx/internal/termtab"
)

// randomKeys returns n sorted unique keys with long shared prefixes (past
// a run's 64-byte key buffer too) and structural keys.
func randomKeys(r *rand.Rand, n int) []string {
	long := strings.Repeat("p", 70)
	var keys []string
	for range n {
		var k string
		switch r.IntN(4) {
		case 0:
			k = fmt.Sprintf("w%x", r.IntN(5000))
		case 1:
			k = long + fmt.Sprintf("%d", r.IntN(100))
		case 2:
			k = fmt.Sprintf("\x00t%d", r.IntN(50))
		default:
			k = fmt.Sprintf("w%x_%d", r.IntN(50), r.IntN(9))
		}
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return slices.Compact(keys)
}

// Every key of a packed table is found with its own payload, every other
// string is absent, and a walk returns them all in order: at every size
// around the runs' boundaries.
func TestPackedTable(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{0, 1, 2, 15, 16, 17, 31, 32, 33, 200, 1000} {
		keys := randomKeys(r, n)
		var w packedWriter
		for i, k := range keys {
			require.NoError(t, w.Append([]byte(k), []byte(fmt.Sprint(i))))
		}
		tab, ok := openPacked(blocksum.Trusted(w.Bytes()))
		require.True(t, ok, "n=%d", n)
		require.Equal(t, len(keys), tab.n)
		for i, k := range keys {
			p, found, ok := tab.find(k)
			require.True(t, ok && found, "n=%d %q", n, k)
			require.Equal(t, fmt.Sprint(i), string(p))
		}
		for range 200 {
			q := randomKeys(r, 1)[0] + string(rune('a' + r.IntN(3)))[:r.IntN(2)]
			_, found, ok := tab.find(q)
			require.True(t, ok)
			_, want := slices.BinarySearch(keys, q)
			require.Equal(t, want, found, "n=%d %q", n, q)
		}
		for _, q := range []string{"", "\x00", "\xff\xff"} {
			_, found, _ := tab.find(q)
			_, want := slices.BinarySearch(keys, q)
			require.Equal(t, want, found, q)
		}
		it := tab.iter()
		var got []string
		for {
			more, ok := it.next()
			require.True(t, ok)
			if !more {
				break
			}
			require.Equal(t, fmt.Sprint(len(got)), string(it.pay))
			got = append(got, string(it.key()))
		}
		require.Equal(t, len(keys), len(got))
		if n > 0 {
			require.Equal(t, keys, got)
		}
	}
}

func TestPackedWriterRejectsUnsorted(t *testing.T) {
	var w packedWriter
	require.NoError(t, w.Append([]byte("b"), nil))
	require.Error(t, w.Append([]byte("b"), nil))
	require.Error(t, w.Append([]byte("a"), nil))
}

// oldSegment writes a segment as memidx did before packed tables: a
// sealed termtab table.
func oldSegment(t *testing.T, sessions map[uint32][]string) Segment {
	t.Helper()
	s, err := Open(oldSealed(t, sessions))
	require.NoError(t, err)
	require.False(t, s.packed)
	return s
}

func oldSealed(t testing.TB, sessions map[uint32][]string) []byte {
	t.Helper()
	byKey := map[string][]uint32{}
	for d, keys := range sessions {
		for _, k := range keys {
			byKey[k] = append(byKey[k], d)
		}
	}
	keys := make([]string, 0, len(byKey))
	for k := range byKey {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	pays := make([][]byte, len(keys))
	for i, k := range keys {
		docs := byKey[k]
		slices.Sort(docs)
		pays[i] = appendPostings(nil, docs)
	}
	tab, err := termtab.Build(keys, pays)
	require.NoError(t, err)
	sealed, err := blocksum.Seal(tab)
	require.NoError(t, err)
	return sealed
}

// A segment written before packed tables is read, counted and merged with
// new ones.
func TestOlderSegments(t *testing.T) {
	old := oldSegment(t, map[uint32][]string{1: {"alpha", "beta"}, 2: {"beta"}})
	cur := build(t, map[uint32][]string{5: {"beta", "gamma"}})
	require.True(t, cur.packed)
	require.Equal(t, []uint32{1, 2}, docs(t, []Segment{old}, "beta"))
	c, err := old.Census()
	require.NoError(t, err)
	require.Equal(t, Census{{Doc: 1, Keys: 2}, {Doc: 2, Keys: 1}}, c)
	sealed, err := Merge([]Segment{old, cur}, func(d uint32) bool { return d != 2 })
	require.NoError(t, err)
	m, err := Open(sealed)
	require.NoError(t, err)
	require.True(t, m.packed)
	require.Equal(t, []uint32{1, 5}, docs(t, []Segment{m}, "beta"))
	require.Equal(t, []uint32{1}, docs(t, []Segment{m}, "alpha"))
	require.Equal(t, []uint32{5}, docs(t, []Segment{m}, "gamma"))
	require.Equal(t, 3, m.Len())
}

// The packed table is smaller than the termtab one for the same keys.
func TestPackedIsSmaller(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	sessions := map[uint32][]string{}
	for d := uint32(1); d <= 20; d++ {
		sessions[d] = randomKeys(r, 300)
	}
	b := NewBuilder()
	for d, k := range sessions {
		b.Add(d, k)
	}
	packed, err := b.Build()
	require.NoError(t, err)
	old := oldSealed(t, sessions)
	require.Less(t, float64(len(packed)), 0.8*float64(len(old)), "%d against %d bytes", len(packed), len(old))
}

// rawPacked writes a packed table entry by entry, unchecked: for tables
// the writer refuses to make.
func rawPacked(t *testing.T, ents []rawEntry) []byte {
	t.Helper()
	b := make([]byte, packedHeaderLen)
	var runs []uint32
	for i, e := range ents {
		if i%runLen == 0 {
			runs = append(runs, uint32(len(b)))
		}
		b = binary.AppendUvarint(b, uint64(e.shared))
		b = binary.AppendUvarint(b, uint64(len(e.rest)))
		b = append(b, e.rest...)
		p := appendPostings(nil, e.docs)
		b = binary.AppendUvarint(b, uint64(len(p)))
		b = append(b, p...)
	}
	copy(b, packedMagic)
	binary.LittleEndian.PutUint32(b[4:], uint32(len(ents)))
	binary.LittleEndian.PutUint32(b[8:], uint32(len(b)))
	for _, r := range runs {
		b = binary.LittleEndian.AppendUint32(b, r)
	}
	sealed, err := blocksum.Seal(b)
	require.NoError(t, err)
	return sealed
}

type rawEntry struct {
	shared int
	rest   string
	docs   []uint32
}

// A table that repeats a key (only a bug could write one: its checksums
// are good) is refused by a merge, never merged into other keys' postings.
func TestMergeRefusesRepeatedKey(t *testing.T) {
	s, err := Open(rawPacked(t, []rawEntry{{0, "ab", []uint32{1}}, {2, "", []uint32{2}}, {0, "zz", []uint32{3}}}))
	require.NoError(t, err)
	_, err = Merge([]Segment{s}, nil)
	require.ErrorIs(t, err, ErrCorrupt)
	_, err = s.Census()
	require.ErrorIs(t, err, ErrCorrupt)
}

// A lookup of a long key allocates nothing.
func TestLongKeyLookupAllocatesNothing(t *testing.T) {
	long := strings.Repeat("k", 100)
	b := NewBuilder()
	for d := uint32(1); d <= 40; d++ {
		b.Add(d, []string{fmt.Sprintf("%s%03d", long, d), fmt.Sprintf("%s%03db", long, d)})
	}
	sealed, err := b.Build()
	require.NoError(t, err)
	s, err := Open(sealed)
	require.NoError(t, err)
	dst := make([]uint32, 0, 8)
	key := long + "017b"
	allocs := testing.AllocsPerRun(100, func() {
		var err error
		if dst, err = s.AppendDocs(dst[:0], key); err != nil || len(dst) != 1 {
			t.Fatalf("%v %v", dst, err)
		}
	})
	require.Zero(t, allocs)
}

// A lookup verifies the payload of the key it finds and no other: a
// damaged block under a neighbour's postings fails only that neighbour
// (a search passes over the postings of every key it compares, and those
// of a common word run to kilobytes).
func TestPackedLookupVerifiesOnlyItsPayload(t *testing.T) {
	big := strings.Repeat("x", 4*blocksum.BlockSize)
	var w packedWriter
	keys := []string{"a", "b", "c"}
	for _, k := range keys {
		pay := k
		if k == "b" {
			pay = big
		}
		require.NoError(t, w.Append([]byte(k), []byte(pay)))
	}
	sealed, err := blocksum.Seal(w.Bytes())
	require.NoError(t, err)
	data, err := blocksum.Unseal(sealed)
	require.NoError(t, err)
	at := strings.Index(string(data), big) + 2*blocksum.BlockSize // inside b's payload
	bad := slices.Clone(sealed)
	bad[len(sealed)-len(data)+at] ^= 0xff
	b, err := blocksum.Open(bad)
	require.NoError(t, err)
	tab, ok := openPacked(b)
	require.True(t, ok)
	for _, k := range []string{"a", "c"} {
		p, found, ok := tab.find(k)
		require.True(t, ok && found, k)
		require.Equal(t, k, string(p))
	}
	_, _, ok = tab.find("b")
	require.False(t, ok, "b's damaged payload is reported")
}
