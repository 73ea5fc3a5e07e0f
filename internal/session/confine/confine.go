package confine

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/memidx/memidx/internal/session/locate"
)

// The root check and the open are one step. A listing checks that a file
// lies inside the session roots and hands out its path; a directory on
// that path swapped for a symlink before the file is read would make the
// read leave the roots. So a file under a session root is opened relative
// to a handle on the root, with the kernel refusing to leave it
// (openBeneath), and a symlink below the root that the kernel will not
// follow there is resolved once and its target opened again relative to
// the root that holds it, with no symlink allowed on the way (openStrict):
// what is read is what was checked.

// sessionRoots are the session roots this process listed or resolved
// files under (AddRoot, AddDirs). Open confines a path spelled under one
// of them to it; other paths (a configuration file, a file named on the command line
// outside every root) open as given.
var sessionRoots rootSet

// rootSet maps a root, spelled as given and canonically, to its canonical
// path.
type rootSet struct {
	mu    sync.RWMutex
	canon map[string]string
}

// AddRoot confines the files under root, spelled as given and
// canonically, to it from now on.
func AddRoot(given, canon string) { sessionRoots.add(given, canon) }

// AddDirs confines the files under the allowed session roots of d (the
// sessions root, the explicit session dir) to them from now on.
func AddDirs(d locate.Dirs) {
	for _, r := range []string{d.SessionsRoot, d.SessionDir} {
		if r == "" {
			continue
		}
		r = filepath.Clean(r)
		if c, err := filepath.EvalSymlinks(r); err == nil {
			sessionRoots.add(r, c)
		}
	}
}

func (s *rootSet) add(given, canon string) {
	s.mu.RLock()
	known := s.canon[given] == canon && s.canon[canon] == canon
	s.mu.RUnlock()
	if known {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.canon == nil {
		s.canon = map[string]string{}
	}
	s.canon[given] = canon
	s.canon[canon] = canon
}

// under returns the innermost root holding path (as spelled), and path
// relative to it.
func (s *rootSet) under(path string) (root, rel string, ok bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if len(s.canon) == 0 {
		return "", "", false
	}
	for dir := filepath.Dir(path); ; {
		if _, ok := s.canon[dir]; ok {
			rel, err := filepath.Rel(dir, path)
			return dir, rel, err == nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", "", false
		}
		dir = parent
	}
}

// canonicalRoots are the canonical paths of every root in s.
func (s *rootSet) canonicalRoots() []string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	var roots []string
	for given, c := range s.canon {
		if given == c {
			roots = append(roots, c)
		}
	}
	return roots
}

// Open opens path read-only and non-blocking; under a session root, never
// outside the roots.
func Open(path string) (*os.File, error) { return openConfined(path, openBeneath) }

// openConfined is Open with beneath the open of a path below its root
// (openBeneath, or a Held's through the root it holds).
func openConfined(path string, beneath func(root, rel, name string, dir bool) (*os.File, error)) (*os.File, error) {
	path = filepath.Clean(path)
	root, rel, ok := sessionRoots.under(path)
	if !ok {
		return openPlain(path)
	}
	f, err := beneath(root, rel, path, false)
	if err == nil || !refusedLink(err) {
		return f, err
	}
	return openResolvedLink(path)
}

// openResolvedLink opens path, which holds a symlink the kernel would not
// follow beneath its root (an absolute one, or one that leaves it), by its
// canonical path beneath the root that holds that.
func openResolvedLink(path string) (*os.File, error) {
	canon, err := filepath.EvalSymlinks(path)
	if err != nil {
		return nil, err
	}
	return OpenCanonical(sessionRoots.canonicalRoots(), canon, path, false)
}

// OpenCanonical opens canon, a canonical path, relative to the innermost
// of roots (canonical) holding it, following no symlink below that root;
// dir opens a directory. name is the path to report.
func OpenCanonical(roots []string, canon, name string, dir bool) (*os.File, error) {
	root := ""
	for _, r := range roots {
		if rel, ok := locate.Within(r, canon); ok && rel != "" && len(r) > len(root) {
			root = r
		}
	}
	if root == "" {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fmt.Errorf("%w: %s", ErrOutsideRoots, canon)}
	}
	rel, _ := locate.Within(root, canon)
	return openStrict(root, rel, name, dir)
}

// errEscapes reports a relative path that names something outside its
// root or no single file.
var errEscapes = errors.New("session: path leaves its root")

// splitRel splits rel, a relative path, into its components; a ".."
// component or an absolute path is refused.
func splitRel(rel string) ([]string, error) {
	if filepath.IsAbs(rel) {
		return nil, errEscapes
	}
	parts := strings.Split(filepath.Clean(rel), string(filepath.Separator))
	for _, p := range parts {
		if p == "" || p == "." || p == ".." {
			return nil, errEscapes
		}
	}
	return parts, nil
}

// errLinkRefused says an open met a symlink it would not follow where it
// was: the caller resolves it and opens the target if that is inside the
// roots.
var errLinkRefused = errors.New("session: symlink not followed")

// refusedLink reports an open that failed on a symlink (see
// errLinkRefused), or on something a symlink may have been swapped for.
func refusedLink(err error) bool { return errors.Is(err, errLinkRefused) || linkErrno(err) }

// pathError names the file an open was for.
func pathError(name string, err error) error {
	return &fs.PathError{Op: "open", Path: name, Err: err}
}
