package termtab

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand"
	"slices"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/internal/blocksum"
)

func TestRoundTrip(t *testing.T) {
	terms := []string{"", "a", "ab", "b", "zeta", "ωmega", "雪"}
	payloads := make([][]byte, len(terms))
	for i := range terms {
		payloads[i] = []byte(fmt.Sprint(i))
	}
	for _, withPayloads := range []bool{false, true} {
		var p [][]byte
		if withPayloads {
			p = payloads
		}
		b, err := Build(terms, p)
		require.NoError(t, err)
		tab, err := Open(blocksum.Trusted(b))
		require.NoError(t, err)
		require.Equal(t, len(terms), tab.Len())
		for i, term := range terms {
			j, ok := tab.Find(term)
			assert.True(t, ok, term)
			assert.Equal(t, i, j)
			assert.Equal(t, term, string(tab.Term(i)))
			if withPayloads {
				assert.Equal(t, payloads[i], tab.Payload(i))
			} else {
				assert.Nil(t, tab.Payload(i))
			}
		}
		for _, miss := range []string{"aa", "c", "zz", "ω"} {
			assert.False(t, tab.Has(miss), miss)
		}
		lo, hi := tab.Prefix("a")
		assert.Equal(t, []int{1, 3}, []int{lo, hi})
	}
}

func TestBuildRejectsUnsorted(t *testing.T) {
	_, err := Build([]string{"b", "a"}, nil)
	assert.Error(t, err)
	_, err = Build([]string{"a", "a"}, nil)
	assert.Error(t, err)
	_, err = Build([]string{"a"}, [][]byte{})
	assert.Error(t, err)
}

func TestOpenRejectsDamage(t *testing.T) {
	b, err := Build([]string{"alpha", "beta", "gamma"}, [][]byte{{1}, {2, 2}, {3}})
	require.NoError(t, err)
	for i := 0; i < len(b); i++ {
		_, err := Open(blocksum.Trusted(b[:i]))
		assert.Error(t, err, "truncated at %d", i)
	}
	// A swapped pair of offsets opens (constant-time checks) but fails
	// Verify and reads as empty, never out of range.
	c := append([]byte(nil), b...)
	copy(c[16:20], []byte{0xff, 0, 0, 0})
	tab, err := Open(blocksum.Trusted(c))
	require.NoError(t, err)
	assert.ErrorIs(t, tab.Verify(), ErrCorrupt)
	assert.Nil(t, tab.Term(0))
	tab, err = Open(blocksum.Trusted(b))
	require.NoError(t, err)
	assert.NoError(t, tab.Verify())
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 2000; i++ {
		c := append([]byte(nil), b...)
		c[rng.Intn(len(c))] ^= byte(1 + rng.Intn(255))
		tab, err := Open(blocksum.Trusted(c))
		if err != nil {
			continue
		}
		// Whatever opens must be safe to read in full.
		for j := 0; j < tab.Len(); j++ {
			_ = tab.Term(j)
			_ = tab.Payload(j)
		}
		tab.Find("beta")
	}
}

// In a sealed table, any one damaged byte is caught: Open fails, or every
// lookup either answers as the good table does or Err reports the damage.
// (Unsealed, a changed letter inside a term silently changes answers.)
func TestSealedDamageIsNeverSilent(t *testing.T) {
	terms := make([]string, 300)
	payloads := make([][]byte, len(terms))
	for i := range terms {
		terms[i] = fmt.Sprintf("term%04d", i*3)
		payloads[i] = []byte(fmt.Sprint(i))
	}
	raw, err := Build(terms, payloads)
	require.NoError(t, err)
	good, err := blocksum.Seal(raw)
	require.NoError(t, err)
	probes := append([]string{"term0001", "zzz", "a"}, terms...)
	silent := 0
	for i := range good {
		bad := append([]byte(nil), good...)
		bad[i] ^= 0x01
		b, err := blocksum.Open(bad)
		if err != nil {
			continue
		}
		tab, err := Open(b)
		if err != nil {
			continue
		}
		for k, p := range probes {
			j, ok := tab.Find(p)
			if tab.Err() != nil {
				break
			}
			want := k >= 3
			if ok != want || ok && (j != k-3 || string(tab.Payload(j)) != fmt.Sprint(k-3)) {
				if tab.Err() == nil {
					silent++
					t.Errorf("byte %d: Find(%q) = %d, %v with no error", i, p, j, ok)
				}
			}
		}
	}
	assert.Zero(t, silent)
}

