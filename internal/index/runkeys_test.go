package index

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/internal/indexfile"
	"github.com/memidx/memidx/internal/lexicon"
	"github.com/memidx/memidx/internal/lineage"
)

// sealedSegment is a segment of words, all held by doc 1, and its bytes.
func sealedSegment(t *testing.T, words ...string) (lexicon.Segment, []byte) {
	t.Helper()
	b := lexicon.NewBuilder()
	b.Add(1, words)
	sealed, err := b.Build()
	require.NoError(t, err)
	s, err := lexicon.Open(sealed)
	require.NoError(t, err)
	return s, sealed
}

// The memo reads a segment's run keys once, trusts them within the
// commit they were checked at, checks their stamp at another commit and
// reads them again when the bytes under the key changed; it lets go of
// the run keys of its mode's segments no longer listed, never of the
// other mode's, and starts over for a lexicon made anew.
func TestRunKeysMemo(t *testing.T) {
	a, rawA := sealedSegment(t, "alpha", "beta")
	b, rawB := sealedSegment(t, "gamma")
	var m runKeysMemo
	reads := 0
	read := func() { reads++ }
	c1, c2, c3 := commit{txid: 1}, commit{txid: 2}, commit{txid: 3}
	ka, kb, kall := []byte("active\x00s1"), []byte("active\x00s2"), []byte("all\x00s1")
	lookup := func(s lexicon.Segment, key string) []uint32 {
		docs, err := s.AppendDocs(nil, key)
		require.NoError(t, err)
		return docs
	}
	for range 2 {
		require.Equal(t, []uint32{1}, lookup(m.with("id1", c1, ka, [][]byte{ka}, rawA, a, read), "beta"))
	}
	require.Equal(t, 1, reads, "read once")
	m.with("id1", c2, ka, [][]byte{ka}, rawA, a, read)
	require.Equal(t, 1, reads, "the same bytes at another commit: kept")
	// Other bytes under the same key (a file put back from a copy).
	require.Equal(t, []uint32{1}, lookup(m.with("id1", c3, ka, [][]byte{ka}, rawB, b, read), "gamma"))
	require.Equal(t, 2, reads, "other bytes under the key: read again")
	m.with("id1", c3, kall, [][]byte{kall}, rawA, a, read)
	m.with("id1", c3, kb, [][]byte{kb}, rawB, b, read) // ka merged away
	require.Equal(t, 4, reads)
	require.NotContains(t, m.segs, string(ka))
	require.Contains(t, m.segs, string(kall), "the other mode's run keys stay")
	m.with("id2", c3, kb, [][]byte{kb}, rawB, b, read) // a lexicon made anew
	require.Equal(t, 5, reads)
}

// Run keys the memo trusts for other bytes (here: within one commit,
// where it does not check) answer as in place, are found stale by the
// lookup, and are read again.
func TestRunKeysMemoHealsStaleRunKeys(t *testing.T) {
	words := func(tag string) []string {
		var w []string
		for i := range 17 {
			w = append(w, fmt.Sprintf("k%03d", i))
		}
		for i := range 40 {
			w = append(w, fmt.Sprintf("%s%03d", tag, i))
		}
		return w
	}
	a, rawA := sealedSegment(t, words("z")...)
	b, rawB := sealedSegment(t, words("m")...)
	var m runKeysMemo
	reads := 0
	read := func() { reads++ }
	key, at := []byte("active\x00s1"), commit{txid: 1}
	m.with("id", at, key, [][]byte{key}, rawA, a, read)
	got := m.with("id", at, key, [][]byte{key}, rawB, b, read) // trusted: same commit
	require.Equal(t, 1, reads)
	docs, err := got.AppendDocs(nil, "m030")
	require.NoError(t, err)
	require.Equal(t, []uint32{1}, docs, "answered in place")
	m.with("id", at, key, [][]byte{key}, rawB, b, read)
	require.Equal(t, 2, reads, "stale: read again")
	docs, err = m.with("id", at, key, [][]byte{key}, rawB, b, read).AppendDocs(nil, "m030")
	require.NoError(t, err)
	require.Equal(t, []uint32{1}, docs)
	require.Equal(t, 2, reads)
}

// A long-lived Index that answers both modes keeps both lexicons' run
// keys.
func TestRunKeysMemoKeepsBothModes(t *testing.T) {
	f := wordFixture(t)
	ix := f.index()
	t.Cleanup(func() { ix.Close() })
	ix.LongLived()
	f.refresh(ix, lineage.Active)
	f.refresh(ix, lineage.All)
	open := func(mode lineage.Mode) (keys []string) {
		require.NoError(t, ix.View(ctx, mode, func(r *Reader) error {
			l, err := r.Lexicon()
			require.NoError(t, err)
			require.NotNil(t, l)
			for _, k := range l.keys {
				keys = append(keys, string(k))
			}
			return nil
		}))
		return keys
	}
	active := open(lineage.Active)
	require.NotEmpty(t, open(lineage.All))
	require.NotEmpty(t, active)
	for _, k := range active {
		require.Contains(t, ix.runKeys.segs, k, "active's run keys were let go after a call in mode all")
	}
}

// An index file put back from a copy under a long-lived Index (the same
// lexicon id, an older sequence): the next write puts a segment of other
// bytes under a key whose run keys the Index kept, and its lookups
// answer as a fresh Index's do (found by a review; before, they read as
// damage, and a lexicon found damaged is dropped with every cold record).
func TestRunKeysAfterTheFileIsPutBack(t *testing.T) {
	f := newFixture(t, 6)
	ix := f.index()
	t.Cleanup(func() { ix.Close() })
	ix.LongLived()
	f.refresh(ix, lineage.Active)
	path := filepath.Join(f.cfg.IndexDir, indexfile.FileName)
	backup, err := os.ReadFile(path)
	require.NoError(t, err)
	words := func(tag string) []string {
		var w []string
		for i := range 40 {
			w = append(w, fmt.Sprintf("%s%02d", tag, i))
		}
		return w
	}
	extra := filepath.Join(f.dir, "s6.jsonl")
	f.paths = append(f.paths, extra)
	require.NoError(t, os.WriteFile(extra, []byte(sessionText("s6", words("aaa")...)), 0o600))
	f.refresh(ix, lineage.Active)
	lookup := func(ix *Index, term string) ([]uint32, error) {
		var docs []uint32
		err := ix.View(ctx, lineage.Active, func(r *Reader) error {
			l, err := r.Lexicon()
			if err != nil {
				return err
			}
			docs, err = l.Docs(nil, term)
			return err
		})
		return docs, err
	}
	d, err := lookup(ix, "aaa30")
	require.NoError(t, err)
	require.Len(t, d, 1)

	tmp := path + ".restore"
	require.NoError(t, os.WriteFile(tmp, backup, 0o600))
	require.NoError(t, os.Rename(tmp, path))
	require.NoError(t, os.WriteFile(extra, []byte(sessionText("s6", words("bbb")...)), 0o600))
	later := time.Now().Add(time.Minute)
	require.NoError(t, os.Chtimes(extra, later, later))
	f.refresh(ix, lineage.Active)

	fresh := f.index()
	t.Cleanup(func() { fresh.Close() })
	want, err := lookup(fresh, "bbb30")
	require.NoError(t, err)
	require.Len(t, want, 1)
	got, err := lookup(ix, "bbb30")
	require.NoError(t, err)
	require.Equal(t, want, got)
}
