package index

import (
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/internal/lineage"
)

// TestDecodedRecordsLastUntilTheFileChanges: a second refresh with nothing
// written reuses the records decoded by the first (the same values), and
// anything that changes the index file (a commit by another Index on the
// same directory, as another process would make; a write that is no
// commit) makes the next refresh decode again, and see the change.
func TestDecodedRecordsLastUntilTheFileChanges(t *testing.T) {
	f := newFixture(t, 4)
	ix := f.index()
	f.refresh(ix, lineage.Active)
	a := f.refresh(ix, lineage.Active)
	b := f.refresh(ix, lineage.Active)
	require.Equal(t, 0, b.Rebuilt)
	for i := range a.States {
		assert.Same(t, a.States[i].Record, b.States[i].Record, "no change: the same decoded record")
	}

	// Another writer appends to a session and refreshes it.
	other := f.index()
	require.NoError(t, os.WriteFile(f.paths[0], []byte(sessionText("s0", "alpha0 beta gamma")), 0o600))
	rep := f.refresh(other, lineage.Active)
	require.True(t, rep.States[0].Rebuilt()) // and a session it pushed out of the hot tier
	c := f.refresh(ix, lineage.Active)
	assert.Equal(t, 0, c.Rebuilt, "the other writer's record is current")
	assert.NotSame(t, b.States[0].Record, c.States[0].Record)
	assert.Equal(t, rep.States[0].Record.SourceHash, c.States[0].Record.SourceHash)

	// A write to the file that is no commit (bit rot, a copy over it).
	d := f.refresh(ix, lineage.Active)
	assert.Same(t, c.States[1].Record, d.States[1].Record)
	later := time.Now().Add(time.Minute)
	require.NoError(t, os.Chtimes(ix.Store().Path(), later, later))
	e := f.refresh(ix, lineage.Active)
	assert.NotSame(t, d.States[1].Record, e.States[1].Record, "a changed file is decoded again")
	assert.Equal(t, d.States[1].Record.SourceHash, e.States[1].Record.SourceHash)

	// Other modes have records of their own.
	all := f.refresh(ix, lineage.All)
	assert.NotSame(t, e.States[1].Record, all.States[1].Record)
}

// TestViewAfterKnowsWhenRecordsAreCurrent: the search after a refresh
// that wrote nothing, on a file nobody wrote since, trusts every record
// the refresh read; after any write (the refresh's own, another
// writer's) it checks them again.
func TestViewAfterKnowsWhenRecordsAreCurrent(t *testing.T) {
	f := newFixture(t, 3)
	ix := f.index()
	unchanged := func(rep *Report) bool {
		var u bool
		require.NoError(t, ix.ViewAfter(ctx, lineage.Active, rep, func(rd *Reader) error {
			u = rd.unchanged
			return nil
		}))
		return u
	}
	first := f.refresh(ix, lineage.Active)
	assert.False(t, unchanged(first), "the refresh wrote the records")
	quiet := f.refresh(ix, lineage.Active)
	assert.True(t, unchanged(quiet))

	// Another writer commits after the refresh read its records.
	require.NoError(t, os.WriteFile(f.paths[1], []byte(sessionText("s1", "alpha1 delta")), 0o600))
	f.refresh(f.index(), lineage.Active)
	assert.False(t, unchanged(quiet), "a commit since the refresh")
	again := f.refresh(ix, lineage.Active)
	assert.True(t, unchanged(again))
	rd := &Reader{}
	assert.False(t, rd.Current(again.States[0].Record), "no transaction, nothing is current")
}

// A preload whose records the cache holds at the file's commit is done
// when it returns (no goroutine to wait for), and gives what the cache
// holds; once the file changed, it reads again, in the background.
func TestPreloadTakesCachedRecordsAtOnce(t *testing.T) {
	f := newFixture(t, 3)
	ix := f.index()
	ix.LongLived()
	f.refresh(ix, lineage.Active)
	quiet := f.refresh(ix, lineage.Active)
	require.Equal(t, 0, quiet.Rebuilt)

	done := func(p *Preloaded) bool {
		select {
		case <-p.done:
			return true
		default:
			return false
		}
	}
	p := ix.Preload(ctx, lineage.Active)
	require.True(t, done(p), "the cache holds the records: nothing to wait for")
	require.NoError(t, p.err)
	assert.Same(t, quiet.States[0].Record, p.got.stored[quiet.States[0].Path])

	later := time.Now().Add(time.Minute)
	require.NoError(t, os.Chtimes(ix.Store().Path(), later, later))
	q := ix.Preload(ctx, lineage.Active)
	got, err := ix.records(ctx, lineage.Active, q)
	require.NoError(t, err)
	assert.NotSame(t, quiet.States[0].Record, got.stored[quiet.States[0].Path], "a changed file is decoded again")
}
