package index

import (
	"bytes"
	"maps"
	"slices"
	"strings"

	bolt "go.etcd.io/bbolt"

	"github.com/memidx/memidx/internal/lineage"
)

// A long-lived host keeps the records it decoded (recordCache) until the
// index file changes. Its own refresh changes it whenever a session did:
// an agent's session grows call after call, and the next call decoded
// every record again (at 100k sessions 180 ms and 60 MB of garbage, for
// one changed record). patchDecoded instead brings the kept records to
// the refresh's last commit by reading again only the records its writes
// touched, when nothing else wrote between: what a full decode at that
// commit would give, for a map copy and a few reads.

// touch is a record key a committed write put or deleted, and the path of
// its session ("" for a record that did not decode: it has none).
type touch struct {
	key  []byte
	path string
}

// patchShare bounds a patch: past a quarter of the records touched (a
// rebuild's writes), the next call decodes them all instead.
const patchShare = 4

// beforePatch, when set, runs before a patch reads the file (tests: a
// write by another process just then).
var beforePatch func()

// patchDecoded keeps the records r loaded, with the records w's writes
// touched read again, as the records at w's last commit, when those
// writes came right after the commit r read at (w.inOrder), nothing was
// written since, and the cache still holds what r loaded.
func (ix *Index) patchDecoded(r *refreshRun, w *writer) {
	base := r.base
	if w.commits == 0 || !w.inOrder || w.writeErr != nil || !base.clean || base.partial || base.gate != nil ||
		len(w.touched) > len(base.stored)/patchShare+batchSessions || !ix.decoded.holds(r.mode, base) {
		return
	}
	if beforePatch != nil {
		beforePatch()
	}
	_ = ix.store.View(r.ctx, func(tx *bolt.Tx) error {
		at, ok := ix.commitOf(tx)
		if !ok || at.txid != w.lastTx || !sameFile(at.file, w.lastFile) || at.file != w.fileAfter {
			return nil // written since: the next call decodes what it finds
		}
		if next, ok := patchLoaded(tx, r.mode, base, w.touched); ok {
			if !next.byTargets {
				next.stored, next.byTargets = keyedByTargets(next.stored, r.targets), true
			}
			ix.decoded.swap(r.mode, base, at, next)
		}
		return nil
	})
}

// patchLoaded is base with the records of mode under the touched keys
// read from tx: removed where tx holds none, decoded where it does, and
// among the bad (not decoded) where they do not decode. ok is false when
// a record read is stored under another path's key (damage): only a full
// decode says then what the file holds.
func patchLoaded(tx *bolt.Tx, mode lineage.Mode, base loaded, touched []touch) (next loaded, ok bool) {
	next = loaded{epoch: lexiconEpoch(tx, mode), clean: true, stored: maps.Clone(base.stored)}
	next.roster, next.hasRoster = readRoster(tx)
	next.byTargets = base.byTargets
	next.from = base.gen
	keys := touchedKeys(mode, touched)
	for _, path := range keys {
		if path != "" {
			next.replaced = appendKept(next.replaced, base.stored, path)
			delete(next.stored, path)
		}
	}
	for _, k := range base.bad {
		if _, ok := keys[string(k)]; !ok {
			next.bad = append(next.bad, k)
		}
	}
	recs, gates := tx.Bucket(recordsBucket), tx.Bucket(manifestBucket)
	arena := recordArena{alone: true}
	var want []byte
	var added []uint32 // the docs of the records read
	for k, path := range keys {
		key := []byte(k)
		var sealed, gate []byte
		if recs != nil {
			sealed = recs.Get(key)
		}
		if sealed == nil {
			continue
		}
		if gates != nil {
			gate = gates.Get(key)
		}
		rec, err := arena.decodeFull(mode, key, gate, sealed)
		if err != nil {
			next.bad = append(next.bad, key)
			continue
		}
		if want = appendRecordKey(want[:0], mode, rec.Path); !bytes.Equal(want, key) {
			return loaded{}, false
		}
		if path == "" {
			path = rec.Path
			next.replaced = appendKept(next.replaced, base.stored, path)
		}
		next.stored[path] = rec // the target's own string (keyedByTargets)
		if rec.Doc != 0 {
			added = append(added, rec.Doc)
		}
	}
	// A full decode finds the bad in key order.
	slices.SortFunc(next.bad, bytes.Compare)
	next.docs = patchDocs(base.docs, keptDocsOf(base.stored, keys), added)
	return next, true
}

