//go:build !linux

package indexfile

import bolt "go.etcd.io/bbolt"

// residentFile cannot be read here: a map budget does nothing.
type residentFile struct{}

func (*residentFile) bytes() (int64, bool) { return 0, false }

func (*residentFile) close() {}

// DropRange does nothing here (see mapbudget_linux.go).
func DropRange(*bolt.Tx, []byte) {}
