// Package memtest measures, for tests, how far the Go heap rises while a
// function runs (the memory bounds of a rebuild or an expand are
// asserted with it) and how many bytes it allocates.
package memtest
