//go:build !linux

package hugeheap

// advise does nothing: no transparent huge pages to ask for.
func advise(b []byte) bool { return false }