func FuzzOpen(f *testing.F) {
	b, _ := Build([]string{"a", "b"}, [][]byte{{1}, {2}})
	f.Add(b)
	// Past 32 terms, so that lookups go through the head.
	many := headTerms(rand.New(rand.NewSource(5)), 100)
	b, _ = Build(many, nil)
	f.Add(b)
	f.Fuzz(func(t *testing.T, data []byte) {
		tab, err := Open(blocksum.Trusted(data))
		if err != nil {
			return
		}
		for j := 0; j < tab.Len(); j++ {
			_ = tab.Term(j)
			_ = tab.Payload(j)
		}
		for _, q := range []string{"a", many[40], "prefix00", "w"} {
			tab.Find(q)
			tab.Prefix(q)
		}
		// A table that verifies finds each of its terms where it is.
		if tab.Verify() == nil {
			for j := 0; j < tab.Len(); j++ {
				if i, ok := tab.Find(string(tab.Term(j))); !ok || i != j {
					t.Fatalf("term %d (%q) found at %d, %v", j, tab.Term(j), i, ok)
				}
			}
		}
	})
}

func BenchmarkFind(b *testing.B) {
	rng := rand.New(rand.NewSource(1))
	set := map[string]bool{}
	for len(set) < 50000 {
		set[fmt.Sprintf("t%x", rng.Int63())] = true
	}
	terms := make([]string, 0, len(set))
	for t := range set {
		terms = append(terms, t)
	}
	sort.Strings(terms)
	data, _ := Build(terms, nil)
	tab, _ := Open(blocksum.Trusted(data))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		tab.Find(terms[i%len(terms)])
	}
}

// BuildPacked writes the bytes Build writes for the same payloads.
func TestBuildPackedIsBuild(t *testing.T) {
	for _, n := range []int{0, 1, 7, 300} {
		terms := make([]string, n)
		payloads := make([][]byte, n)
		var pays []byte
		ends := make([]uint32, n)
		for i := range terms {
			terms[i] = fmt.Sprintf("t%05d", i)
			payloads[i] = bytes.Repeat([]byte{byte(i)}, i%5)
			pays = append(pays, payloads[i]...)
			ends[i] = uint32(len(pays))
		}
		want, err := Build(terms, payloads)
		if err != nil {
			t.Fatal(err)
		}
		got, err := BuildPacked(terms, pays, ends)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(want, got) {
			t.Fatalf("%d terms: packed table differs", n)
		}
	}
}

