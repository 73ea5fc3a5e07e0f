package index

import (
	"cmp"
	"slices"
	"strings"
)

// knownSessions pairs a refresh's targets with the stored records: the
// record of each target (one lookup each), and whether every stored
// record is a target (a global refresh), in which case nothing needs the
// set of target paths and it is never built.
type knownSessions struct {
	stored  map[string]*Record
	targets []Target
	recs    []*Record // recs[i] is the stored record of targets[i], or nil
	listed  int       // stored records that are targets
	total   int       // stored records
	paths   map[string]bool
}

// allTargets reports whether every stored record is a target.
func (k *knownSessions) allTargets() bool { return k.listed == k.total }

// isTarget reports whether path is a target.
func (k *knownSessions) isTarget(path string) bool {
	if k.paths == nil {
		k.paths = make(map[string]bool, len(k.targets))
		for _, t := range k.targets {
			k.paths[t.Path] = true
		}
	}
	return k.paths[path]
}

// hotSet ranks every known session by recency (the targets by their fresh
// mtime, other indexed sessions by their recorded one, ties by path) and
// returns the newest hotSessions, the hot tier, and which targets are in
// it (hot[i] for known.targets[i]). It keeps only the best
// hotSessions while it goes, so a large archive costs one pass.
//
// A refresh of a narrower scope also ranks the roster's files (roster.go),
// stat-ed now: what a refresh of the whole archive found newest. A refresh
// of the whole archive (archive) ranks its targets alone: a stored record
// that is not one is a session gone since (deleted, or renamed: its file
// is a target under its new path), and must not hold a hot place.
func (ix *Index) hotSet(known *knownSessions, ids *targetIDs, roster []recentSession, archive bool) (hot []bool, best []recentSession) {
	top := newestSessions{k: max(0, ix.cfg.HotSessions)}
	// rank is the mtime target i is ranked by: its fresh stat's, else its
	// record's; ok is false for neither.
	rank := func(i int) (mtime int64, ok bool) {
		switch {
		case ids.err(i) == nil:
			return ids.mtime(i), true
		case known.recs[i] != nil:
			return known.recs[i].Identity.MtimeNs, true
		}
		return 0, false
	}
	for i, t := range known.targets {
		if m, ok := rank(i); ok {
			top.offer(t.Path, m, i)
		}
	}
	var inRoster map[string]bool
	if len(roster) > 0 {
		inRoster = make(map[string]bool, len(roster))
		for _, s := range roster {
			if known.isTarget(s.path) {
				continue
			}
			inRoster[s.path] = true
			if id, err := StatIdentity(s.path); err == nil {
				top.offer(s.path, id.MtimeNs, -1)
			}
		}
	}
	if !archive && !known.allTargets() {
		for p, r := range known.stored {
			if !known.isTarget(p) && !inRoster[p] {
				top.offer(p, r.Identity.MtimeNs, -1)
			}
		}
	}
	// By target index: a path would be hashed again for every target.
	hot = make([]bool, len(known.targets))
	for _, i := range top.targets {
		if i >= 0 {
			hot[i] = true
		}
	}
	// A path listed twice is one session: a copy of the last hot one,
	// which the ranking turned away as no newer, is hot too. Only a
	// target ranked no older than the last can be one, and the listing
	// is newest first: an integer compare settles the others.
	if n := len(top.best); n > 0 {
		floor := top.best[n-1].mtime
		for i, t := range known.targets {
			if m, ok := rank(i); ok && !hot[i] && m >= floor {
				for _, s := range top.best {
					if s.mtime == m && s.path == t.Path {
						hot[i] = true
						break
					}
				}
			}
		}
	}
	return hot, top.best
}

// newestSessions keeps the k newest sessions offered, newest first, ties
// by path ascending.
type newestSessions struct {
	k    int
	best []recentSession
	// targets[i] is the target index best[i] was offered with, -1 for
	// none.
	targets []int
}

type recentSession struct {
	path  string
	mtime int64
}

func newer(a, b recentSession) int {
	if c := cmp.Compare(b.mtime, a.mtime); c != 0 {
		return c
	}
	return strings.Compare(a.path, b.path)
}

func (n *newestSessions) offer(path string, mtime int64, target int) {
	s := recentSession{path, mtime}
	if len(n.best) == n.k && (n.k == 0 || newer(s, n.best[n.k-1]) >= 0) {
		return
	}
	i, _ := slices.BinarySearchFunc(n.best, s, newer)
	if len(n.best) == n.k {
		n.best, n.targets = n.best[:n.k-1], n.targets[:n.k-1]
	}
	n.best = slices.Insert(n.best, i, s)
	n.targets = slices.Insert(n.targets, i, target)
}
