package coldvocab

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/vmihailenco/msgpack/v5"

	"github.com/memidx/memidx/internal/blocksum"
	"github.com/memidx/memidx/internal/coverage"
	"github.com/memidx/memidx/internal/normalize"
)

func sp(s string) *string { return &s }

var roomy = Limits{MaxVocabularyBytes: 1 << 20, MaxCacheBytes: 1 << 20}

func entriesN(n int) []normalize.Entry {
	var out []normalize.Entry
	for i := 0; i < n; i++ {
		ts := float64(1000 + i)
		e := normalize.Entry{Index: i, EntryID: sp(fmt.Sprintf("e%d", i)), Type: "message", Role: sp("user"), Timestamp: &ts,
			Text: fmt.Sprintf("word%d common Zeta", i)}
		if i%2 == 1 {
			e.Role = sp("toolResult")
			e.Tool, e.Ref, e.Provider, e.Action, e.Outcome = sp("bash"), sp("omp.bash"), sp("omp"), sp("bash"), sp("failed")
			e.IsError = true
			e.FilesTouched = []string{fmt.Sprintf("f%d.go", i)}
		}
		out = append(out, e)
	}
	return out
}

func TestDigestRoundTrip(t *testing.T) {
	ents := entriesN(6)
	blob, d, err := Build(Digest{SessionID: "s", File: "/x.jsonl", Size: 1000}, ents, coverage.Set{}, roomy)
	require.NoError(t, err)
	assert.Equal(t, len(blob), d.CacheBytes)
	assert.Equal(t, 6, d.EntryCount)
	assert.Equal(t, 3, d.ErrorCount)
	assert.Equal(t, map[string]int{"bash": 3}, d.ToolHistogram)
	assert.Equal(t, []string{"f1.go", "f3.go", "f5.go"}, d.FilesTouched)
	assert.Equal(t, 1000.0, *d.FirstTs)
	assert.Equal(t, 1005.0, *d.LastTs)
	assert.True(t, d.IndexCoverage.Complete)
	assert.InDelta(t, float64(len(blob))/1000, d.CacheSourceRatio, 1e-6)

	v, err := Open(blob)
	require.NoError(t, err)
	for _, term := range []string{"word0", "word5", "common", "zeta"} {
		assert.True(t, v.HasTerm(term), term)
	}
	assert.False(t, v.HasTerm("Zeta"), "terms are canonical")
	assert.False(t, v.HasTerm("word6"))
	assert.Equal(t, []uint32{1, 3, 5}, v.Structural().Entries(normalize.KeyOutcome+"failed"))
	assert.Equal(t, []uint32{0, 2, 4}, v.Structural().Entries(normalize.KeyRole+"user"))
	assert.Nil(t, v.Structural().Entries(normalize.KeyRef+"omp.read"))
	assert.True(t, v.HasEntryID("e3"))
	ts, ok := v.Structural().Timestamp(2)
	assert.True(t, ok)
	assert.Equal(t, 1002.0, ts)

	full, err := Decode(blob)
	require.NoError(t, err)
	assert.Equal(t, "s", full.SessionID)
	assert.Equal(t, 6, full.CacheVersion)
	assert.Equal(t, "digest", full.Kind)
}

func TestVocabularyBudget(t *testing.T) {
	ents := entriesN(200)
	_, d, err := Build(Digest{}, ents, coverage.Set{}, Limits{MaxVocabularyBytes: 100, MaxCacheBytes: 1 << 20})
	require.NoError(t, err)
	assert.False(t, d.IndexCoverage.Complete)
	assert.Contains(t, d.IndexCoverage.Reasons, coverage.MaxColdVocabularyBytes)
	assert.True(t, d.IndexCoverage.VocabularyCut)
	assert.LessOrEqual(t, d.IndexCoverage.VocabularyBytes, 100)
}

