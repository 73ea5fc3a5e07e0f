package benchmark

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/memidx/memidx/internal/corpus"
)

// loadManifest reads dir/manifest.json and confines every path it names to
// the corpus: the bench opens, stats and appends to those paths, so a
// crafted manifest naming "../x" or "/home/u/.bashrc" must be refused
// before anything is done. It returns the corpus directory with symlinks
// resolved and the manifest with each path rewritten to its resolved form
// relative to that directory (slash-separated, as gen writes them), so
// later steps only ever join local paths.
func loadManifest(dir string) (string, *corpus.Manifest, error) {
	b, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		return "", nil, fmt.Errorf("benchmark: %s is not a memidx gen corpus: %w", dir, err)
	}
	var m corpus.Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return "", nil, fmt.Errorf("benchmark: %s: %w", filepath.Join(dir, "manifest.json"), err)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", nil, fmt.Errorf("benchmark: %w", err)
	}
	root, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", nil, fmt.Errorf("benchmark: %w", err)
	}
	if err := confineManifest(corpusRoot{abs, root}, &m); err != nil {
		return "", nil, err
	}
	return root, &m, nil
}

// corpusRoot is the corpus directory as given (made absolute) and with
// its symlinks resolved; an absolute manifest path may use either.
type corpusRoot struct{ abs, real string }

// confineManifest rewrites every path of m to its resolved place inside
// the corpus, failing on the first one outside. Cwd is not checked: it
// names the recorded project directory, which the bench never touches.
func confineManifest(root corpusRoot, m *corpus.Manifest) error {
	type field struct {
		name string
		p    *string
	}
	var fields []field
	for i := range m.Sessions {
		s := &m.Sessions[i]
		bucket := "sessions/" + s.Bucket // checked, left as a name
		fields = append(fields, field{fmt.Sprintf("sessions[%d].path", i), &s.Path},
			field{fmt.Sprintf("sessions[%d].parent", i), &s.Parent},
			field{fmt.Sprintf("sessions[%d].bucket", i), &bucket})
	}
	for i := range m.Facts {
		fields = append(fields, field{fmt.Sprintf("facts[%d].path", i), &m.Facts[i].Path})
	}
	for _, f := range fields {
		if *f.p == "" {
			continue // no parent, or a fact without a file
		}
		rel, err := root.confine(*f.p)
		if err != nil {
			return fmt.Errorf("benchmark: manifest.json: %s %q: %w", f.name, *f.p, err)
		}
		*f.p = rel
	}
	return nil
}

// confine returns p (slash-separated, relative to the corpus or absolute)
// as a slash-separated path relative to root.real, after cleaning and
// after resolving symlinks; an error when either lies outside the corpus.
func (root corpusRoot) confine(p string) (string, error) {
	full := filepath.Clean(filepath.FromSlash(p))
	if !filepath.IsAbs(full) {
		full = filepath.Join(root.real, full)
	} else if rel, ok := local(root.abs, full); ok {
		full = filepath.Join(root.real, rel) // named through the unresolved directory
	}
	if _, ok := local(root.real, full); !ok {
		return "", fmt.Errorf("outside the corpus %s", root.abs)
	}
	real, err := resolve(full)
	if err != nil {
		return "", err
	}
	rel, ok := local(root.real, real)
	if !ok {
		return "", fmt.Errorf("resolves to %s, outside the corpus %s", real, root.abs)
	}
	return filepath.ToSlash(rel), nil
}

// local returns p relative to root and whether it stays inside root.
func local(root, p string) (string, bool) {
	rel, err := filepath.Rel(root, p)
	return rel, err == nil && filepath.IsLocal(rel)
}

// resolve resolves the symlinks of p's longest existing prefix: a path
// that does not exist yet is judged by the directory that would hold it.
func resolve(p string) (string, error) {
	real, err := filepath.EvalSymlinks(p)
	if err == nil || !errors.Is(err, fs.ErrNotExist) {
		return real, err
	}
	parent := filepath.Dir(p)
	if parent == p {
		return p, nil
	}
	dir, err := resolve(parent)
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, filepath.Base(p)), nil
}
