//go:build !linux

package session

// entries reads the entries of d.
func (d *dirHandle) entries() ([]dirEntry, error) { return d.readEntries() }
