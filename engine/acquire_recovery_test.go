package engine_test

import (
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"github.com/memidx/memidx/engine"
	"github.com/memidx/memidx/internal/coverage"
	"github.com/memidx/memidx/internal/index"
)

// An invalid pattern searches nothing, so a single-session recall answers
// with the refresh's coverage: a session the sync budget kept out of the
// index stays counted stale with the budget's reason. Acquire read the
// session from its source anyway (Need.Single before Need.RecordsOnly),
// which counted it indexed, fresh, and read a whole cold session (a 14 MB
// one: 20 ms -> 0.9 s, 12 -> 93 MB RSS) to answer invalid_regex.
func TestRecallInvalidRegexKeepsTheRefreshCoverage(t *testing.T) {
	w := newWorld(t)
	w.cfg.MaxSyncSourceBytes = 10 // smaller than the session
	p := w.write("s-big", msgLine("u1", "", ts, user("the quokka smiled at the camera")))
	e := w.engine()
	got, err := e.Recall(ctx, engine.RecallRequest{Query: "(", QueryMode: "regex", Scope: engine.ScopeOf(p)})
	require.NoError(t, err)
	require.NotNil(t, got.Error)
	assert.Equal(t, coverage.InvalidRegex, got.Error.Code)
	assert.Contains(t, got.Coverage.Reasons, coverage.MaxSyncSourceBytes)
	assert.Equal(t, 0, got.Coverage.IndexedSessions, "nothing was indexed: %+v", got.Coverage)
	assert.Equal(t, 1, got.Coverage.StaleSessions, "the budget left the session stale: %+v", got.Coverage)
}

// InspectSession answers from its last try. Here the first try finds the
// hot shard damaged (dropped, index_reset), the second rebuilds it and
// then finds the index held by another process: the answer is the second
// try's record, with the summary left out and index_busy. It used to be
// the first try's SessionReport, describing the record that was just
// dropped from the index, with the first try's coverage.
func TestInspectSessionAnswersFromItsLastTry(t *testing.T) {
	e, _, hot := walrusPair(t)
	time.Sleep(index.DefaultRacyWindow) // so that records stay as they are
	var before *engine.SessionReport
	for range 2 { // the first settles the record the index keeps (racy window)
		var err error
		before, err = e.InspectSession(ctx, hot, "active")
		require.NoError(t, err)
		require.NotNil(t, before.Record)
	}
	require.NoError(t, e.Close()) // the file is written below, as by another process

	dbPath := filepath.Join(e.Config().IndexDir, "index.db")
	db, err := bolt.Open(dbPath, 0o600, nil)
	require.NoError(t, err)
	require.NoError(t, db.Update(func(tx *bolt.Tx) error {
		hb := tx.Bucket([]byte("hot"))
		return hb.ForEachBucket(func(k []byte) error {
			b := hb.Bucket(k)
			bad := slices.Clone(b.Get([]byte("d")))
			bad[4] ^= 0x40 // the first block's checksum
			return b.Put([]byte("d"), bad)
		})
	}))
	require.NoError(t, db.Close())
	e, err = engine.Reopen(e)
	require.NoError(t, err)

	reads := 0
	var holder *bolt.DB
	restore := engine.SetBeforeSearch(func() {
		reads++
		if reads == 2 { // after the rebuild: another process takes the file
			var err error
			holder, err = bolt.Open(dbPath, 0o600, &bolt.Options{Timeout: time.Second})
			require.NoError(t, err)
		}
	})
	got, err := e.InspectSession(ctx, hot, "active")
	restore()
	if holder != nil {
		require.NoError(t, holder.Close())
	}
	require.NoError(t, err)
	require.NotNil(t, got.Record)
	assert.Contains(t, got.Coverage.Reasons, index.IndexReset)
	if reads < 2 {
		return // the index was read once: nothing held it
	}
	assert.Contains(t, got.Coverage.Reasons, index.IndexBusy)
	assert.Nil(t, got.Shard, "the index could not be read after the rebuild")
	assert.NotEqual(t, engine.RecordIndexedAt(before.Record), engine.RecordIndexedAt(got.Record),
		"the record described is the rebuilt one, not the one dropped as damaged")
}

