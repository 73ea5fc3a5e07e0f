package indexfile

import (
	"reflect"
	"unsafe"

	bolt "go.etcd.io/bbolt"
)

// Mapped is the part of tx's file map that its pages can lie in: from
// the map's start, the lesser of the transaction's size and the map's
// length. Only there may pages be given back (MADV_DONTNEED): a
// transaction's size (its meta's page count) passes the map when the
// file was cut short before it was opened, and a damaged page can point
// past it; past the map lies whatever else the process has mapped (the
// Go runtime's own memory), which the advice would zero. Its length is 0
// when it cannot be told.
func Mapped(tx *bolt.Tx) MapArea {
	db := tx.DB()
	return MapArea{Start: db.Info().Data, Len: uintptr(max(0, min(tx.Size(), mapLen(db))))}
}

// MapArea is a stretch of the address space: a file's map.
type MapArea struct{ Start, Len uintptr }

// Holds reports whether b lies within a.
func (a MapArea) Holds(b []byte) bool {
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	return a.Len > 0 && p >= a.Start && p-a.Start <= a.Len && uintptr(len(b)) <= a.Len-(p-a.Start)
}

// GiveBack gives back the pages of the n bytes at addr, cut to a
// (MADV_DONTNEED: they leave the process's resident set and stay in the
// page cache; a later read maps them again). Nothing where pages cannot
// be given back (dontNeed), nor for bytes before a.
func (a MapArea) GiveBack(addr, n uintptr) {
	if n == 0 || a.Len == 0 || addr < a.Start || addr-a.Start >= a.Len {
		return
	}
	dontNeed(addr, min(n, a.Len-(addr-a.Start)))
}

// mapLen is the length of db's map, bbolt's unexported datasz (read
// inside a transaction, which holds the map in place). 0, nothing to give
// back, if a bbolt version names it otherwise (TestMappedIsTheMap fails
// then).
func mapLen(db *bolt.DB) int64 {
	f := reflect.ValueOf(db).Elem().FieldByName("datasz")
	if !f.IsValid() || !f.CanInt() {
		return 0
	}
	return f.Int()
}