// headTerms returns n sorted unique terms, many sharing their first 8
// bytes (ties in the head) and some shorter than 8 (zero padding).
func headTerms(r *rand.Rand, n int) []string {
	seen := map[string]bool{}
	var out []string
	for len(out) < n {
		var t string
		switch r.Intn(3) {
		case 0:
			t = fmt.Sprintf("prefix00%04d", r.Intn(4*n+1))
		case 1:
			t = fmt.Sprintf("w%x", r.Intn(8*n+1))
		default:
			t = fmt.Sprintf("\x00k%d", r.Intn(n+1))
		}
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	slices.Sort(out)
	return out
}

// Find through the head finds every term and places every other string
// where a binary search of the whole table does, at every size around
// the head's sampling.
func TestHeadFind(t *testing.T) {
	r := rand.New(rand.NewSource(9))
	for _, n := range []int{0, 1, 31, 32, 33, 64, 65, 500, 3000} {
		terms := headTerms(r, n)
		b, err := Build(terms, nil)
		require.NoError(t, err)
		tab, err := Open(blocksum.Trusted(b))
		require.NoError(t, err)
		require.True(t, tab.head)
		require.NoError(t, tab.Verify())
		queries := append(slices.Clone(terms), headTerms(r, 200)...)
		queries = append(queries, "", "\x00", "prefix00", "prefix0", "\xff")
		for _, q := range queries {
			i, ok := tab.Find(q)
			want, wantOK := slices.BinarySearch(terms, q)
			require.Equal(t, wantOK, ok, "n=%d %q", n, q)
			require.Equal(t, want, i, "n=%d %q", n, q)
		}
	}
}

// withoutHead rewrites a table as tables were written before heads.
func withoutHead(t *testing.T, b []byte, n int) []byte {
	t.Helper()
	old := slices.Clone(b[:len(b)-headLen(n)])
	flags := binary.LittleEndian.Uint32(old[8:]) &^ flagHead
	binary.LittleEndian.PutUint32(old[8:], flags)
	return old
}

// A table written before heads is searched whole, as before.
func TestTableWithoutHead(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	terms := headTerms(r, 700)
	pays := make([][]byte, len(terms))
	for i := range pays {
		pays[i] = []byte(fmt.Sprint(i))
	}
	b, err := Build(terms, pays)
	require.NoError(t, err)
	tab, err := Open(blocksum.Trusted(withoutHead(t, b, len(terms))))
	require.NoError(t, err)
	require.False(t, tab.head)
	require.NoError(t, tab.Verify())
	for i, term := range terms {
		j, ok := tab.Find(term)
		require.True(t, ok)
		require.Equal(t, i, j)
		require.Equal(t, fmt.Sprint(i), string(tab.Payload(j)))
	}
}

// A head whose bytes are wrong (a bug, or damage the checksums missed)
// fails Verify; a head that does not read is reported and the lookup
// searches the whole table, still right.
func TestDamagedHead(t *testing.T) {
	r := rand.New(rand.NewSource(13))
	terms := headTerms(r, 2000)
	b, err := Build(terms, nil)
	require.NoError(t, err)
	bad := slices.Clone(b)
	bad[len(bad)-8*10] ^= 0x40 // a sample in the middle
	tab, err := Open(blocksum.Trusted(bad))
	require.NoError(t, err)
	require.ErrorIs(t, tab.Verify(), ErrCorrupt)

	sealed, err := blocksum.Seal(b)
	require.NoError(t, err)
	sealed[len(sealed)-8*10] ^= 0x40
	v, err := blocksum.Open(sealed)
	require.NoError(t, err)
	tab, err = Open(v)
	require.NoError(t, err)
	for _, q := range terms[len(terms)-400:] {
		_, ok := tab.Find(q)
		if !ok {
			require.Error(t, tab.Err(), "%q not found without damage reported", q)
		}
	}
	require.Error(t, tab.Err())
}

// Size is the length Build writes, with payloads and without, at every
// size around the head's sampling.
func TestSizeIsBuildsLength(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	for _, n := range []int{0, 1, 2, headEvery - 1, headEvery, headEvery + 1, 200} {
		terms := headTerms(r, n)
		payloads := make([][]byte, n)
		for i := range payloads {
			payloads[i] = bytes.Repeat([]byte{7}, r.Intn(300))
		}
		for _, p := range [][][]byte{nil, payloads} {
			b, err := Build(terms, p)
			require.NoError(t, err)
			assert.Equal(t, len(b), Size(terms, p), "%d terms, payloads %v", n, p != nil)
			termBytes, payloadBytes := 0, -1
			for _, term := range terms {
				termBytes += len(term)
			}
			if p != nil {
				payloadBytes = 0
				for _, x := range p {
					payloadBytes += len(x)
				}
			}
			assert.Equal(t, len(b), SizeOf(n, termBytes, payloadBytes), "SizeOf: %d terms, payloads %v", n, p != nil)
		}
	}
}
