package index

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"github.com/memidx/memidx/internal/lineage"
)

// wordySessions writes n sessions of distinct words each, whose cold
// digests are a few KB: the size at which bbolt's leaves left most slack.
func wordySessions(t *testing.T, f *acquireFixture, words int) {
	now := time.Now()
	for i, p := range f.paths {
		var b strings.Builder
		for w := range words {
			fmt.Fprintf(&b, "s%dw%dq%x ", i, w, w*7919)
		}
		f.write(p, b.String(), fmt.Sprintf("word%d shared", i))
		mt := now.Add(-time.Duration(i+1) * time.Minute)
		require.NoError(t, os.Chtimes(p, mt, mt))
	}
}

// coldPages is the pages and the bytes of the cold digests, packed or
// not, with their keys (a pack names its members).
func coldPages(t *testing.T, ix *Index) (pages, values int64) {
	u, err := ix.Usage(context.Background())
	require.NoError(t, err)
	for _, b := range u.Buckets {
		if b.Name == string(coldBucket) || b.Name == string(packBucket) {
			pages += b.PageBytes
			values += b.ValueBytes + b.KeyBytes
		}
	}
	return pages, values
}

// Small cold digests share their pages: the pages that hold them are
// not much more than their bytes. (A stored digest of these sessions is
// about 200 bytes: its words are the lexicon's.)
func TestSmallColdDigestsArePacked(t *testing.T) {
	for _, sessions := range []int{300, 600} {
		t.Run(fmt.Sprint(sessions, " sessions"), func(t *testing.T) {
			f := newAcquireFixture(t, sessions)
			wordySessions(t, f, 20)
			f.indexAll()
			pages, values := coldPages(t, f.ix)
			per := values / int64(sessions-1)
			t.Logf("digest %d B, pages %d B for %d B of values (%.2f)", per, pages, values, float64(pages)/float64(values))
			assert.LessOrEqual(t, float64(pages), 1.12*float64(values))
			// Every digest still reads, and finds its session's words.
			_, _, err := f.ix.Acquire(context.Background(), f.need(), func(v *View) error {
				for i := 1; i < v.Len(); i++ {
					_, d, err := v.Reader().Digest(v.Record(i))
					require.NoError(t, err)
					has, err := v.Reader().Holds(v.Record(i), d, fmt.Sprintf("word%d", i))
					require.NoError(t, err)
					assert.True(t, has, i)
				}
				return nil
			})
			require.NoError(t, err)
		})
	}
}

// A digest leaves its pack when its session is rebuilt, promoted to hot
// or removed: the pack holds no dead digest, and a pack left empty goes.
func TestPackedDigestLeavesItsPack(t *testing.T) {
	f := newAcquireFixture(t, 6)
	wordySessions(t, f, 100)
	f.indexAll()
	members := func() map[string]int {
		out := map[string]int{}
		require.NoError(t, f.ix.store.View(context.Background(), func(tx *bolt.Tx) error {
			pb := tx.Bucket(packBucket)
			if pb == nil {
				return nil
			}
			return pb.ForEach(func(_, v []byte) error {
				ms, err := decodePack(v)
				require.NoError(t, err)
				for _, m := range ms {
					out[string(m.key)]++
				}
				return nil
			})
		}))
		return out
	}
	key := func(i int) string { return string(recordKey(lineage.Active, f.paths[i])) }
	before := members()
	require.Len(t, before, 5) // s0 is hot
	// Rebuilt alone: s3's new digest joins the last pack, and its old one
	// left its pack.
	st, err := os.Stat(f.paths[3])
	require.NoError(t, err)
	f.write(f.paths[3], "rewritten words")
	require.NoError(t, os.Chtimes(f.paths[3], st.ModTime(), st.ModTime())) // stays cold
	f.indexAll()
	assert.Equal(t, 1, members()[key(3)])
	require.NoError(t, f.ix.store.View(context.Background(), func(tx *bolt.Tx) error {
		assert.Nil(t, tx.Bucket(coldBucket).Get([]byte(key(3))))
		return nil
	}))
	// Removed: s4's source is gone.
	require.NoError(t, os.Remove(f.paths[4]))
	_, _, err = f.ix.Acquire(context.Background(), f.need(append(f.paths[:4:4], f.paths[5])...), nil)
	require.NoError(t, err)
	got := members()
	assert.NotContains(t, got, key(4))
	assert.Len(t, got, 4)
	for k, n := range got {
		assert.Equal(t, 1, n, k)
	}
	plain, err := Plaintext(filepath.Dir(f.ix.store.Path()))
	require.NoError(t, err)
	assert.NotContains(t, string(plain), "s4w1q")
}

