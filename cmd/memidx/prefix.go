package main

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/memidx/memidx/engine"
	"github.com/memidx/memidx/internal/session/listing"
	"github.com/memidx/memidx/internal/session/locate"
)

// minPrefix is the shortest session-id prefix taken, as git takes hashes.
const minPrefix = 4

// sessionPrefix turns a unique prefix of a session id into the id, as git
// takes a unique prefix of a hash: the terminal form shows 12 characters.
// A path, a full id or a prefix of no session is returned unchanged (the
// engine then resolves it, or says session_not_found); a prefix of several
// sessions is ambiguous_session. Ids are read from file names
// (<time>_<id>.jsonl), as OMP names its session files.
func sessionPrefix(e *engine.Engine, x string) (string, error) {
	// A full UUID (36 characters) is an id, not a prefix: no listing.
	if len(x) < minPrefix || len(x) >= 36 || strings.ContainsAny(x, `/\`) || strings.HasSuffix(x, ".jsonl") || x == "." || x == ".." {
		return x, nil
	}
	refs, _ := listing.ListSessions(locate.Dirs(e.Dirs()), listing.ListOptions{})
	ids := map[string][]string{}
	for _, r := range refs {
		stem := strings.TrimSuffix(filepath.Base(r.Path), ".jsonl")
		i := strings.LastIndexByte(stem, '_')
		if i <= 0 {
			continue
		}
		id := stem[i+1:]
		if id == x {
			return x, nil
		}
		if strings.HasPrefix(id, x) {
			ids[id] = append(ids[id], r.Path)
		}
	}
	switch len(ids) {
	case 0:
		return x, nil
	case 1:
		for id := range ids {
			return id, nil
		}
	}
	var cands []string
	for _, paths := range ids {
		cands = append(cands, paths...)
	}
	sort.Strings(cands)
	return "", &engine.ErrorObject{Code: string(engine.ErrAmbiguousSession),
		Message: fmt.Sprintf("%q is the start of %d session ids; give more of it", x, len(ids)),
		Session: x, Candidates: cands}
}

// scopePrefix applies sessionPrefix to a session:<x> scope.
func scopePrefix(e *engine.Engine, scope engine.Scope) (engine.Scope, error) {
	x, ok := strings.CutPrefix(string(scope), string(engine.ScopeTargetPrefix))
	if !ok {
		return scope, nil
	}
	id, err := sessionPrefix(e, x)
	if err != nil {
		return "", err
	}
	return engine.ScopeOf(id), nil
}