// A builder's Terms are the vocabulary its blob holds, term for term (in
// no particular order; a reader's are sorted), whole or cut by either
// cap, and a copy: the next builder that takes the pooled term set does
// not change them.
func TestBuilderTermsAreTheBlobsVocabulary(t *testing.T) {
	ents := entriesN(400)
	whole, _, err := Build(Digest{}, ents, coverage.Set{}, roomy)
	require.NoError(t, err)
	// The largest cap that cuts the vocabulary (every address is cut
	// first): one under the least that keeps it whole.
	cuts := sort.Search(len(whole), func(c int) bool {
		_, d, err := Build(Digest{}, ents, coverage.Set{}, Limits{MaxVocabularyBytes: 1 << 20, MaxCacheBytes: c})
		return err == nil && d.IndexCoverage.VocabularyLastTerm == nil
	}) - 1
	for _, lim := range []Limits{roomy, {MaxVocabularyBytes: 100, MaxCacheBytes: 1 << 20},
		{MaxVocabularyBytes: 1 << 20, MaxCacheBytes: len(whole) / 2}, {MaxVocabularyBytes: 1 << 20, MaxCacheBytes: cuts}} {
		b := NewBuilder(Digest{}, lim)
		assert.Nil(t, b.Terms(), "before Finish")
		for i := range ents {
			b.Add(&ents[i])
		}
		blob, _, err := b.Finish(coverage.Set{})
		require.NoError(t, err)
		terms := b.Terms()
		require.NotNil(t, terms)
		snapshot := make([]string, terms.Len())
		for i := range snapshot {
			snapshot[i] = string(terms.Term(i))
		}
		_, _, err = Build(Digest{}, entriesN(50), coverage.Set{}, roomy) // takes the term set back
		require.NoError(t, err)
		v, err := Open(blob)
		require.NoError(t, err)
		require.Equal(t, v.Vocabulary.Len(), terms.Len(), "%+v", lim)
		require.Positive(t, terms.Len())
		for i := range snapshot {
			require.Equal(t, snapshot[i], string(terms.Term(i)), "%+v: term %d changed", lim, i)
		}
		slices.Sort(snapshot)
		for i := range snapshot {
			require.Equal(t, string(v.Vocabulary.Term(i)), snapshot[i], "%+v: term %d", lim, i)
		}
	}
}

func TestCacheCapKeepsExactPrefixes(t *testing.T) {
	ents := entriesN(400)
	blob, _, err := Build(Digest{}, ents, coverage.Set{}, roomy)
	require.NoError(t, err)
	for _, limit := range []int{len(blob) - 1, len(blob) / 2, 4096, 1200} {
		b, d, err := Build(Digest{}, ents, coverage.Set{}, Limits{MaxVocabularyBytes: 1 << 20, MaxCacheBytes: limit})
		require.NoError(t, err, "limit %d", limit)
		assert.LessOrEqual(t, len(b), limit)
		assert.Equal(t, len(b), d.CacheBytes)
		assert.Contains(t, d.IndexCoverage.Reasons, coverage.MaxColdCacheBytes)
		assert.False(t, d.IndexCoverage.Complete)
		v, err := Open(b)
		require.NoError(t, err)
		// The vocabulary stays whole while any address prefix fits; then
		// it is an exact sorted prefix.
		last := "\U0010FFFF"
		if d.IndexCoverage.AddressCount > 0 {
			assert.Nil(t, d.IndexCoverage.VocabularyLastTerm, "limit %d", limit)
		} else {
			require.NotNil(t, d.IndexCoverage.VocabularyLastTerm)
			last = *d.IndexCoverage.VocabularyLastTerm
		}
		for i := 0; i < 400; i++ {
			term := fmt.Sprintf("word%d", i)
			if term <= last {
				assert.True(t, v.HasTerm(term), "limit %d: %s <= %s must be kept", limit, term, last)
			} else {
				assert.False(t, v.HasTerm(term))
			}
		}
		assert.Equal(t, d.IndexCoverage.AddressCount, v.Structural().Count())
	}
	_, _, err = Build(Digest{}, ents, coverage.Set{}, Limits{MaxVocabularyBytes: 1 << 20, MaxCacheBytes: 50})
	assert.Error(t, err)
}

func TestOpenRejectsForeignBlobs(t *testing.T) {
	for _, b := range [][]byte{nil, {0x80}, []byte("garbage"), []byte(strings.Repeat("\xde", 40))} {
		_, err := Open(b)
		assert.ErrorIs(t, err, ErrCorrupt)
	}
	_, err := Decode([]byte{0x81, 0xa1, 'x', 0x01})
	assert.ErrorIs(t, err, ErrCorrupt)
}

// FuzzOpen feeds arbitrary bytes as a stored blob, and sealed as the
// digest's data (so that the fuzzer explores the parser, not only the
// checksums): nothing panics, and whatever opens reads safely.
func FuzzOpen(f *testing.F) {
	blob, _, _ := Build(Digest{}, entriesN(3), coverage.Set{}, roomy)
	f.Add(blob)
	if data, err := blocksum.Unseal(blob); err == nil {
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		sealed, err := blocksum.Seal(b)
		if err != nil {
			return
		}
		for _, in := range [][]byte{b, sealed} {
			v, err := Open(in)
			if err != nil {
				continue
			}
			v.HasTerm("word1")
			v.HasEntryID("e1")
			st := v.Structural()
			st.Entries(normalize.KeyRole + "user")
			for i := 0; i < st.Count(); i++ {
				st.Timestamp(i)
			}
			_ = v.Err()
			_, _ = Decode(in)
		}
	})
}

// viewReads is everything a query can read through a View, as text.
func viewReads(v View) string {
	var b strings.Builder
	for _, term := range []string{"word0", "word5", "common", "zeta", "nothere"} {
		fmt.Fprintf(&b, "%s=%v ", term, v.HasTerm(term))
	}
	for _, key := range []string{normalize.KeyOutcome + "failed", normalize.KeyRole + "user", normalize.KeyTool + "bash"} {
		fmt.Fprintf(&b, "%v ", v.Structural().Entries(key))
	}
	fmt.Fprintf(&b, "%d %v ", v.Structural().Count(), v.HasEntryID("e3"))
	for i := 0; i < v.Structural().Count(); i++ {
		ts, ok := v.Structural().Timestamp(i)
		fmt.Fprintf(&b, "%v/%v ", ts, ok)
	}
	return b.String()
}