// A session whose record or manifest entry is damaged leaves its pack
// when it is removed: the other one names the pack.
func TestDamagedRecordLeavesItsPack(t *testing.T) {
	// The record and the manifest entry both name the pack: either one
	// damaged, the other says which pack to leave.
	for _, damaged := range [][]byte{recordsBucket, manifestBucket} {
		t.Run(string(damaged), func(t *testing.T) {
			f := newAcquireFixture(t, 6)
			wordySessions(t, f, 100)
			f.indexAll()
			key := recordKey(lineage.Active, f.paths[2])
			require.NoError(t, f.ix.store.Update(context.Background(), func(tx *bolt.Tx) error {
				b := tx.Bucket(damaged)
				v := append([]byte(nil), b.Get(key)...)
				v[len(v)/2] ^= 0xff
				return b.Put(key, v)
			}))
			require.NoError(t, os.Remove(f.paths[2]))
			_, _, err := f.ix.Acquire(context.Background(), f.need(append(f.paths[:2:2], f.paths[3:]...)...), nil)
			require.NoError(t, err)
			members := 0
			require.NoError(t, f.ix.store.View(context.Background(), func(tx *bolt.Tx) error {
				return tx.Bucket(packBucket).ForEach(func(_, v []byte) error {
					ms, err := decodePack(v)
					require.NoError(t, err)
					for _, m := range ms {
						members++
						assert.NotEqual(t, string(key), string(m.key))
					}
					return nil
				})
			}))
			require.Positive(t, members, "the other sessions are still packed")
		})
	}
}

// A stored digest holds no vocabulary: the lexicon holds its terms, so
// the cold values are a fraction of the digests' own size (their
// cacheBytes, which still counts the vocabulary), and every session's
// words are still found, through the lexicon.
func TestStoredDigestsLeaveTheirTermsToTheLexicon(t *testing.T) {
	for _, words := range []int{400, 3000} {
		t.Run(fmt.Sprint(words, " words a session"), func(t *testing.T) {
			f := newAcquireFixture(t, 12)
			wordySessions(t, f, words)
			f.indexAll()
			_, values := coldPages(t, f.ix)
			var digests int64
			recs, _, err := f.ix.loadRecords(context.Background(), lineage.Active)
			require.NoError(t, err)
			for _, rec := range recs {
				if rec.Tier == Cold {
					digests += rec.CacheBytes()
				}
			}
			t.Logf("stored %d B of %d B of digests (%.2f)", values, digests, float64(values)/float64(digests))
			assert.Less(t, float64(values), 0.6*float64(digests))
			_, _, err = f.ix.Acquire(context.Background(), f.need(), func(v *View) error {
				for i := 1; i < v.Len(); i++ {
					rec := v.Record(i)
					_, d, err := v.Reader().Digest(rec)
					require.NoError(t, err)
					require.True(t, d.Vocabulary.InLexicon())
					for _, w := range []string{fmt.Sprintf("word%d", i), fmt.Sprintf("s%dw%dq%x", i, words-1, (words-1)*7919)} {
						has, err := v.Reader().Holds(rec, d, w)
						require.NoError(t, err)
						assert.True(t, has, w)
					}
					has, err := v.Reader().Holds(rec, d, fmt.Sprintf("s%dw0q0", i+1))
					require.NoError(t, err)
					assert.False(t, has, "another session's word")
				}
				return nil
			})
			require.NoError(t, err)
		})
	}
}
