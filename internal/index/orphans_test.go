package index

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/internal/lineage"
)

// indexHolds reports whether the bytes of the index file hold word.
func indexHolds(t *testing.T, ix *Index, word string) bool {
	t.Helper()
	b, err := os.ReadFile(ix.Store().Path())
	require.NoError(t, err)
	return bytes.Contains(b, []byte(word))
}

func recordPaths(t *testing.T, ix *Index, mode lineage.Mode) []string {
	t.Helper()
	var out []string
	require.NoError(t, ix.View(ctx, mode, func(r *Reader) error {
		recs, err := r.Records()
		for _, rec := range recs {
			out = append(out, rec.Path)
		}
		return err
	}))
	return out
}

// refreshOf refreshes paths as the engine does: searched lists the
// directories listed completely, and the fixture's session dir is the one
// root a scope lists.
func (f *fixture) refreshOf(ix *Index, mode lineage.Mode, paths, searched []string, noBudgets bool) *Report {
	f.t.Helper()
	var targets []Target
	for _, p := range paths {
		targets = append(targets, Target{Path: p})
	}
	rep, err := ix.Refresh(ctx, targets, RefreshOptions{Mode: mode, Searched: searched, Roots: []string{f.dir}, NoBudgets: noBudgets})
	require.NoError(f.t, err)
	return rep
}

// writeSession writes a session of words at path, modified now.
func writeSession(t *testing.T, path, id string, words ...string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o700))
	require.NoError(t, os.WriteFile(path, []byte(sessionText(id, words...)), 0o600))
}

// A session indexed from outside every listed root (session:<path>, a live
// file elsewhere) loses its record, and its text leaves the file's bytes,
// when its source is deleted: on the next refresh of any scope.
func TestRefresh_RemovesRecordOutsideEveryRoot(t *testing.T) {
	for _, mode := range []lineage.Mode{lineage.Active, lineage.All} {
		t.Run(string(mode), func(t *testing.T) {
			f := newFixture(t, 3)
			ix := f.index()
			f.refreshOf(ix, mode, f.paths, []string{f.dir}, false)
			outside := filepath.Join(t.TempDir(), "elsewhere", "x.jsonl")
			writeSession(t, outside, "x", "zqoutsideword is only here", "and a second turn")
			// session:<path>: the one target, nothing listed.
			rep := f.refreshOf(ix, mode, []string{outside}, nil, false)
			require.Equal(t, 1, rep.Rebuilt)
			require.Contains(t, recordPaths(t, ix, mode), outside)
			require.True(t, indexHolds(t, ix, "zqoutsideword"))

			require.NoError(t, os.Remove(outside))
			rep = f.refreshOf(ix, mode, f.paths, []string{f.dir}, false)
			assert.Equal(t, 1, rep.Removed)
			assert.NotContains(t, recordPaths(t, ix, mode), outside)
			assert.False(t, indexHolds(t, ix, "zqoutsideword"), "the deleted session's text is gone from index.db")
			assert.Len(t, recordPaths(t, ix, mode), 3)
		})
	}
}

// The cheap rule: a project's refresh stats the records of its own
// directories and those under no root, not every other project's; the
// refresh that lists that project (or the global one) removes them.
func TestRefresh_OtherProjectsWaitForTheirListing(t *testing.T) {
	f := newFixture(t, 0)
	ix := f.index()
	projA, projB := filepath.Join(f.dir, "a"), filepath.Join(f.dir, "b")
	a, b := filepath.Join(projA, "a.jsonl"), filepath.Join(projB, "b.jsonl")
	writeSession(t, a, "a", "zqprojecta")
	writeSession(t, b, "b", "zqprojectb")
	f.refreshOf(ix, lineage.Active, []string{a}, []string{projA}, false)
	f.refreshOf(ix, lineage.Active, []string{b}, []string{projB}, false)
	require.NoError(t, os.Remove(b))

	rep := f.refreshOf(ix, lineage.Active, []string{a}, []string{projA}, false)
	assert.Zero(t, rep.Removed, "project a does not stat project b's records")
	assert.Contains(t, recordPaths(t, ix, lineage.Active), b)

	rep = f.refreshOf(ix, lineage.Active, []string{a}, []string{f.dir}, false) // global
	assert.Equal(t, 1, rep.Removed)
	assert.Equal(t, []string{a}, recordPaths(t, ix, lineage.Active))
	assert.False(t, indexHolds(t, ix, "zqprojectb"))
}

// A rebuild (no budgets) removes orphans of both branch modes: it leaves no
// record without a source.
func TestRefresh_RebuildRemovesOrphansOfBothModes(t *testing.T) {
	f := newFixture(t, 2)
	ix := f.index()
	outside := filepath.Join(t.TempDir(), "x.jsonl")
	writeSession(t, outside, "x", "zqbranchesall")
	f.refreshOf(ix, lineage.All, []string{outside}, nil, false)
	require.NoError(t, os.Remove(outside))

	rep := f.refreshOf(ix, lineage.Active, f.paths, []string{f.dir}, true)
	assert.Equal(t, 1, rep.Removed)
	assert.Empty(t, recordPaths(t, ix, lineage.All))
	assert.False(t, indexHolds(t, ix, "zqbranchesall"))
}

// A policy change that drops content (thinking no longer indexed) rewrites
// the records, and the old text leaves the file as if deleted.
func TestRefresh_PolicyChangeScrubsOldText(t *testing.T) {
	f := newFixture(t, 0)
	p := filepath.Join(f.dir, "t.jsonl")
	body := `{"type":"session","version":3,"id":"t","timestamp":"2026-09-01T10:00:00.000Z","cwd":"/p"}` + "\n" +
		`{"type":"message","id":"u","parentId":null,"timestamp":"2026-09-01T10:00:00.000Z","message":{"role":"user","content":"plan please"}}` + "\n" +
		`{"type":"message","id":"a","parentId":"u","timestamp":"2026-09-01T10:01:00.000Z","message":{"role":"assistant","content":[{"type":"thinking","thinking":"zqprivatethought"},{"type":"text","text":"the plan"}]}}` + "\n"
	require.NoError(t, os.WriteFile(p, []byte(body), 0o600))
	f.paths = []string{p}
	f.cfg.IndexThinking = true
	f.refreshOf(f.index(), lineage.Active, f.paths, []string{f.dir}, false)
	require.True(t, indexHolds(t, f.index(), "zqprivatethought"))

	f.cfg.IndexThinking = false
	rep := f.refreshOf(f.index(), lineage.Active, f.paths, []string{f.dir}, false)
	require.Equal(t, 1, rep.Rebuilt)
	assert.False(t, indexHolds(t, f.index(), "zqprivatethought"))
}
