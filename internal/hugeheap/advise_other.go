//go:build !linux

package hugeheap

// supported is false: no transparent huge pages to ask for.
func supported() bool { return false }

// advise does nothing.
func advise(b []byte) bool { return false }