// walrusPair is an engine over two sessions, one kept hot and one cold.
func walrusPair(t *testing.T) (e *engine.Engine, cold, hot string) {
	w := newWorld(t)
	w.cfg.HotSessions = 1
	cold = w.write("s-cold", msgLine("u1", "", ts, user("older walrus")))
	hot = w.write("s-hot", msgLine("u1", "", ts, user("newer walrus")))
	return w.engine(), cold, hot
}

// InspectSession recovers as a recall does: damaged tier data (here every
// block-sum head of the hot shards and digests) is dropped and rebuilt,
// and the coverage says index_reset.
func TestInspectSessionRecoversFromDamagedTierData(t *testing.T) {
	e, cold, hot := walrusPair(t)
	for _, p := range []string{cold, hot} {
		r, err := e.InspectSession(ctx, p, "active")
		require.NoError(t, err)
		require.NotNil(t, r.Record)
	}
	require.NoError(t, e.Close()) // the index file is written below, as by another process

	db, err := bolt.Open(filepath.Join(e.Config().IndexDir, "index.db"), 0o600, nil)
	require.NoError(t, err)
	flipped := 0
	require.NoError(t, db.Update(func(tx *bolt.Tx) error {
		flip := func(b *bolt.Bucket, k []byte) error {
			bad := slices.Clone(b.Get(k))
			bad[4] ^= 0x40 // the first block's checksum
			flipped++
			return b.Put(k, bad)
		}
		hb := tx.Bucket([]byte("hot"))
		require.NoError(t, hb.ForEachBucket(func(k []byte) error { return flip(hb.Bucket(k), []byte("d")) }))
		cb := tx.Bucket([]byte("cold"))
		var keys [][]byte
		require.NoError(t, cb.ForEach(func(k, _ []byte) error { keys = append(keys, slices.Clone(k)); return nil }))
		for _, k := range keys {
			require.NoError(t, flip(cb, k))
		}
		return nil
	}))
	require.NoError(t, db.Close())
	require.Equal(t, 2, flipped)
	e, err = engine.Reopen(e)
	require.NoError(t, err)

	for _, c := range []struct {
		path string
		hot  bool
	}{{cold, false}, {hot, true}} {
		r, err := e.InspectSession(ctx, c.path, "active")
		require.NoError(t, err, c.path)
		assert.Contains(t, r.Coverage.Reasons, "index_reset", c.path)
		if c.hot {
			assert.NotNil(t, r.Shard, "the shard is rebuilt and described")
		} else {
			assert.NotNil(t, r.Digest, "the digest is rebuilt and described")
		}
		again, err := e.InspectSession(ctx, c.path, "active")
		require.NoError(t, err)
		assert.NotContains(t, again.Coverage.Reasons, "index_reset", "repaired")
	}
}

// A session that the refresh had to build in memory (another process
// holds the index) is described from that build, as a recall answers
// from it, with the coverage saying why.
func TestInspectSessionDescribesWhatTheRefreshBuilt(t *testing.T) {
	e, cold, hot := walrusPair(t)
	_, err := e.InspectSession(ctx, hot, "active") // makes the index file
	require.NoError(t, err)
	require.NoError(t, e.Close())

	db, err := bolt.Open(filepath.Join(e.Config().IndexDir, "index.db"), 0o600, nil)
	require.NoError(t, err) // holds the file's lock until closed
	defer db.Close()
	e, err = engine.Reopen(e)
	require.NoError(t, err)
	for _, p := range []string{cold, hot} {
		r, err := e.InspectSession(ctx, p, "active")
		require.NoError(t, err, p)
		require.NotNil(t, r.Record, p)
		assert.False(t, r.Coverage.Complete, p)
		assert.Contains(t, r.Coverage.Reasons, "index_busy", p)
		// Tiered as a refresh that cannot read the roster tiers it.
		if r.Record.Tier == "hot" {
			assert.NotNil(t, r.Shard, "the hot shard built in memory is described")
		} else {
			assert.NotNil(t, r.Digest, "the digest built in memory is described")
		}
	}
}