// appendKept appends the record stored holds for path, if any.
func appendKept(recs []*Record, stored map[string]*Record, path string) []*Record {
	if old := stored[path]; old != nil {
		recs = append(recs, old)
	}
	return recs
}

// patchDocs is docs (in order) without one of each of gone, with added.
func patchDocs(docs, gone, added []uint32) []uint32 {
	drop := make(map[uint32]int, len(gone))
	for _, d := range gone {
		drop[d]++
	}
	slices.Sort(added)
	out := make([]uint32, 0, len(docs)+len(added))
	j := 0
	for _, d := range docs {
		if drop[d] > 0 {
			drop[d]--
			continue
		}
		for j < len(added) && added[j] < d {
			out = append(out, added[j])
			j++
		}
		out = append(out, d)
	}
	return append(out, added[j:]...)
}

// liveFromKept gives a write's lexicon merge the docs that the records of
// the run's mode name in tx, from the records the run loaded instead of
// reading every record (at 100k sessions 84 ms of a call after one
// session changed: a session rebuilt call after call leaves a one-doc
// segment dead each time, which the next write drops). It holds when the
// write comes right after the commit those records were read at, or
// after this run's write before it, in order: then tx holds those
// records but for the keys this run's writes touched, and the ones that
// did not decode, which are read from tx as liveDocs reads them. nil
// otherwise: the merge reads every record.
func (w *writer) liveFromKept(tx *bolt.Tx, touched []touch) func() docSet {
	base := w.r.base
	parent, file := base.at.txid, base.at.file
	if w.commits > 0 {
		parent, file = w.lastTx, w.fileAfter
	}
	if !base.atKnown || !base.clean || base.partial || base.gate != nil || (w.commits > 0 && !w.inOrder) || tx.ID() != parent+1 {
		return nil
	}
	// The very file: one put in its place may get the inode back and
	// transaction ids that follow on.
	if now, ok := w.r.ix.commitOf(tx); !ok || now.file != file {
		return nil
	}
	return func() docSet {
		bad := make([]touch, len(base.bad))
		for i, k := range base.bad {
			bad[i] = touch{key: k}
		}
		keys := touchedKeys(w.r.mode, w.touched, touched, bad)
		live := keptDocs{sorted: base.docs, minus: map[uint32]int{}, plus: map[uint32]bool{}}
		for _, d := range keptDocsOf(base.stored, keys) {
			live.minus[d]++
		}
		if recs := tx.Bucket(recordsBucket); recs != nil {
			var t tail
			for k := range keys {
				if v := recs.Get([]byte(k)); v != nil && t.read([]byte(k), v) == nil && t.doc != 0 {
					live.plus[t.doc] = true
				}
			}
		}
		return live
	}
}

// touchedKeys is the keys of mode's records among the touches, each with
// its path when one of them knows it. The other mode's are left out: its
// kept records are at the old commit, and decoded again when asked for.
func touchedKeys(mode lineage.Mode, touches ...[]touch) map[string]string {
	prefix := string(mode) + "\x00"
	keys := map[string]string{}
	for _, list := range touches {
		for _, t := range list {
			if !strings.HasPrefix(string(t.key), prefix) {
				continue
			}
			if t.path != "" || keys[string(t.key)] == "" {
				keys[string(t.key)] = t.path
			}
		}
	}
	return keys
}

// keptDocsOf is the docs of the kept records at the paths of keys.
func keptDocsOf(stored map[string]*Record, keys map[string]string) []uint32 {
	var docs []uint32
	for _, path := range keys {
		if rec := stored[path]; path != "" && rec != nil && rec.Doc != 0 {
			docs = append(docs, rec.Doc)
		}
	}
	return docs
}

// keptDocs is the docs of the kept records (sorted, one each a record)
// less minus (counts) and with plus.
type keptDocs struct {
	sorted []uint32
	minus  map[uint32]int
	plus   map[uint32]bool
}

