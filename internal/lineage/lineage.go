package lineage

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"

	"github.com/memidx/memidx/internal/coverage"
	"github.com/memidx/memidx/internal/jsjson"
	"github.com/memidx/memidx/internal/session"
)

// Mode is the branch mode of a read: the active path only, or every record.
type Mode string

// The two branch modes.
const (
	Active Mode = "active"
	All    Mode = "all"
)

// ParseMode validates a branches argument; "" means Active.
func ParseMode(s string) (Mode, error) {
	switch s {
	case "", "active":
		return Active, nil
	case "all":
		return All, nil
	}
	return "", fmt.Errorf("branches must be %q or %q, not %q", Active, All, s)
}

// Live is what a host knows about a session it has open: the leaf it is on
// and the ids of its branch, root to leaf, read from the live
// SessionManager. It wins over the persisted leaf, so navigation that has
// not appended a record is still seen.
type Live struct {
	LeafID    string
	BranchIDs []string
}

// Same reports whether l and o are the same live branch: the same leaf
// and branch ids (or both nil).
func (l *Live) Same(o *Live) bool {
	if l == nil || o == nil {
		return l == o
	}
	return l == o || (l.LeafID == o.LeafID && slices.Equal(l.BranchIDs, o.BranchIDs))
}

// Selection is the set of records a read covers.
type Selection struct {
	Branches Mode
	// LeafID is the JSON id of the leaf (null in all mode, or when the leaf
	// has no usable id).
	LeafID jsjson.Value
	// LeafIndex is the record index of the leaf, or -1.
	LeafIndex int
	// Indexes are the selected record indexes: root to leaf in active
	// mode, file order in all mode.
	Indexes []int
	// Fingerprint is the SHA-256 hex of the JSON.stringify form of
	// {"branches","leafId","ids"}.
	Fingerprint string
	// Problems names what makes the selection uncertain.
	Problems coverage.Set
}

// AllFingerprint is the fingerprint of every all-mode selection.
var AllFingerprint = fingerprint(All, jsjson.MakeNull(), nil)

// tree is what selection reads of a session: the records' ids after
// migration, and each record's id as the fingerprint writes it.
type tree interface {
	count() int
	id(i int) session.ID
	parent(i int) session.ID
	// fpID is the id a record contributes to the fingerprint: its JSON id,
	// or for a v1 record (whose OMP id is random) a position marker.
	fpID(i int) jsjson.Value
	// leafJSON is the record's JSON id as written (absent when missing).
	leafJSON(i int) jsjson.Value
}

type fileTree struct{ f *session.File }

func (t fileTree) count() int                  { return len(t.f.Records) }
func (t fileTree) id(i int) session.ID         { return t.f.Records[i].ID }
func (t fileTree) parent(i int) session.ID     { return t.f.Records[i].Parent }
func (t fileTree) fpID(i int) jsjson.Value     { return fingerprintID(&t.f.Records[i]) }
func (t fileTree) leafJSON(i int) jsjson.Value { return t.f.Records[i].Value.Get("id") }

type slimTree struct{ s *session.Slim }

func (t slimTree) count() int              { return len(t.s.Records) }
func (t slimTree) id(i int) session.ID     { return t.s.Records[i].ID }
func (t slimTree) parent(i int) session.ID { return t.s.Records[i].Parent }
func (t slimTree) fpID(i int) jsjson.Value {
	r := &t.s.Records[i]
	if r.ID.Synthetic() {
		return jsjson.MakeString("v1:" + strconv.Itoa(i))
	}
	if !r.ID.Present() {
		return jsjson.Value{} // written as null, like a missing id
	}
	return r.ID.JSON()
}
func (t slimTree) leafJSON(i int) jsjson.Value { return t.fpID(i) }

// Select picks the records of f that a read in mode covers. live, when not
// nil, overrides the persisted leaf (active mode only).
func Select(f *session.File, mode Mode, live *Live) *Selection {
	return selectTree(fileTree{f}, mode, live)
}

// SelectSlim is Select on a slim read: the same selection, record for
// record, and the same fingerprint.
func SelectSlim(s *session.Slim, mode Mode, live *Live) *Selection {
	return selectTree(slimTree{s}, mode, live)
}

