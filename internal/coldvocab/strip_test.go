package coldvocab

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/internal/blocksum"
	"github.com/memidx/memidx/internal/coverage"
	"github.com/memidx/memidx/internal/normalize"
)

// The stored form of a digest drops its vocabulary and nothing else: the
// fields and the address table read the same, CacheBytes still counts the
// whole digest, and the vocabulary says the lexicon holds its terms.
func TestStoredDropsOnlyTheVocabulary(t *testing.T) {
	for _, n := range []int{1, 6, 200} {
		t.Run(fmt.Sprint(n, " entries"), func(t *testing.T) {
			full, d, err := Build(Digest{SessionID: "s", File: "/x.jsonl", Size: 1000}, entriesN(n), coverage.Set{}, roomy)
			require.NoError(t, err)
			stored, err := Stored(full)
			require.NoError(t, err)
			fv, err := Open(full)
			require.NoError(t, err)
			sv, err := Open(stored)
			require.NoError(t, err)

			packed, _ := fv.Vocabulary.packed.Slice(0, fv.Vocabulary.packed.Len())
			fdata, err := blocksum.Unseal(full)
			require.NoError(t, err)
			sdata, err := blocksum.Unseal(stored)
			require.NoError(t, err)
			// A bin's length header shrinks to one byte as well.
			assert.InDelta(t, len(packed), len(fdata)-len(sdata), 4, "only the vocabulary's bytes leave")
			assert.Greater(t, len(packed), 0)
			assert.False(t, fv.Vocabulary.InLexicon())
			assert.True(t, sv.Vocabulary.InLexicon())
			assert.Zero(t, sv.Vocabulary.Len())
			assert.NoError(t, sv.Err())

			sd, err := Decode(stored)
			require.NoError(t, err)
			assert.Empty(t, sd.Vocabulary)
			sd.Vocabulary = d.Vocabulary
			assert.Equal(t, d, sd, "every other field is the same")
			assert.Equal(t, len(full), sd.CacheBytes)
			assert.Equal(t, fv.Addresses.Len(), sv.Addresses.Len())
			if n > 0 {
				assert.Equal(t, []uint32{0}, sv.Structural().Entries(normalize.KeyRole + "user")[:1])
			}

			again, err := Stored(stored)
			require.NoError(t, err)
			assert.Equal(t, stored, again, "storing a stored digest changes nothing")
		})
	}
}

// A digest of no terms is stored whole (a few bytes): a reader tells a
// session without words from one whose words the lexicon holds.
func TestStoredKeepsAnEmptyVocabulary(t *testing.T) {
	full, _, err := Build(Digest{SessionID: "s"}, nil, coverage.Set{}, roomy)
	require.NoError(t, err)
	stored, err := Stored(full)
	require.NoError(t, err)
	assert.Equal(t, full, stored)
	v, err := Open(stored)
	require.NoError(t, err)
	assert.False(t, v.Vocabulary.InLexicon())
	assert.Zero(t, v.Vocabulary.Len())
}

// A stored digest that is damaged does not decode, and Stored refuses a
// blob that is not a sealed digest.
func TestStoredRejectsDamage(t *testing.T) {
	full, _, err := Build(Digest{SessionID: "s"}, entriesN(6), coverage.Set{}, roomy)
	require.NoError(t, err)
	stored, err := Stored(full)
	require.NoError(t, err)
	for i := range stored {
		bad := append([]byte(nil), stored...)
		bad[i] ^= 0x40
		_, err := Decode(bad)
		assert.Error(t, err, "byte %d", i)
	}
	_, err = Stored([]byte("not a digest"))
	assert.Error(t, err)
}
