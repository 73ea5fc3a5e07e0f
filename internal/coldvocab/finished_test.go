package coldvocab

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/vmihailenco/msgpack/v5"

	"github.com/memidx/memidx/internal/coverage"
	"github.com/memidx/memidx/internal/normalize"
)

// wordyEntries makes n entries holding words distinct terms of 8
// letters between them: vocabularies whose packed form crosses msgpack's
// byte-string headers (bin 8, 16 and 32).
func wordyEntries(r *rand.Rand, n, words int) []normalize.Entry {
	out := entriesN(n)
	for w := 0; w < words; w++ {
		var b [8]byte
		for i := range b {
			b[i] = byte('a' + r.Intn(26))
		}
		e := &out[w%n]
		e.Text += " " + string(b[:])
	}
	return out
}

// What Complete sizes is what Blob encodes, and what Finish returns:
// CacheBytes is the sealed blob's length; the stored form and the
// structural keys made from the fields are those read back from the blob.
// Sessions short and long, random, with vocabularies across every
// byte-string header, and cut by either cap.
func TestFinishedIsTheBlob(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	type tc struct {
		name string
		ents []normalize.Entry
		lim  Limits
	}
	cases := []tc{
		{"empty", nil, roomy},
		{"one", entriesN(1), roomy},
		{"thirty", entriesN(30), roomy},
		{"vocabulary cut", entriesN(200), Limits{MaxVocabularyBytes: 300, MaxCacheBytes: 1 << 20}},
		{"addresses cut", entriesN(200), Limits{MaxVocabularyBytes: 1 << 20, MaxCacheBytes: 2000}},
		{"cap cuts the vocabulary", wordyEntries(r, 50, 3000), Limits{MaxVocabularyBytes: 1 << 20, MaxCacheBytes: 9000}},
	}
	for _, words := range []int{20, 26, 27, 30, 6000, 7300, 7500, 9000, 20000} {
		cases = append(cases, tc{fmt.Sprint(words, " words"), wordyEntries(r, 40, words), Limits{MaxVocabularyBytes: 4 << 20, MaxCacheBytes: 8 << 20}})
	}
	for i := range 20 {
		cases = append(cases, tc{fmt.Sprint("random ", i), randomEntries(r, 1+r.Intn(300)), roomy})
	}
	sizes := map[int]bool{}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			build := func() *Builder {
				b := NewBuilder(identity, c.lim)
				for i := range c.ents {
					b.Add(&c.ents[i])
				}
				return b
			}
			f, err := build().Complete(coverage.Set{})
			require.NoError(t, err)
			blob, d, err := f.Blob()
			require.NoError(t, err)
			require.Len(t, blob, f.Size())
			assert.Equal(t, f.Size(), d.CacheBytes)
			assert.Equal(t, f.Size(), f.Digest().CacheBytes)
			assert.Nil(t, f.Digest().Addresses, "Complete's digest leaves the addresses to Blob")
			sizes[binLen(len(d.Vocabulary))-len(d.Vocabulary)] = true

			old, od, err := build().Finish(coverage.Set{})
			require.NoError(t, err)
			require.Len(t, old, len(blob))
			assert.Equal(t, od, d)

			got, err := f.Stored()
			require.NoError(t, err)
			want, err := Stored(blob)
			require.NoError(t, err)
			require.Len(t, got, len(want))
			if len(d.ToolHistogram) < 2 { // msgpack writes a map in its own order
				assert.Equal(t, want, got)
			}
			gd, err := Decode(got)
			require.NoError(t, err)
			wd, err := Decode(want)
			require.NoError(t, err)
			assert.Equal(t, wd, gd)

			v, err := Open(blob)
			require.NoError(t, err)
			assert.Equal(t, v.Addresses.StructuralKeys(), f.StructuralKeys())
		})
	}
	assert.Equal(t, map[int]bool{2: true, 3: true, 5: true}, sizes, "vocabularies under every byte-string header")
}

// encodedLen is the length msgpack writes, for byte strings empty and at
// each header's bounds; uintLen the width of an int field.
func TestEncodedLenIsMarshals(t *testing.T) {
	c := identity
	c.ToolHistogram = map[string]int{"bash": 2}
	c.IndexCoverage.Reasons = []string{strings.Repeat("r", 300)}
	sizes := []int{0, 255, 256, 1<<16 - 1, 1 << 16}
	for _, nv := range sizes {
		for _, na := range sizes {
			c.Vocabulary, c.Addresses = make([]byte, nv), make([]byte, na)
			want, err := msgpack.Marshal(&c)
			require.NoError(t, err)
			got, err := c.encodedLen(nv, na)
			require.NoError(t, err)
			assert.Equal(t, len(want), got, "vocabulary %d, addresses %d", nv, na)
		}
	}
	for _, v := range []uint64{0, 127, 128, 255, 256, 65535, 65536, 1<<32 - 1, 1 << 32} {
		want, err := msgpack.Marshal(int(v))
		require.NoError(t, err)
		assert.Equal(t, len(want), uintLen(v), "%d", v)
	}
}
