package lineage

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"

	"github.com/memidx/memidx/coverage"
	"github.com/memidx/memidx/jsjson"
	"github.com/memidx/memidx/session"
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

// Select picks the records of f that a read in mode covers. live, when not
// nil, overrides the persisted leaf (active mode only).
func Select(f *session.File, mode Mode, live *Live) *Selection {
	if mode == All {
		s := &Selection{Branches: All, LeafID: jsjson.MakeNull(), LeafIndex: -1, Fingerprint: AllFingerprint}
		s.Indexes = make([]int, len(f.Records))
		for i := range s.Indexes {
			s.Indexes[i] = i
		}
		return s
	}
	byID := make(map[string]int, len(f.Records))
	for i := range f.Records {
		if id := f.Records[i].ID; id.Present() {
			byID[id.Key()] = i // the later record wins
		}
	}
	// Indexes is never nil, so that an empty selection encodes as [].
	s := &Selection{Branches: Active, LeafID: jsjson.MakeNull(), LeafIndex: -1, Indexes: []int{}}
	if live != nil {
		s.selectLive(f, byID, live)
	} else {
		s.walk(f, byID)
	}
	ids := make([]jsjson.Value, len(s.Indexes))
	for i, idx := range s.Indexes {
		ids[i] = fingerprintID(&f.Records[idx])
	}
	s.Fingerprint = fingerprint(Active, s.LeafID, ids)
	return s
}

// walk follows parentId from the last record, as OMP's getBranch does.
func (s *Selection) walk(f *session.File, byID map[string]int) {
	if len(f.Records) == 0 {
		return
	}
	last := &f.Records[len(f.Records)-1]
	if !last.ID.Valid() {
		// OMP still resolves a leaf id "" to its record, but walks nothing.
		if last.ID.Present() {
			s.LeafIndex = byID[last.ID.Key()]
			s.LeafID = last.Value.Get("id")
		}
		s.Problems.Add(coverage.LineageUnresolved)
		return
	}
	cur := byID[last.ID.Key()]
	s.LeafIndex = cur
	s.LeafID = fingerprintID(&f.Records[cur])
	visited := make(map[string]bool)
	var path []int
	for {
		r := &f.Records[cur]
		path = append(path, cur)
		visited[r.ID.Key()] = true
		p := r.Parent
		if !p.Valid() || p == r.ID {
			break // a root
		}
		if visited[p.Key()] {
			s.Problems.Add(coverage.InvalidParentGraph)
			break
		}
		next, ok := byID[p.Key()]
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

func (s *Selection) selectLive(f *session.File, byID map[string]int, live *Live) {
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
	b := make([]byte, 0, 64+len(ids)*12)
	b = append(b, `{"branches":`...)
	b = jsjson.AppendString(b, string(mode))
	b = append(b, `,"leafId":`...)
	if leaf.Exists() {
		b = jsjson.AppendValue(b, leaf)
	} else {
		b = append(b, "null"...)
	}
	b = append(b, `,"ids":[`...)
	for i, id := range ids {
		if i > 0 {
			b = append(b, ',')
		}
		if id.Exists() {
			b = jsjson.AppendValue(b, id)
		} else {
			b = append(b, "null"...)
		}
	}
	b = append(b, "]}"...)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