// Every single damaged byte of a digest is caught: Open fails, or every
// read answers as before, or Err reports the damage; Decode refuses it.
func TestDamageIsNeverSilent(t *testing.T) {
	blob, _, err := Build(Digest{SessionID: "s", File: "/x.jsonl", Size: 1000}, entriesN(40), coverage.Set{}, roomy)
	require.NoError(t, err)
	good, err := Open(blob)
	require.NoError(t, err)
	want := viewReads(good)
	for i := range blob {
		bad := append([]byte(nil), blob...)
		bad[i] ^= 0x04
		_, derr := Decode(bad)
		require.Error(t, derr, "Decode of a blob damaged at %d", i)
		v, err := Open(bad)
		if err != nil {
			continue
		}
		if got := viewReads(v); got != want && v.Err() == nil {
			t.Fatalf("byte %d: reads changed with no error:\n%s\nwant\n%s", i, got, want)
		}
	}
}

// A digest's bytes are msgpack.Marshal's of the digest it returns, at
// every size the cap's search and the cacheBytes fixpoint go through.
func TestDigestBytesAreMarshals(t *testing.T) {
	for _, n := range []int{0, 1, 7, 300} {
		for _, lim := range []Limits{roomy, {MaxVocabularyBytes: 1 << 20, MaxCacheBytes: 2000}} {
			blob, d, err := Build(Digest{SessionID: "s", File: "/x.jsonl", Size: 1000}, entriesN(n), coverage.Set{}, lim)
			require.NoError(t, err)
			data, err := blocksum.Unseal(blob)
			require.NoError(t, err)
			want, err := msgpack.Marshal(d)
			require.NoError(t, err)
			require.Equal(t, want, data, "%d entries, cap %d", n, lim.MaxCacheBytes)
		}
	}
}

// Builders share their term sets through a pool: a digest built before
// others (here, side by side on many goroutines, with cut vocabularies
// whose last term the digest keeps) is the same after them, and a set
// comes back empty.
func TestPooledTermsOutliveNothing(t *testing.T) {
	build := func(k int) ([]byte, *Digest) {
		ents := entriesN(300 + k)
		for i := range ents {
			sum := sha256.Sum256(fmt.Appendf(nil, "%d/%d", k, i))
			ents[i].Text = hex.EncodeToString(sum[:12]) // incompressible: the cap cuts the terms
		}
		blob, d, err := Build(Digest{SessionID: fmt.Sprint(k)}, ents, coverage.Set{}, Limits{MaxVocabularyBytes: 1 << 20, MaxCacheBytes: 1500})
		require.NoError(t, err)
		return blob, d
	}
	type kept struct {
		blob []byte
		last string
	}
	first := map[int]kept{}
	for k := range 8 {
		blob, d := build(k)
		require.NotNil(t, d.IndexCoverage.VocabularyLastTerm, "the cap cuts the vocabulary")
		first[k] = kept{bytes.Clone(blob), strings.Clone(*d.IndexCoverage.VocabularyLastTerm)}
		lastPtr := d.IndexCoverage.VocabularyLastTerm
		var wg sync.WaitGroup
		for j := range 16 {
			wg.Add(1)
			go func() { defer wg.Done(); build(100 + j) }()
		}
		wg.Wait()
		for j := range 4 { // on this goroutine too: its set comes back here
			build(200 + j)
		}
		require.Equal(t, first[k].last, *lastPtr, "the digest's last term after other builds")
		again, _ := build(k)
		require.Equal(t, first[k].blob, again)
	}
	ts := getTerms()
	ts.add("alpha")
	require.True(t, ts.has("alpha"))
	putTerms(ts)
	ts = getTerms()
	require.False(t, ts.has("alpha"))
	require.Empty(t, ts.list)
	putTerms(ts)
}

// BenchmarkBuild builds the digest of a short session (the 100k
// archive's are a few KB): its vocabulary, addresses and encoding.
func BenchmarkBuild(b *testing.B) {
	ents := entriesN(12)
	for b.Loop() {
		if _, _, err := Build(Digest{Size: 17000}, ents, coverage.Set{}, roomy); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBuildStored is what an index does with a short session's
// entries: build the digest, then its stored form and its terms.
func BenchmarkBuildStored(b *testing.B) {
	ents := entriesN(12)
	for b.Loop() {
		bd := NewBuilder(Digest{Size: 17000}, roomy)
		for i := range ents {
			bd.Add(&ents[i])
		}
		f, err := bd.Complete(coverage.Set{})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := f.Stored(); err != nil {
			b.Fatal(err)
		}
		_ = f.StructuralKeys()
	}
}
