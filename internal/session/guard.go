package session

import (
	"errors"
	"fmt"
	"github.com/memidx/memidx/internal/session/locate"
	"io"
	"os"
	"path/filepath"
	"unicode/utf8"
)

// The one check every file passes before memidx reads it for a caller: its
// real path lies inside an allowed session root (the sessions root or the
// explicit session dir), its name is valid UTF-8 (so that a follow token
// carrying it round-trips through JSON), it is a regular file, and it holds
// an OMP session header (or nothing yet: a fresh session). A request is
// untrusted; this is what keeps a hostile one from pulling /etc/shadow into
// a model's context or into the index.

// Reasons a listing or a resolution may leave a file out on purpose. Each
// makes the answer non-authoritative.
const (
	// ReasonOutsideRoots: a symlinked session file or directory resolves
	// outside the allowed session roots; it is not followed.
	ReasonOutsideRoots = "symlink_outside_session_roots"
	// ReasonMaxListingDepth: a directory nested deeper than MaxNestedDepth
	// inside a session's artifacts directory was not listed.
	ReasonMaxListingDepth = "max_listing_depth"
	// ReasonInvalidFileName: a file name that is not valid UTF-8 cannot be
	// carried in a follow token, so the file is left out.
	ReasonInvalidFileName = "invalid_file_name"
	// ReasonCurrentSessionRefused: the host's current session file failed
	// the check above.
	ReasonCurrentSessionRefused = "current_session_refused"
)

// ErrOutsideRoots is returned for a file whose real path is outside every
// allowed session root.
var ErrOutsideRoots = errors.New("session: outside the allowed session roots")

// ErrInvalidName is returned for a path that is not valid UTF-8.
var ErrInvalidName = errors.New("session: path is not valid UTF-8")

// SkipError names a file or directory a listing left out on purpose, with
// the coverage reason that says so.
type SkipError struct {
	Reason string
	Path   string
}

func (e *SkipError) Error() string { return fmt.Sprintf("session: %s skipped (%s)", e.Path, e.Reason) }

// ListReasons splits a listing's error into the reasons of the files it
// skipped on purpose and whether anything else went wrong (a directory that
// could not be read: source_unavailable).
func ListReasons(err error) (reasons []string, unavailable bool) {
	var walk func(error)
	walk = func(err error) {
		if err == nil {
			return
		}
		if j, ok := err.(interface{ Unwrap() []error }); ok {
			for _, e := range j.Unwrap() {
				walk(e)
			}
			return
		}
		var se *SkipError
		if errors.As(err, &se) {
			reasons = append(reasons, se.Reason)
			return
		}
		unavailable = true
	}
	walk(err)
	return reasons, unavailable
}

// insideRoots reports whether the canonical path lies strictly inside one
// of roots.
func insideRoots(roots []string, canon string) bool {
	for _, r := range roots {
		if rel, ok := locate.Within(r, canon); ok && rel != "" {
			return true
		}
	}
	return false
}

// checkSessionFile applies the header part of the check to the regular
// file at path of the given size: a valid header, or no value at all.
func checkSessionFile(path string, size int64) error {
	if size == 0 {
		return nil
	}
	if _, err := ReadHeader(path); !errors.Is(err, ErrNoHeader) {
		return err
	}
	// No header: only a blank file (a fresh session) passes.
	if size <= blankProbeBytes {
		if f, _, err := OpenRegular(path); err == nil {
			b, rerr := io.ReadAll(io.LimitReader(f, blankProbeBytes+1))
			f.Close()
			if rerr == nil && jsBlank(b) {
				return nil
			}
		}
	}
	return fmt.Errorf("%w: %s is not an OMP session file", ErrNoHeader, path)
}

// blankProbeBytes bounds the read that tells a blank file from a
// headerless one.
const blankProbeBytes = 64 << 10

// IsSessionData reports whether data, a whole file, is one OMP would open
// as a session: a valid header after any garbage lines, or no value at all.
// Readers call it before hashing or keeping anything of the file.
func IsSessionData(data []byte) bool {
	if jsBlank(data) {
		return true
	}
	h, _ := headerFromPrefix(data, true, len(data) >= StreamThreshold)
	return h != nil
}

// validName reports whether a path can travel in a JSON follow token.
func validName(p string) bool { return utf8.ValidString(p) }

// sessionRef stats the file a caller named (a session:<path> scope, the
// host's current session; relative to the project cwd) and returns its Ref
// with the canonical Path, when it passes the whole check.
func (r *Resolver) sessionRef(p string) (Ref, error) {
	if !validName(p) {
		return Ref{}, fmt.Errorf("%w: %q", ErrInvalidName, p)
	}
	confineRoots(r.Dirs)
	abs := r.abs(p)
	st, err := os.Stat(abs)
	if err != nil {
		return Ref{}, err
	}
	if !st.Mode().IsRegular() {
		return Ref{}, fmt.Errorf("%w: %s", ErrNotRegular, abs)
	}
	canon, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return Ref{}, err
	}
	if !insideRoots(r.Dirs.AllowedRoots(), canon) {
		return Ref{}, fmt.Errorf("%w: %s", ErrOutsideRoots, canon)
	}
	path, bucket, nested := display(mapRoots(r.Dirs), canon)
	if err := checkSessionFile(path, st.Size()); err != nil {
		return Ref{}, err
	}
	fst := StatOf(st)
	return Ref{Path: path, Size: st.Size(), ModTime: st.ModTime(), Bucket: bucket, Nested: nested, Stat: &fst}, nil
}
