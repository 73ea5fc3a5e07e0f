package scopes

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/memidx/memidx/internal/session"
	"github.com/memidx/memidx/internal/session/confine"
	"github.com/memidx/memidx/internal/session/listing"
)

// ReasonCurrentSessionRefused: the host's current session file failed the
// check every file passes before memidx reads it (package confine).
const ReasonCurrentSessionRefused = "current_session_refused"

// sessionRef stats the file a caller named (a session:<path> scope, the
// host's current session; relative to the project cwd) and returns its Ref
// with the canonical Path, when it passes the whole check.
func (r *Resolver) sessionRef(p string) (Ref, error) {
	if !confine.ValidName(p) {
		return Ref{}, fmt.Errorf("%w: %q", confine.ErrInvalidName, p)
	}
	confine.AddDirs(r.Dirs)
	abs := r.abs(p)
	st, err := os.Stat(abs)
	if err != nil {
		return Ref{}, err
	}
	if !st.Mode().IsRegular() {
		return Ref{}, fmt.Errorf("%w: %s", session.ErrNotRegular, abs)
	}
	canon, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return Ref{}, err
	}
	if !confine.InsideRoots(r.Dirs.AllowedRoots(), canon) {
		return Ref{}, fmt.Errorf("%w: %s", confine.ErrOutsideRoots, canon)
	}
	path, bucket, nested := listing.Spell(r.Dirs, canon)
	if err := session.CheckFile(path, st.Size()); err != nil {
		return Ref{}, err
	}
	fst := listing.StatOf(st)
	return listing.ResolvedRef(path, bucket, nested, &fst), nil
}
