package termtab

import (
	"bytes"
	"fmt"
	"math/rand"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/blocksum"
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
	f.Fuzz(func(t *testing.T, data []byte) {
		tab, err := Open(blocksum.Trusted(data))
		if err != nil {
			return
		}
		for j := 0; j < tab.Len(); j++ {
			_ = tab.Term(j)
			_ = tab.Payload(j)
		}
		tab.Find("a")
		tab.Prefix("a")
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
