package index

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/internal/coldvocab"
	"github.com/memidx/memidx/internal/coverage"
	"github.com/memidx/memidx/internal/lexicon"
	"github.com/memidx/memidx/internal/lineage"
	"github.com/memidx/memidx/internal/session"
)

// buildBoth builds path with the whole read and with the slim read (as a
// long session would be), for one mode, tier and policy. slim is nil when
// the slim path does not take the file (outside the slim reader's fast
// path, or a selection it leaves to the whole read).
func buildBoth(t *testing.T, ix *Index, path string, mode lineage.Mode, tier Tier, live *lineage.Live) (whole, slim *built) {
	t.Helper()
	gate := newBuildGate(1 << 40)
	src, release, err := readSourceInto(ctx, nil, path, nil, gate, false)
	defer release()
	if errors.Is(err, ErrNotSession) {
		return nil, nil // never built either way
	}
	require.NoError(t, err)
	whole, err = ix.build(src, mode, tier, live, false)
	require.NoError(t, err)

	f, st, err := session.OpenRegular(path)
	require.NoError(t, err)
	defer f.Close()
	id, err := identityOf(st)
	require.NoError(t, err)
	lines, _, err := probeSource(f, id.Size, true)
	require.NoError(t, err)
	ssrc, srelease, err := readSlim(ctx, f, path, id, lines, gate)
	defer srelease()
	if errors.Is(err, session.ErrNeedsFullRead) {
		return whole, nil
	}
	require.NoError(t, err)
	require.Nil(t, ssrc.Data, "a slim source holds no bytes")
	require.Equal(t, src.Hash, ssrc.Hash)
	slim, err = ix.build(ssrc, mode, tier, live, false)
	if errors.Is(err, session.ErrNeedsFullRead) {
		return whole, nil
	}
	require.NoError(t, err)
	return whole, slim
}

// The slim build path gives the index the whole read gives: the same
// record (reasons, counts, fingerprint, hash, stamps), the same hot shard
// byte for byte, the same cold digest (decoded: its tool histogram is a
// map, which msgpack writes in no fixed order), for every OMP fixture and
// real session file it takes, both branch modes, both tiers, and both
// policies (tool output and thinking indexed or not).
func TestSlimBuildMatchesWholeBuild(t *testing.T) {
	paths, _ := filepath.Glob("../../testdata/omp/*.jsonl")
	real, _ := filepath.Glob("../../../shared/testdata/real/*.jsonl")
	if len(real) == 0 {
		t.Log("../../../shared/testdata/real is absent: checking the repository's fixtures only")
	}
	paths = append(paths, real...)
	paths = append(paths, longFixtures(t)...)
	compared, wholeOnly := 0, 0
	reasons := map[string]bool{}
	for _, small := range []bool{false, true} {
		cfg := DefaultConfig()
		cfg.IndexDir = t.TempDir()
		if small {
			// Caps that cut: entries at 40 scalars, an 8 KiB digest, a 2 KiB
			// vocabulary, thinking in, tool output out.
			cfg.MaxEntryChars, cfg.MaxColdCacheBytes, cfg.MaxColdVocabularyBytes = 40, 8192, 2048
			cfg.IndexThinking, cfg.IndexToolOutput = true, false
		}
		ix := Open(cfg, 0)
		for _, p := range paths {
			for _, mode := range []lineage.Mode{lineage.Active, lineage.All} {
				for _, tier := range []Tier{Hot, Cold} {
					whole, slim := buildBoth(t, ix, p, mode, tier, nil)
					if whole == nil {
						continue
					}
					if slim == nil {
						wholeOnly++
						continue
					}
					compared++
					requireSameBuild(t, whole, slim, filepath.Base(p)+" "+string(mode)+" "+tier.String())
					for _, r := range slim.rec.Reasons() {
						reasons[r] = true
					}
				}
			}
		}
	}
	t.Logf("%d builds compared, %d left to the whole read", compared, wholeOnly)
	require.Greater(t, compared, 150)
	// The problems a slim build must find on its own were met.
	for _, r := range []string{coverage.DuplicateEntryID, coverage.HostRefusesFile, coverage.MaxEntryChars, coverage.MaxColdCacheBytes, coverage.MaxColdVocabularyBytes} {
		require.True(t, reasons[r], "no slim build met %s", r)
	}
}

