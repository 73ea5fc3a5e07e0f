package engine_test

import (
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"github.com/memidx/memidx/coverage"
	"github.com/memidx/memidx/engine"
	"github.com/memidx/memidx/index"
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
	assert.NotEqual(t, before.Record.IndexedAtNs, got.Record.IndexedAtNs,
		"the record described is the rebuilt one, not the one dropped as damaged")
}
