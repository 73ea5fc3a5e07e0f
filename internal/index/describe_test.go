package index

import (
	"context"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/internal/coldvocab"
	"github.com/memidx/memidx/internal/session/locate"
	"github.com/memidx/memidx/internal/session/scopes"
)

// Describe describes the tier data of a view's first session: a hot
// shard's size, a cold digest, or nothing for a session without a
// record; the description names the view it describes.
func TestDescribe(t *testing.T) {
	f := newAcquireFixture(t, 2)
	_, _, err := f.ix.Acquire(context.Background(), f.need(), nil)
	require.NoError(t, err)
	require.NoError(t, os.Remove(f.paths[1]))
	gone := f.need(f.paths[1])
	gone.Refresh.Searched = nil // keep the record's absence a stale state
	for _, tc := range []struct {
		name      string
		need      Need
		hot, cold bool
	}{
		{"hot", f.need(f.paths[0]), true, false},
		{"cold, gone", gone, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var d Description
			last, _, err := f.ix.Acquire(context.Background(), tc.need, d.Describe)
			require.NoError(t, err)
			assert.Same(t, last, d.View)
			assert.Equal(t, tc.hot, d.Shard != nil)
			assert.Equal(t, tc.cold, d.Digest != nil)
			if d.Shard != nil {
				assert.Equal(t, int(last.Record(0).EntryCount), d.Shard.Entries)
				assert.Positive(t, d.Shard.Terms)
			}
		})
	}
}

// A cold session is described by its digest.
func TestDescribeCold(t *testing.T) {
	f := newAcquireFixture(t, 2)
	var d Description
	_, _, err := f.ix.Acquire(context.Background(), f.need(), nil)
	require.NoError(t, err)
	last, _, err := f.ix.Acquire(context.Background(), f.need(f.paths[1]), d.Describe)
	require.NoError(t, err)
	require.Equal(t, Cold, last.Record(0).Tier)
	require.NotNil(t, d.Digest)
	assert.Equal(t, int(last.Record(0).EntryCount), d.Digest.EntryCount)
	assert.Nil(t, d.Shard)
	// A stored digest leaves its identity to its record: the description
	// has it back.
	rec := last.Record(0)
	t.Logf("built in memory: %v", last.State(0).Built() != nil)
	assert.Equal(t, digestIdentity(rec), coldvocab.Digest{SessionID: d.Digest.SessionID, File: d.Digest.File, Cwd: d.Digest.Cwd,
		MtimeMs: d.Digest.MtimeMs, Size: d.Digest.Size, SourceHash: d.Digest.SourceHash, Branches: d.Digest.Branches,
		LineageFingerprint: d.Digest.LineageFingerprint, Policy: d.Digest.Policy})
	assert.NotEmpty(t, d.Digest.File)
}

// A narrow call on an index without a hot roster seeds one from the whole
// archive first (Need.Archive), so that a session's tier does not depend
// on which call indexed it first; without Archive the scope alone ranks.
func TestAcquireSeedsTheRoster(t *testing.T) {
	for _, tc := range []struct {
		name    string
		archive bool
		tier    Tier
	}{
		{"seeded from the archive", true, Cold},
		{"ranked in its scope", false, Hot},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newAcquireFixture(t, 3)
			need := f.need(f.paths[2]) // the oldest session
			if tc.archive {
				need.Archive = &scopes.Resolver{Dirs: locate.Dirs{SessionDir: f.dir}}
			}
			last, _, err := f.ix.Acquire(context.Background(), need, nil)
			require.NoError(t, err)
			require.NotNil(t, last.Record(0))
			assert.Equal(t, tc.tier, last.Record(0).Tier)
			has, err := f.ix.HasRoster(context.Background(), need.Refresh.Mode, nil)
			require.NoError(t, err)
			assert.Equal(t, tc.archive, has)
		})
	}
}
