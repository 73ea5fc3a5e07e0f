//go:build !linux

package listing

// entries reads the entries of d.
func (d *dirHandle) entries() ([]dirEntry, error) { return d.readEntries() }
