package coldvocab

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/internal/coverage"
	"github.com/memidx/memidx/internal/normalize"
)

// identity is a digest's identity as a record holds it.
var identity = Digest{SessionID: "019d78ae-26a7-7f4c-8e01-b7790e80cbe2", File: "/home/dev/.omp/agent/sessions/-src-x/2026-04-10T12-00-00-000Z_019d78ae.jsonl",
	Cwd: "/src/x", SourceHash: strings.Repeat("ab", 32), Branches: "active", LineageFingerprint: strings.Repeat("cd", 32),
	Policy: "vocab:524288;cache:1048576;branches:active;lineage:x;thinking:false;tool-output:true", Size: 1000, MtimeMs: 1.5e12}

// The stored form of a digest drops its vocabulary and what its record
// holds (the identity), and the names of the other fields: those read
// the same, the address table too, CacheBytes still counts the whole
// digest, and the vocabulary says the lexicon holds its terms.
func TestStoredDropsTheVocabularyAndTheIdentity(t *testing.T) {
	for _, n := range []int{1, 6, 200} {
		t.Run(fmt.Sprint(n, " entries"), func(t *testing.T) {
			full, d, err := Build(identity, entriesN(n), coverage.Set{}, roomy)
			require.NoError(t, err)
			stored, err := Stored(full)
			require.NoError(t, err)
			fv, err := Open(full)
			require.NoError(t, err)
			sv, err := Open(stored)
			require.NoError(t, err)

			packed, _ := fv.Vocabulary.packed.Slice(0, fv.Vocabulary.packed.Len())
			id := len(identity.SessionID) + len(identity.File) + len(identity.Cwd) + len(identity.SourceHash) +
				len(identity.Branches) + len(identity.LineageFingerprint) + len(identity.Policy)
			t.Logf("whole %d B, stored %d B (vocabulary %d B, identity %d B)", len(full), len(stored), len(packed), id)
			assert.LessOrEqual(t, len(stored), len(full)-len(packed)-id, "the vocabulary and the identity leave")
			assert.False(t, fv.Vocabulary.InLexicon())
			assert.True(t, sv.Vocabulary.InLexicon())
			assert.Zero(t, sv.Vocabulary.Len())
			assert.NoError(t, sv.Err())

			sd, err := Decode(stored)
			require.NoError(t, err)
			assert.Empty(t, sd.Vocabulary)
			assert.Empty(t, sd.File, "the record holds the identity")
			sd.Identify(identity)
			sd.Vocabulary = d.Vocabulary
			assert.Equal(t, addrReads(fv), addrReads(sv), "the compact addresses read as the termtab's")
			assert.NotEqual(t, d.Addresses, sd.Addresses, "the addresses are compacted")
			sd.Addresses = d.Addresses
			assert.Equal(t, d, sd, "every other field is the same")
			assert.Equal(t, len(full), sd.CacheBytes)
			assert.Equal(t, []uint32{0}, sv.Structural().Entries(normalize.KeyRole + "user")[:1])

			again, err := Stored(stored)
			require.NoError(t, err)
			assert.Equal(t, stored, again, "storing a stored digest changes nothing")
		})
	}
}

// StoredOf, from the digest Finish returns, gives what Stored gives from
// its blob: for short and long sessions, none, and digests cut by either
// cap. The bytes are the same but for the order of the tool histogram's
// keys, which msgpack writes in map order (either way).
func TestStoredOfIsStoredOfTheBlob(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	cases := []struct {
		name string
		ents []normalize.Entry
		lim  Limits
	}{
		{"empty", nil, roomy},
		{"one", entriesN(1), roomy},
		{"identity", entriesN(30), roomy},
		{"vocabulary cut", entriesN(200), Limits{MaxVocabularyBytes: 300, MaxCacheBytes: 1 << 20}},
		{"addresses cut", entriesN(200), Limits{MaxVocabularyBytes: 1 << 20, MaxCacheBytes: 2000}},
	}
	for i := range 20 {
		cases = append(cases, struct {
			name string
			ents []normalize.Entry
			lim  Limits
		}{fmt.Sprint("random ", i), randomEntries(r, 1+r.Intn(300)), roomy})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			id := identity
			if c.name != "identity" {
				id = Digest{SessionID: "s", Size: 5000}
			}
			full, d, err := Build(id, c.ents, coverage.Set{}, c.lim)
			require.NoError(t, err)
			want, err := Stored(full)
			require.NoError(t, err)
			got, err := StoredOf(d)
			require.NoError(t, err)
			require.Len(t, got, len(want))
			if len(d.ToolHistogram) < 2 {
				assert.Equal(t, want, got)
			}
			wd, err := Decode(want)
			require.NoError(t, err)
			gd, err := Decode(got)
			require.NoError(t, err)
			assert.Equal(t, wd, gd)
		})
	}
}

// A digest of no terms keeps its vocabulary (a few bytes): a reader tells
// a session without words from one whose words the lexicon holds.
func TestStoredKeepsAnEmptyVocabulary(t *testing.T) {
	full, _, err := Build(Digest{SessionID: "s"}, nil, coverage.Set{}, roomy)
	require.NoError(t, err)
	stored, err := Stored(full)
	require.NoError(t, err)
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
