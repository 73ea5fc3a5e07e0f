//go:build !linux

package index

import "os"

var pageSize = os.Getpagesize()

// drop forgets the pages: only Linux gives a shared file map's pages back
// without writing them (see mapped_linux.go).
func (m *mappedPages) drop() { m.runs, m.n = m.runs[:0], 0 }
