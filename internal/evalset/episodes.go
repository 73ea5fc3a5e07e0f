package evalset

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/memidx/memidx/engine"
)

// EntryInfo is what episode numbering needs of one entry.
type EntryInfo struct {
	Index   int
	EntryID string
	Type    string
	Role    string
	Text    string
}

// Ordinals are the episode ordinals of one session's entries, by index
// and by entry id. Entries before the first user text message belong to
// no episode and are absent.
type Ordinals struct {
	ByIndex map[int]int
	ByID    map[string]int
}

// EpisodeOrdinals numbers the episodes of one session's entries: a user
// text message starts the next episode (from 0, in file order, i.e. by
// Index) and every later entry belongs to it until the next one.
func EpisodeOrdinals(entries []EntryInfo) Ordinals {
	sorted := append([]EntryInfo(nil), entries...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Index < sorted[j].Index })
	o := Ordinals{ByIndex: make(map[int]int, len(sorted)), ByID: make(map[string]int, len(sorted))}
	ord := -1
	for _, en := range sorted {
		if en.Type == "message" && en.Role == "user" && strings.TrimSpace(en.Text) != "" {
			ord++
		}
		if ord < 0 {
			continue
		}
		o.ByIndex[en.Index] = ord
		if en.EntryID != "" {
			o.ByID[en.EntryID] = ord // a later duplicate wins, as in OMP's id map
		}
	}
	return o
}

// episodeMap maps hits to episodes. Episodes are numbered in file order
// over every branch, so a hit with an entry id is looked up by id in a
// walk of every branch. A hit's index is its position in the run's own
// branch view, so an entry without an id (a linear pi v1 file, where the
// views agree) is looked up by index in a walk of that view.
type episodeMap struct {
	e        *engine.Engine
	branches engine.Branches
	all      map[string]Ordinals
	view     map[string]Ordinals
}

func newEpisodeMap(e *engine.Engine, branches engine.Branches) *episodeMap {
	return &episodeMap{e: e, branches: branches, all: map[string]Ordinals{}, view: map[string]Ordinals{}}
}

// episode is the ordinal of a hit's entry in session id, -1 for none.
func (m *episodeMap) episode(ctx context.Context, id, entryID string, index int) (int, error) {
	cache, branches := m.all, engine.BranchesAll
	if entryID == "" && m.branches != engine.BranchesAll {
		cache, branches = m.view, m.branches
	}
	ords, ok := cache[id]
	if !ok {
		entries, err := m.walk(ctx, id, branches)
		if err != nil {
			return -1, err
		}
		ords = EpisodeOrdinals(entries)
		cache[id] = ords
	}
	o, found := ords.ByIndex[index]
	if entryID != "" {
		o, found = ords.ByID[entryID]
	}
	if !found {
		return -1, nil
	}
	return o, nil
}

func (m *episodeMap) walk(ctx context.Context, id string, branches engine.Branches) ([]EntryInfo, error) {
	var entries []EntryInfo
	res, err := m.e.Walk(ctx, engine.ExpandRequest{Session: id, Branches: branches},
		func(en engine.ExpandedEntry) (bool, error) {
			// A long entry comes in chunks; its first chunk says enough.
			if en.TextRange.Start == 0 {
				entries = append(entries, EntryInfo{Index: en.Index, EntryID: deref(en.EntryID),
					Type: en.Type, Role: deref(en.Role), Text: en.Text})
			}
			return true, nil
		})
	switch {
	case err != nil:
		return nil, err
	case res.Error != nil:
		return nil, fmt.Errorf("numbering the episodes of session %s: %w", id, res.Error)
	case !res.Complete:
		return nil, fmt.Errorf("numbering the episodes of session %s: walk incomplete (%s)", id, strings.Join(res.Reasons, ", "))
	}
	return entries, nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
