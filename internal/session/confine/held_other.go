//go:build !linux

package confine

import "os"

// Held opens files as Open does (see its Linux form, which holds each
// session root's directory open; other platforms open each root again).
type Held struct{}

// Open opens path as Open does.
func (h *Held) Open(path string) (*os.File, error) { return Open(path) }

// Close does nothing.
func (h *Held) Close() {}