func (k keptDocs) has(doc uint32) bool {
	if k.plus[doc] {
		return true
	}
	i, found := slices.BinarySearch(k.sorted, doc)
	if !found {
		return false
	}
	n := 0
	for ; i < len(k.sorted) && k.sorted[i] == doc; i++ {
		n++
	}
	return n > k.minus[doc]
}

// keyedByTargets is stored keyed by the targets' own path strings (the
// listing's, which the next call's targets share), the records no target
// names by their own. A refresh looks up every target's record: under a
// key with the target's very bytes the lookup compares no text (at 100k
// sessions 4x faster, ~20 ms of a call after a change). Made once per
// full decode; patches keep the keys they copy.
func keyedByTargets(stored map[string]*Record, targets []Target) map[string]*Record {
	m := make(map[string]*Record, len(stored))
	for i := range targets {
		if rec := stored[targets[i].Path]; rec != nil {
			m[targets[i].Path] = rec
		}
	}
	if len(m) < len(stored) {
		for p, rec := range stored {
			if _, ok := m[p]; !ok {
				m[p] = rec
			}
		}
	}
	return m
}

// keepMatched keeps the records this run decoded (loaded.unkept) once
// their targets are matched: each record a target matched takes the
// target's path (the listing's string, which a watching host holds
// anyway and the targets of its calls share while its listing stands),
// and the map keys it by that string (keyedByTargets). When most records
// matched, the others' paths are copied out too, so that none of them
// holds on to the decode's chunks of paths: at 100k sessions those were
// 11 MB of a server's live heap, a second copy of every listed path.
func (r *refreshRun) keepMatched() {
	if r.base.unkept && r.known != nil {
		r.keepWith(r.known.recs)
	}
}

// keepQuiet keeps the records this run decoded when the kept quiet
// refresh answered it, which matches no target: each target's record is
// looked up by its path instead. Without it a host whose record cache
// held other records than the quiet refresh's commit (a slower run's,
// kept last) would decode every record call after call.
func (r *refreshRun) keepQuiet() {
	if !r.base.unkept {
		return
	}
	recs := make([]*Record, len(r.targets))
	g := r.base.gate
	for i := range r.targets {
		if g != nil {
			recs[i] = g.find(r.targets[i].Path)
		} else {
			recs[i] = r.base.stored[r.targets[i].Path]
		}
	}
	if g != nil {
		r.unkeyGate(&knownSessions{targets: r.targets, recs: recs})
		if !r.base.unkept {
			return // some path not read at the decode's commit
		}
	}
	r.keepWith(recs)
}

// unkeyGate turns the records of a keyed decode (loadRecordsKept), found
// by key for k's targets (k.recs), into records by path, as a decode by
// path would have read them (gatePaths), and returns them; they are kept
// only when every path was read at the decode's commit.
func (r *refreshRun) unkeyGate(k *knownSessions) map[string]*Record {
	complete, clean := r.ix.gatePaths(r.ctx, r.mode, k, r.base.gate, r.base.at, true)
	r.base.stored, r.base.gate, r.gate = k.stored, nil, nil
	r.base.clean, r.base.byTargets = clean, true
	r.base.unkept = r.base.unkept && complete
	return k.stored
}

// keepWith points the records at their targets' paths (recs[i] is
// targets[i]'s, or nil) as keepMatched says, and keeps them.
func (r *refreshRun) keepWith(recs []*Record) {
	stored, matched := r.base.stored, 0
	for _, rec := range recs {
		if rec != nil {
			matched++
		}
	}
	// clean: each record is stored under its own path, which is then
	// the path of the target that found it.
	if r.base.clean && !r.base.byTargets && matched > 0 && 2*matched >= len(stored) {
		for _, rec := range stored {
			rec.Path = "" // the key still spells it
		}
		for i, rec := range recs {
			if rec != nil && rec.Path == "" {
				p := r.targets[i].Path
				rec.pointAt(p)
				stored[p] = rec // a map assignment takes the new key's bytes
			}
		}
		for p, rec := range stored {
			if rec.Path == "" {
				own := strings.Clone(p)
				rec.pointAt(own)
				stored[own] = rec
			}
		}
		r.base.byTargets = true
	}
	r.base.unkept = false
	r.base = r.ix.decoded.put(r.mode, r.base.at, r.base)
}
