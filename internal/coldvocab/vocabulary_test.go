package coldvocab

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/vmihailenco/msgpack/v5"

	"github.com/memidx/memidx/internal/blocksum"
	"github.com/memidx/memidx/internal/coverage"
	"github.com/memidx/memidx/internal/frontcode"
	"github.com/memidx/memidx/internal/termtab"
)

// rewrapped returns blob with its vocabulary value replaced by voc,
// sealed again (so that only the value's own encoding is in question).
func rewrapped(t *testing.T, blob []byte, voc []byte) []byte {
	t.Helper()
	d, err := Decode(blob)
	require.NoError(t, err)
	d.Vocabulary = voc
	data, err := msgpack.Marshal(d)
	require.NoError(t, err)
	sealed, err := blocksum.Seal(data)
	require.NoError(t, err)
	return sealed
}

func builtDigest(t *testing.T) ([]byte, []string) {
	t.Helper()
	blob, _, err := Build(Digest{SessionID: "s", File: "/x.jsonl", Size: 1000}, entriesN(6), coverage.Set{}, roomy)
	require.NoError(t, err)
	v, err := Open(blob)
	require.NoError(t, err)
	terms := make([]string, v.Vocabulary.Len())
	for i := range terms {
		terms[i] = string(v.Vocabulary.Term(i))
	}
	require.NoError(t, v.Err())
	return blob, terms
}

func TestVocabularyIsPacked(t *testing.T) {
	blob, terms := builtDigest(t)
	d, err := Decode(blob)
	require.NoError(t, err)
	require.True(t, frontcode.IsList(d.Vocabulary))
	assert.Equal(t, []string{"common", "word0", "word1", "word2", "word3", "word4", "word5", "zeta"}, terms)
}

// A digest written before the vocabulary was packed holds a termtab
// table: it is read as it was.
func TestVocabularyOlderLayout(t *testing.T) {
	blob, terms := builtDigest(t)
	tab, err := termtab.Build(terms, nil)
	require.NoError(t, err)
	v, err := Open(rewrapped(t, blob, tab))
	require.NoError(t, err)
	require.Equal(t, len(terms), v.Vocabulary.Len())
	for i, term := range terms {
		assert.True(t, v.HasTerm(term), term)
		assert.Equal(t, term, string(v.Vocabulary.Term(i)))
	}
	assert.False(t, v.HasTerm("absent"))
	assert.NoError(t, v.Err())
}

// A packed list that does not decode answers nothing and says so.
func TestVocabularyDamagedList(t *testing.T) {
	blob, _ := builtDigest(t)
	v, err := Open(rewrapped(t, blob, []byte("FC1\x00\x05\x09garbage")))
	require.NoError(t, err, "the list is only decoded when read")
	assert.NoError(t, v.Err(), "nothing read yet")
	assert.False(t, v.HasTerm("common"))
	assert.Equal(t, 0, v.Vocabulary.Len())
	assert.ErrorIs(t, v.Err(), ErrCorrupt)
	assert.ErrorIs(t, v.Vocabulary.Err(), frontcode.ErrCorrupt)
}

// A damaged block under the list fails its decoding and is reported as
// the blob's damage.
func TestVocabularyDamagedBlock(t *testing.T) {
	// Random words: a list that deflate cannot shrink to one block.
	ents := entriesN(300)
	r := rand.New(rand.NewPCG(3, 4))
	for i := range ents {
		ents[i].Text = fmt.Sprintf("x%016x y%016x", r.Uint64(), r.Uint64())
	}
	blob, _, err := Build(Digest{SessionID: "s"}, ents, coverage.Set{}, roomy)
	require.NoError(t, err)
	d, err := Decode(blob)
	require.NoError(t, err)
	// The vocabulary's bytes lie in the blob's data: flip its middle one,
	// blocks away from the heads of the two fields that Open reads.
	require.Greater(t, len(d.Vocabulary), 3*blocksum.BlockSize)
	bad := append([]byte(nil), blob...)
	i := indexOf(bad, d.Vocabulary)
	require.Positive(t, i)
	bad[i+len(d.Vocabulary)/2] ^= 0xff
	v, err := Open(bad)
	require.NoError(t, err)
	assert.False(t, v.HasTerm("common"))
	assert.ErrorIs(t, v.Err(), ErrCorrupt)
}

func indexOf(b, sub []byte) int {
	for i := 0; i+len(sub) <= len(b); i++ {
		if string(b[i:i+len(sub)]) == string(sub) {
			return i
		}
	}
	return -1
}

// Concurrent first reads decode the list once and agree.
func TestVocabularyConcurrentReads(t *testing.T) {
	blob, terms := builtDigest(t)
	v, err := Open(blob)
	require.NoError(t, err)
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, term := range terms {
				assert.True(t, v.HasTerm(term))
			}
			assert.NoError(t, v.Err())
		}()
	}
	wg.Wait()
}

// The zero View (returned with an error) answers nothing and panics on
// nothing.
func TestZeroView(t *testing.T) {
	var v View
	assert.False(t, v.HasTerm("x"))
	assert.Equal(t, 0, v.Vocabulary.Len())
	assert.NoError(t, v.Err())
}

// Err may be asked while another goroutine decodes a damaged list (run
// under -race).
func TestVocabularyErrDuringDecode(t *testing.T) {
	blob, _ := builtDigest(t)
	bad := rewrapped(t, blob, []byte("FC1\x00\x05\x09garbage"))
	for range 50 {
		v, err := Open(bad)
		require.NoError(t, err)
		var wg sync.WaitGroup
		wg.Add(2)
		go func() {
			defer wg.Done()
			for range 20 {
				_ = v.Err()
			}
		}()
		go func() {
			defer wg.Done()
			v.HasTerm("common")
		}()
		wg.Wait()
		assert.ErrorIs(t, v.Err(), ErrCorrupt)
	}
}