func requireSameBuild(t *testing.T, whole, slim *built, name string) {
	t.Helper()
	w, s := *whole.rec, *slim.rec
	w.IndexedAtNs, s.IndexedAtNs = 0, 0
	if whole.cold != nil {
		// The stamp of the digest's bytes, which differ with the
		// histogram's order; the digests are compared decoded below.
		w.DataStamp, s.DataStamp = 0, 0
	}
	require.Equal(t, w, s, name)
	require.Equal(t, whole.bytes, slim.bytes, name)
	require.Equal(t, whole.hot, slim.hot, name)
	require.Equal(t, whole.cold == nil, slim.cold == nil, name)
	if whole.cold != nil {
		require.Equal(t, whole.cold.Size(), slim.cold.Size(), name)
		wb, _, err := whole.cold.Blob()
		require.NoError(t, err, name)
		sb, _, err := slim.cold.Blob()
		require.NoError(t, err, name)
		wd, err := coldvocab.Decode(wb)
		require.NoError(t, err, name)
		sd, err := coldvocab.Decode(sb)
		require.NoError(t, err, name)
		require.Equal(t, wd, sd, name)
		requireKeptTerms(t, whole, name+" whole")
		requireKeptTerms(t, slim, name+" slim")
	}
}

// longFixtures are sessions the slim path exists for: a long chain of
// tiny records (its digest cut at the cache cap), a branched one whose
// active path leaves records out, one whose ids repeat (all mode reports
// duplicate_entry_id), and a v1 file (synthetic ids).
func longFixtures(t *testing.T) []string {
	dir := t.TempDir()
	tiny := filepath.Join(dir, "tiny.jsonl")
	tinySession(t, tiny, 30_000)
	branched := filepath.Join(dir, "branched.jsonl")
	require.NoError(t, os.WriteFile(branched, []byte(sessionText("b", "one", "two", "three")+
		`{"type":"message","id":"b-x","parentId":"b-0","message":{"role":"assistant","content":"other branch"}}`+"\n"+
		`{"type":"message","id":"b-1","parentId":"b-x","message":{"role":"user","content":"same id again"}}`+"\n"), 0o600))
	v1 := filepath.Join(dir, "v1.jsonl")
	require.NoError(t, os.WriteFile(v1, []byte(`{"type":"session","id":"v1","timestamp":"2026-09-01T10:00:00.000Z","cwd":"/p"}`+"\n"+
		`{"type":"message","id":"a","message":{"role":"user","content":"first words"}}`+"\n"+
		`{"type":"message","id":"a","message":{"role":"hookMessage","content":"hook words"}}`+"\n"), 0o600))
	return []string{tiny, branched, v1}
}

// A long session whose selection holds a record the slim path leaves to
// the whole read (a branch summary, whose facts are deduplicated across
// the session) is read slim, then read again whole and built as before.
func TestSlimFallsBackToTheWholeRead(t *testing.T) {
	p := filepath.Join(t.TempDir(), "summary.jsonl")
	tinySession(t, p, 40_000)
	fh, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = fh.WriteString(`{"type":"branch_summary","id":"bs","parentId":"00009c40","fromId":"00000001","summary":"a summary"}` + "\n")
	require.NoError(t, err)
	require.NoError(t, fh.Close())
	st, err := os.Stat(p)
	require.NoError(t, err)
	require.True(t, useSlim(st.Size(), 40_002), "the test needs a session the slim path would take")

	cfg := DefaultConfig()
	cfg.IndexDir = t.TempDir()
	ix := Open(cfg, 0)
	reads := 0
	b, src, release, readErr, err := ix.readAndBuild(ctx, nil, p, nil, ix.newBuildGate(), func(src *Source) (*built, error) {
		reads++
		return ix.build(src, lineage.Active, Hot, nil, false)
	})
	defer release()
	require.NoError(t, readErr)
	require.NoError(t, err)
	require.Equal(t, 2, reads, "slim, then whole")
	require.NotNil(t, src.Data, "the whole read")
	require.Equal(t, int32(40_001), b.rec.EntryCount)
}

// blobKeys are the lexicon keys a cold digest's blob holds: its
// structural keys, then its vocabulary (sorted).
func blobKeys(t *testing.T, blob []byte) lexicon.Source {
	v, err := coldvocab.Open(blob)
	require.NoError(t, err)
	addr := v.Addresses.StructuralKeys()
	n := v.Vocabulary.Len()
	require.NoError(t, v.Err())
	return lexicon.Source{Len: len(addr) + n, Key: func(i int) []byte {
		if i < len(addr) {
			return addr[i]
		}
		return v.Vocabulary.Term(i - len(addr))
	}}
}

// requireKeptTerms checks that a cold build gives the lexicon, from its
// fields and kept vocabulary, the keys its blob gives (the kept terms as
// first seen, the blob's sorted).
func requireKeptTerms(t *testing.T, b *built, name string) {
	t.Helper()
	require.NotNil(t, b.cold.Terms(), name)
	kept := finishedSource(0, b.cold)
	blob, _, err := b.cold.Blob()
	require.NoError(t, err, name)
	read := blobKeys(t, blob)
	require.Equal(t, read.Len, kept.Len, name)
	keys := func(src lexicon.Source) []string {
		out := make([]string, src.Len)
		for i := range out {
			out[i] = string(src.Key(i))
		}
		return out
	}
	want, got := keys(read), keys(kept)
	require.True(t, slices.IsSorted(want), name)
	slices.Sort(got)
	require.Equal(t, want, got, name)
}