func selectTree(t tree, mode Mode, live *Live) *Selection {
	n := t.count()
	if mode == All {
		s := &Selection{Branches: All, LeafID: jsjson.MakeNull(), LeafIndex: -1, Fingerprint: AllFingerprint}
		s.Indexes = make([]int, n)
		for i := range s.Indexes {
			s.Indexes[i] = i
		}
		return s
	}
	byID := make(map[string]int, n)
	for i := 0; i < n; i++ {
		if id := t.id(i); id.Present() {
			byID[id.Key()] = i // the later record wins
		}
	}
	// Indexes is never nil, so that an empty selection encodes as [].
	s := &Selection{Branches: Active, LeafID: jsjson.MakeNull(), LeafIndex: -1, Indexes: []int{}}
	if live != nil {
		s.selectLive(byID, live)
	} else {
		s.walk(t, byID)
	}
	s.Fingerprint = fingerprintOf(Active, s.LeafID, len(s.Indexes), func(k int) jsjson.Value { return t.fpID(s.Indexes[k]) })
	return s
}

// walk follows parentId from the last record, as OMP's getBranch does.
func (s *Selection) walk(t tree, byID map[string]int) {
	n := t.count()
	if n == 0 {
		return
	}
	lastID := t.id(n - 1)
	if !lastID.Valid() {
		// OMP still resolves a leaf id "" to its record, but walks nothing.
		if lastID.Present() {
			s.LeafIndex = byID[lastID.Key()]
			s.LeafID = t.leafJSON(n - 1)
		}
		s.Problems.Add(coverage.LineageUnresolved)
		return
	}
	cur := byID[lastID.Key()]
	s.LeafIndex = cur
	s.LeafID = t.fpID(cur)
	// Every record the walk visits is the one its id resolves to (the
	// last with that id), so a visited id is a visited record.
	visited := make([]bool, n)
	path := make([]int, 0, min(n, 1<<16))
	for {
		path = append(path, cur)
		visited[cur] = true
		p, id := t.parent(cur), t.id(cur)
		if !p.Valid() || p == id {
			break // a root
		}
		next, ok := byID[p.Key()]
		if ok && visited[next] {
			s.Problems.Add(coverage.InvalidParentGraph)
			break
		}
		if !ok {
			s.Problems.Add(coverage.MissingParent)
			break
		}
		cur = next
	}
	for i, j := 0, len(path)-1; i < j; i, j = i+1, j-1 {
		path[i], path[j] = path[j], path[i]
	}
	s.Indexes = path
}

func (s *Selection) selectLive(byID map[string]int, live *Live) {
	s.LeafID = jsjson.MakeString(live.LeafID)
	if live.LeafID == "" {
		s.LeafID = jsjson.MakeNull()
	}
	if i, ok := byID[session.StringID(live.LeafID).Key()]; ok && live.LeafID != "" {
		s.LeafIndex = i
	}
	seen := make(map[int]bool)
	for _, id := range live.BranchIDs {
		if id == "" {
			continue
		}
		i, ok := byID[session.StringID(id).Key()]
		if !ok || seen[i] {
			continue // not persisted yet, or repeated
		}
		seen[i] = true
		s.Indexes = append(s.Indexes, i)
	}
}

// fingerprintID is the id a record contributes to the fingerprint: its JSON
// id, or for a v1 record (whose OMP id is random) a position marker.
func fingerprintID(r *session.Record) jsjson.Value {
	if r.ID.Synthetic() {
		return jsjson.MakeString("v1:" + strconv.Itoa(r.Index))
	}
	return r.Value.Get("id")
}

func fingerprint(mode Mode, leaf jsjson.Value, ids []jsjson.Value) string {
	return fingerprintOf(mode, leaf, len(ids), func(k int) jsjson.Value { return ids[k] })
}

// fingerprintOf hashes the JSON.stringify form of {"branches","leafId",
// "ids"} for n ids, writing each as it is produced.
func fingerprintOf(mode Mode, leaf jsjson.Value, n int, idAt func(k int) jsjson.Value) string {
	// The text is hashed as it is written, a block at a time: a long
	// branch's ids never sit in memory whole.
	h := sha256.New()
	b := make([]byte, 0, min(64+n*12, 32<<10))
	b = append(b, `{"branches":`...)
	b = jsjson.AppendString(b, string(mode))
	b = append(b, `,"leafId":`...)
	if leaf.Exists() {
		b = jsjson.AppendValue(b, leaf)
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"ids":[`...)
	for i := 0; i < n; i++ {
		if len(b) >= 31<<10 {
			h.Write(b)
			b = b[:0]
		}
		if i > 0 {
			b = append(b, ',')
		}
		if id := idAt(i); id.Exists() {
			b = jsjson.AppendValue(b, id)
		} else {
			b = append(b, "null"...)
		}
	}
	b = append(b, "]}"...)
	h.Write(b)
	return hex.EncodeToString(h.Sum(nil))
}
