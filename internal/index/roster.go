package index

import (
	"context"
	"encoding/binary"
	"slices"

	bolt "go.etcd.io/bbolt"

	"github.com/memidx/memidx/internal/blocksum"
	"github.com/memidx/memidx/internal/lineage"
)

// The hot roster: the archive's newest hotSessions session files (path
// and mtime) as the last refresh of the whole archive ranked them. A
// refresh of a narrower scope (a project, one session) knows only its own
// targets and the stored records; with the roster it ranks the hot tier as
// a refresh of the whole archive would, so that a session's tier does not
// depend on which call indexed it first. The roster's files are stat-ed
// again by every such refresh (at most hotSessions stats): one deleted or
// rewritten since counts as it is now. A session created since the last
// whole-archive refresh in a directory the call does not list is the one
// thing it cannot know.

var (
	rosterBucket = []byte("roster")
	rosterKey    = []byte("hot")
)

// readRoster returns the stored roster; ok is false when there is none (a
// new index, or one that was never refreshed whole) or it is damaged.
func readRoster(tx *bolt.Tx) (roster []recentSession, ok bool) {
	b := tx.Bucket(rosterBucket)
	if b == nil {
		return nil, false
	}
	v, err := blocksum.Unseal(b.Get(rosterKey))
	if err != nil {
		return nil, false
	}
	n, k := binary.Uvarint(v)
	if k <= 0 || n > uint64(len(v)) {
		return nil, false
	}
	v = v[k:]
	for range n {
		l, k := binary.Uvarint(v)
		if k <= 0 || l > uint64(len(v)-k) {
			return nil, false
		}
		path := string(v[k : k+int(l)])
		v = v[k+int(l):]
		mtime, k2 := binary.Varint(v)
		if k2 <= 0 {
			return nil, false
		}
		v = v[k2:]
		roster = append(roster, recentSession{path, mtime})
	}
	return roster, len(v) == 0
}

// writeRoster stores roster.
func writeRoster(tx *bolt.Tx, roster []recentSession) error {
	b, err := tx.CreateBucketIfNotExists(rosterBucket)
	if err != nil {
		return err
	}
	v := binary.AppendUvarint(nil, uint64(len(roster)))
	for _, s := range roster {
		v = binary.AppendUvarint(v, uint64(len(s.path)))
		v = append(v, s.path...)
		v = binary.AppendVarint(v, s.mtime)
	}
	sealed, err := blocksum.Seal(v)
	if err != nil {
		return err
	}
	return b.Put(rosterKey, sealed)
}

// rosterOf is the roster a ranking gives: never nil, since an archive
// without sessions still has a roster (an empty one).
func rosterOf(best []recentSession) []recentSession {
	if best == nil {
		return []recentSession{}
	}
	return slices.Clone(best)
}

// sameRoster reports whether two rosters name the same files and mtimes.
func sameRoster(a, b []recentSession) bool { return slices.Equal(a, b) }

// HasRoster reports whether the index holds a hot roster for mode's
// records to be ranked with (pre, when set, is the records being read).
// Without one, a narrower refresh would rank its targets as if they were
// the archive: the caller seeds it first (SeedRoster).
func (ix *Index) HasRoster(ctx context.Context, mode lineage.Mode, pre *Preloaded) (bool, error) {
	got, err := ix.records(ctx, mode, pre)
	return got.hasRoster, err
}

// SeedRoster ranks archive, every session file of the archive, and stores
// the newest hotSessions as the roster.
func (ix *Index) SeedRoster(ctx context.Context, archive []Target) error {
	known, ids := matchTargets(nil, archive, nil)
	_, best := ix.hotSet(known, ids, nil, true)
	roster := rosterOf(best)
	return ix.store.Update(ctx, func(tx *bolt.Tx) error { return writeRoster(tx, roster) })
}
