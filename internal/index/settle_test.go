package index

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"github.com/memidx/memidx/internal/blocksum"
	"github.com/memidx/memidx/internal/lineage"
)

// The stat gate's trust in a record, by the file's stamps and the record's
// observations of it. A ctime cannot be set from a test; these identities
// stand for what each case leaves: a clock that ran ahead and was set back
// stamps both times in the future, a file synced in keeps its future mtime
// beside a present ctime, and a file system of whole-second stamps has no
// sub-second part in either.
func TestRecordRacyByStampsAndObservations(t *testing.T) {
	const s = int64(time.Second)
	read := int64(1_800_000_000)*s + 500_000_000 // a read at some instant
	future := read + 2*365*24*3600*s             // two years ahead
	whole := read - read%s                       // 0.5 s before the read
	for _, tc := range []struct {
		name              string
		mtime, ctime      int64
		verifiedAfterRead time.Duration // 0: never re-verified
		racy              bool
	}{
		{"changed long before the read", read - 10*s, read - 10*s, 0, false},
		{"fine stamps, changed 0.5 s before the read", read - s/2, read - s/2 + 1, 0, false},
		{"fine stamps, changed 50 ms before the read", read - s/20, read - s/20 + 1, 0, true},
		{"fine stamps, re-verified 100 ms after", read - s/20, read - s/20 + 1, 100 * time.Millisecond, false},
		{"whole-second stamps, changed 0.5 s before the read", whole, whole, 0, true},
		{"whole-second stamps, re-verified 1 s after", whole, whole, time.Second, true},
		{"whole-second stamps, re-verified 2 s after", whole, whole, 2 * time.Second, false},
		{"clock ran ahead: both stamps in the future, read once", future, future + 7, 0, true},
		{"clock ran ahead: re-verified 50 ms after the read", future, future + 7, 50 * time.Millisecond, true},
		{"clock ran ahead: re-verified 100 ms after the read", future, future + 7, 100 * time.Millisecond, false},
		{"synced in: future mtime, present ctime, read once", future, read - s/20 + 3, 0, true},
		{"synced in: re-verified 100 ms after the read", future, read - s/20 + 3, 100 * time.Millisecond, false},
		{"synced in, whole seconds: re-verified 1 s after", future - future%s, whole, time.Second, true},
		{"synced in, whole seconds: re-verified 2 s after", future - future%s, whole, 2 * time.Second, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &Record{Identity: Identity{MtimeNs: tc.mtime, CtimeNs: tc.ctime}, IndexedAtNs: read}
			if tc.verifiedAfterRead > 0 {
				r.VerifiedAtNs = read + int64(tc.verifiedAfterRead)
			}
			assert.Equal(t, tc.racy, r.racy(0))
		})
	}
}

// A session file dated in the future settles like any other: built once,
// re-hashed once the racy window after its read, and never read again
// while its stat identity holds; a rewrite that restores the future mtime
// still changes its ctime and is rebuilt.
func TestFutureDatedSourcesSettle(t *testing.T) {
	for _, window := range []time.Duration{0, 30 * time.Millisecond} {
		t.Run(fmt.Sprint("window=", window), func(t *testing.T) {
			f := newFixture(t, 4)
			future := time.Date(2028, 6, 1, 12, 0, 0, 0, time.UTC)
			for _, p := range f.paths {
				require.NoError(t, os.Chtimes(p, future, future))
			}
			ix := Open(f.cfg, time.Second)
			ix.RacyWindow = window
			id, err := StatIdentity(f.paths[0])
			require.NoError(t, err)

			rep, reads := f.refreshCounted(ix)
			require.Equal(t, 4, rep.Rebuilt)
			require.Positive(t, reads)

			time.Sleep(id.windowOf(window) + 10*time.Millisecond)
			rep, reads = f.refreshCounted(ix)
			assert.Equal(t, 4, rep.Unchanged, "re-hashed, unchanged")
			assert.Zero(t, rep.Rebuilt)
			assert.Positive(t, reads, "re-hashed once the window after the read")

			for range 3 {
				rep, reads = f.refreshCounted(ix)
				assert.Equal(t, 4, rep.Unchanged)
				assert.Zero(t, reads, "a settled record is not read again, whatever its mtime")
			}

			// Same size, same future mtime: the ctime moved.
			old := rep.States[0].Record.SourceHash
			data, err := os.ReadFile(f.paths[0])
			require.NoError(t, err)
			data[len(data)-3] ^= 1
			require.NoError(t, os.WriteFile(f.paths[0], data, 0o600))
			require.NoError(t, os.Chtimes(f.paths[0], future, future))
			rep, _ = f.refreshCounted(ix)
			assert.Equal(t, 1, rep.Rebuilt)
			assert.NotEqual(t, old, rep.States[0].Record.SourceHash)
		})
	}
}

// refreshCounted refreshes f's sessions and says how many passes over
// session files it made.
func (f *fixture) refreshCounted(ix *Index) (*Report, int64) {
	before := SourceReads()
	rep := f.refresh(ix, lineage.Active)
	return rep, SourceReads() - before
}

// A record of the format before VerifiedAtNs (3) is never read as one of
// this format: it does not decode, and the next refresh rebuilds it.
func TestRecordOfAnOlderFormatIsRebuilt(t *testing.T) {
	f := newFixture(t, 1)
	ix := f.index()
	require.Equal(t, 1, f.refresh(ix, lineage.Active).Rebuilt)
	key := recordKey(lineage.Active, f.paths[0])
	require.NoError(t, ix.store.Update(ctx, func(tx *bolt.Tx) error {
		b := tx.Bucket(recordsBucket)
		data, err := blocksum.Unseal(b.Get(key))
		require.NoError(t, err)
		require.Equal(t, byte(recordFormat), data[0])
		old := append([]byte{3}, data[1:]...)
		sealed, err := blocksum.Seal(old)
		require.NoError(t, err)
		_, err = decodeRecord(key, sealed)
		require.ErrorIs(t, err, errRecordShape)
		return b.Put(key, sealed)
	}))
	ix = f.index() // no records kept from before
	rep := f.refresh(ix, lineage.Active)
	assert.Equal(t, 1, rep.Rebuilt)
	assert.Equal(t, 1, rep.Coverage.IndexedSessions)
}
