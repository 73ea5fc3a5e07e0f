package confine

import (
	"errors"
	"unicode/utf8"

	"github.com/memidx/memidx/internal/session/locate"
)

// The one check every file passes before memidx reads it for a caller: its
// real path lies inside an allowed session root (the sessions root or the
// explicit session dir), its name is valid UTF-8 (so that a follow token
// carrying it round-trips through JSON), it is a regular file, and it holds
// an OMP session header (or nothing yet: a fresh session; session.CheckFile).
// A request is untrusted; this is what keeps a hostile one from pulling
// /etc/shadow into a model's context or into the index.

// ErrOutsideRoots is returned for a file whose real path is outside every
// allowed session root.
var ErrOutsideRoots = errors.New("session: outside the allowed session roots")

// ErrInvalidName is returned for a path that is not valid UTF-8.
var ErrInvalidName = errors.New("session: path is not valid UTF-8")

// InsideRoots reports whether the canonical path lies strictly inside one
// of roots.
func InsideRoots(roots []string, canon string) bool {
	for _, r := range roots {
		if rel, ok := locate.Within(r, canon); ok && rel != "" {
			return true
		}
	}
	return false
}

// ValidName reports whether a path can travel in a JSON follow token.
func ValidName(p string) bool { return utf8.ValidString(p) }
