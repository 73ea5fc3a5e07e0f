package index

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"github.com/memidx/memidx/internal/lineage"
)

// oneShot is a fresh Index over f's index file, as a one-shot command
// opens it, and a Need whose records it preloads.
func (f *acquireFixture) oneShot() (*Index, Need) {
	ix := Open(f.ix.Config(), time.Second)
	ix.RacyWindow = f.ix.RacyWindow
	f.t.Cleanup(func() { ix.Close() })
	need := f.need()
	need.Refresh.Preloaded = ix.Preload(context.Background(), lineage.Active)
	return ix, need
}

// indexAll builds f's sessions into its index.
func (f *acquireFixture) indexAll() {
	_, _, err := f.ix.Acquire(context.Background(), f.need(), nil)
	require.NoError(f.t, err)
}

// A one-shot recall reads the manifest, and decodes the full record of
// the one session whose data it reads: the bytes of full records decoded
// do not grow with the sessions it does not touch.
func TestOneShotRecallDecodesOnlyTheRecordsItReads(t *testing.T) {
	for _, n := range []int{4, 40, 400} {
		t.Run(fmt.Sprint(n, " sessions"), func(t *testing.T) {
			f := newAcquireFixture(t, n)
			f.indexAll()
			ix, need := f.oneShot()
			before := recordBytesDecoded.Load()
			var opened *Record
			_, _, err := ix.Acquire(context.Background(), need, func(v *View) error {
				st := v.State(2) // cold: one session is hot
				require.Equal(t, Cold, st.Record.Tier)
				_, d, err := v.Reader().Digest(st.Record)
				require.NoError(t, err)
				has, err := v.Reader().Holds(st.Record, d, "word2")
				require.NoError(t, err)
				assert.True(t, has)
				opened = st.Record
				return nil
			})
			require.NoError(t, err)
			decoded := recordBytesDecoded.Load() - before
			assert.Positive(t, decoded)
			assert.Less(t, decoded, int64(1024), "full records decoded: %d bytes", decoded)
			// The record read is whole, as a full load has it.
			full, _, err := f.ix.loadRecords(context.Background(), lineage.Active)
			require.NoError(t, err)
			want := *full[opened.Path]
			assert.Equal(t, want, *opened)
			assert.Equal(t, "s2", opened.SessionID)
		})
	}
}

// A single session's record is whole before anything is read: its
// bindings are compared with a pointer's.
func TestOneShotSingleSessionRecordIsWhole(t *testing.T) {
	f := newAcquireFixture(t, 3)
	f.indexAll()
	ix := Open(f.ix.Config(), time.Second)
	t.Cleanup(func() { ix.Close() })
	need := f.need(f.paths[1])
	need.Refresh.Preloaded = ix.Preload(context.Background(), lineage.Active)
	v, _, err := ix.Acquire(context.Background(), need, nil)
	require.NoError(t, err)
	rec := v.Record(0)
	require.NotNil(t, rec)
	assert.Equal(t, "s1", rec.SessionID)
	assert.Equal(t, "/p", rec.Cwd)
	assert.NotEmpty(t, rec.LineageFingerprint)
}

// A racy record re-verified by a one-shot call (whose records are partial)
// keeps its whole record in the index.
func TestReverifiedPartialRecordStaysWhole(t *testing.T) {
	f := newAcquireFixture(t, 3)
	f.ix.RacyWindow = time.Hour // every record racy: each call re-verifies
	f.indexAll()
	ix, need := f.oneShot()
	_, _, err := ix.Acquire(context.Background(), need, nil)
	require.NoError(t, err)
	recs, _, err := f.ix.loadRecords(context.Background(), lineage.Active)
	require.NoError(t, err)
	require.Len(t, recs, 3)
	for _, p := range f.paths {
		assert.NotZero(t, recs[p].VerifiedAtNs, p)
		assert.NotEmpty(t, recs[p].SessionID, p)
		assert.NotEmpty(t, recs[p].LineageFingerprint, p)
	}
}

// A manifest entry that does not decode, or names a policy of another
// configuration, has its session rebuilt; one that is missing too.
func TestManifestEntryThatCannotVouchIsRebuilt(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(mb *bolt.Bucket, key []byte) error
	}{
		{"damaged", func(mb *bolt.Bucket, key []byte) error {
			v := append([]byte(nil), mb.Get(key)...)
			v[len(v)/2] ^= 0xff
			return mb.Put(key, v)
		}},
		{"another policy", func(mb *bolt.Bucket, key []byte) error {
			rec, err := (&recordArena{}).decodeGate(lineage.Active, key, mb.Get(key))
			if err != nil {
				return err
			}
			rec.Policy = "vocab:1"
			enc, err := encodeGate(rec)
			if err != nil {
				return err
			}
			return mb.Put(key, enc)
		}},
		{"missing", func(mb *bolt.Bucket, key []byte) error { return mb.Delete(key) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newAcquireFixture(t, 3)
			f.indexAll()
			key := recordKey(lineage.Active, f.paths[1])
			require.NoError(t, f.ix.store.Update(context.Background(), func(tx *bolt.Tx) error {
				return tc.edit(tx.Bucket(manifestBucket), key)
			}))
			ix, need := f.oneShot()
			v, _, err := ix.Acquire(context.Background(), need, nil)
			require.NoError(t, err)
			assert.True(t, v.Coverage().Complete)
			assert.True(t, v.State(1).Rebuilt)
			assert.False(t, v.State(0).Rebuilt)
			assert.False(t, v.State(2).Rebuilt)
		})
	}
}
