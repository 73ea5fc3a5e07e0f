package engine

import (
	"bytes"
	"os"

	"github.com/memidx/memidx/internal/coverage"
	"github.com/memidx/memidx/internal/index"
	"github.com/memidx/memidx/internal/lineage"
	"github.com/memidx/memidx/internal/normalize"
	"github.com/memidx/memidx/internal/session"
)

// readSlimSnapshot reads a session with the slim reader: records kept as
// spans and ids, entries normalized when a call returns them, so that
// expanding one entry of a long session costs its records' ids, not its
// parsed and normalized text. It returns nil (and the caller
// reads the whole file) when the file is outside the slim reader's fast
// path, when the selection holds records whose entries depend on the rest
// of the session, or when anything about the read is unusual: the full
// reader then decides, errors included.
func readSlimSnapshot(path string, mode lineage.Mode, live *lineage.Live) *snapshot {
	before, err := index.StatIdentity(path)
	if err != nil || before.Size > session.MaxFileBytes {
		return nil
	}
	f, _, err := session.OpenRegular(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	index.CountSourceRead()
	var pl normalize.Planner
	s, err := session.ReadSlim(f, before.Size, path, pl.Tag)
	if err != nil {
		return nil
	}
	if after, err := index.StatIdentity(path); err != nil || after != before {
		// Written to while it was read: the full reader decides what the
		// read is worth (and whether to keep it).
		return nil
	}
	sel := lineage.SelectSlim(s, mode, live) // SelectSlim ignores live for branches "all"
	lz, ok := normalize.NewLazy(s, sel, &pl, normalize.Lossless())
	if !ok {
		return nil
	}
	return &snapshot{path: path, hash: s.SourceHash, fp: sel.Fingerprint, mode: mode, lazy: lz, id: before,
		cost: slimSnapshotCost(s, lz.Len())}
}

// count is the number of entries of the snapshot's selection.
func (s *snapshot) count() int {
	if s.lazy != nil {
		return s.lazy.Len()
	}
	return len(s.entries)
}

// entryID is entry i's EntryID (ok false for nil), without reading the
// entry.
func (s *snapshot) entryID(i int) (string, bool) {
	if s.lazy != nil {
		return s.lazy.EntryID(i)
	}
	return deref(s.entries[i].EntryID)
}

// operationAddress is entry i's OperationAddress, without reading the
// entry: a lazy snapshot has none (only Fabric children carry one, and a
// selection with Fabric traces is read whole).
func (s *snapshot) operationAddress(i int) (string, bool) {
	if s.lazy != nil {
		return "", false
	}
	return deref(s.entries[i].OperationAddress)
}

func deref(p *string) (string, bool) {
	if p == nil {
		return "", false
	}
	return *p, true
}

// entryReader reads the entries of one snapshot for one call.
type entryReader struct {
	snap  *snapshot
	f     *os.File
	spans *session.SpanReader // a walk reads the file sequentially
}

// open prepares to read the snapshot's entries. For a lazy snapshot the
// file must still be the one that was read.
func (s *snapshot) open() (*entryReader, *ErrorObject) {
	r := &entryReader{snap: s}
	if s.lazy == nil {
		return r, nil
	}
	f, _, err := session.OpenRegular(s.path)
	if err != nil {
		return nil, &ErrorObject{Code: coverage.SourceUnavailable, Message: err.Error(), SessionFile: s.path}
	}
	if id, err := index.StatIdentity(s.path); err != nil || id != s.id {
		f.Close()
		return nil, s.changedError()
	}
	r.f, r.spans = f, session.NewSpanReader(f)
	return r, nil
}

func (s *snapshot) changedError() *ErrorObject {
	return &ErrorObject{Code: coverage.StalePointer, Hint: staleHint, SessionFile: s.path, ExpectedSourceHash: s.hash,
		Message: "Session source changed while it was read."}
}

func (r *entryReader) close() {
	if r != nil && r.f != nil {
		r.f.Close()
	}
}

// entry returns entry i of the snapshot.
func (r *entryReader) entry(i int) (*normalize.Entry, *ErrorObject) {
	s := r.snap
	if s.lazy == nil {
		return &s.entries[i], nil
	}
	b, ok := r.spans.Read(s.lazy.Span(i))
	if !ok {
		return nil, s.changedError()
	}
	// The entry may share memory with the bytes it is read from, and the
	// buffer is read into again: it gets its own copy.
	val := bytes.Clone(b)
	e, err := s.lazy.Entry(i, val)
	if err != nil {
		return nil, s.changedError()
	}
	return &e, nil
}
