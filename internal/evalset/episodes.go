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
	Index int
	Type  string
	Role  string
	Text  string
}

// EpisodeOrdinals numbers the episodes of one session's entries: a user
// text message starts the next episode (from 0, in file order, i.e. by
// Index) and every later entry belongs to it until the next one. Entries
// before the first user text message belong to none and are absent from
// the map.
func EpisodeOrdinals(entries []EntryInfo) map[int]int {
	sorted := append([]EntryInfo(nil), entries...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Index < sorted[j].Index })
	out := make(map[int]int, len(sorted))
	ord := -1
	for _, en := range sorted {
		if en.Type == "message" && en.Role == "user" && strings.TrimSpace(en.Text) != "" {
			ord++
		}
		if ord >= 0 {
			out[en.Index] = ord
		}
	}
	return out
}

// episodeMap maps hits to episodes, walking each session once (every
// branch, so that an entry off the active branch is numbered too).
type episodeMap struct {
	e        *engine.Engine
	sessions map[string]map[int]int
}

func newEpisodeMap(e *engine.Engine) *episodeMap {
	return &episodeMap{e: e, sessions: map[string]map[int]int{}}
}

// episode is the ordinal of the entry at index in session id, -1 for none.
func (m *episodeMap) episode(ctx context.Context, id string, index int) (int, error) {
	ords, ok := m.sessions[id]
	if !ok {
		var err error
		if ords, err = m.walk(ctx, id); err != nil {
			return -1, err
		}
		m.sessions[id] = ords
	}
	if o, ok := ords[index]; ok {
		return o, nil
	}
	return -1, nil
}

func (m *episodeMap) walk(ctx context.Context, id string) (map[int]int, error) {
	var entries []EntryInfo
	res, err := m.e.Walk(ctx, engine.ExpandRequest{Session: id, Branches: engine.BranchesAll},
		func(en engine.ExpandedEntry) (bool, error) {
			// A long entry comes in chunks; its first chunk says enough.
			if en.TextRange.Start == 0 {
				entries = append(entries, EntryInfo{Index: en.Index, Type: en.Type, Role: deref(en.Role), Text: en.Text})
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
	return EpisodeOrdinals(entries), nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
