//go:build !(linux && (amd64 || arm64))

package listing

import "path/filepath"

// canonical is filepath.EvalSymlinks(p) (see canonical_direct.go).
func canonical(p string) (string, error) { return filepath.EvalSymlinks(p) }
