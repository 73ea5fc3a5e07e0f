//go:build !linux

package indexfile

import bolt "go.etcd.io/bbolt"

// dropMapped does nothing here (see unmap_linux.go).
func dropMapped(*bolt.DB, int64) {}

// dontNeed does nothing here.
func dontNeed(uintptr, uintptr) {}
