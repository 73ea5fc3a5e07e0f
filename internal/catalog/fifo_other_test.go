//go:build !unix

package catalog_test

import "testing"

// makeFIFO: no FIFOs to make here.
func makeFIFO(t *testing.T, dir string) string { return "" }
