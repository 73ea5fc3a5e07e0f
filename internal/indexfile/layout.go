package indexfile

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/fnv"
	"io"
)

// This file reads the few parts of bbolt's file format that bbolt has no
// API for: the meta pages (to recognise a bbolt file that bbolt cannot
// open) and the freelist page (to find the free pages to scrub). bbolt
// writes its structures in the machine's byte order.
//
// A page starts with a 16-byte header: id uint64, flags uint16, count
// uint16, overflow uint32. A meta page (pages 0 and 1) follows it with
// magic, version, pageSize, flags (uint32 each), the root bucket (root
// pgid, sequence: uint64 each), freelist pgid, high-water pgid, txid and
// an FNV-64a checksum of everything before it (uint64 each).

const (
	boltMagic      = 0xED0CDAED
	boltVersion    = 2
	pageHeaderSize = 16
	metaSize       = 64
	freelistFlag   = 0x10
	noFreelist     = ^uint64(0)
)

var native = binary.NativeEndian

// boltMeta is the part of a bbolt meta page this package uses.
type boltMeta struct {
	pageSize uint32
	freelist uint64
	pgid     uint64
	txid     uint64
	root     uint64 // the root bucket's page
	valid    bool   // the checksum matches
}

// parseMeta reads the meta page that starts at b, if it has bbolt's magic.
func parseMeta(b []byte) (boltMeta, bool) {
	if len(b) < pageHeaderSize+metaSize {
		return boltMeta{}, false
	}
	m := b[pageHeaderSize : pageHeaderSize+metaSize]
	if native.Uint32(m) != boltMagic || native.Uint32(m[4:]) != boltVersion {
		return boltMeta{}, false
	}
	h := fnv.New64a()
	h.Write(m[:56])
	return boltMeta{
		pageSize: native.Uint32(m[8:]),
		root:     native.Uint64(m[16:]),
		freelist: native.Uint64(m[32:]),
		pgid:     native.Uint64(m[40:]),
		txid:     native.Uint64(m[48:]),
		valid:    h.Sum64() == native.Uint64(m[56:]),
	}, true
}

// commonPageSizes are where page 1 may start when page 0 cannot say.
var commonPageSizes = []int64{4096, 8192, 16384, 32768, 65536}

// readMetas returns the meta pages of f that carry bbolt's magic: page 0,
// and page 1 at the page size page 0 names or, when page 0 is damaged, at
// any common page size.
func readMetas(f io.ReaderAt) []boltMeta {
	var out []boltMeta
	buf := make([]byte, pageHeaderSize+metaSize)
	at := func(off int64) (boltMeta, bool) {
		if _, err := f.ReadAt(buf, off); err != nil {
			return boltMeta{}, false
		}
		return parseMeta(buf)
	}
	offsets := commonPageSizes
	if m, ok := at(0); ok {
		out = append(out, m)
		offsets = []int64{int64(m.pageSize)}
	}
	for _, off := range offsets {
		if m, ok := at(off); ok && int64(m.pageSize) == off {
			out = append(out, m)
			break
		}
	}
	return out
}

// currentMeta is the meta bbolt opens the file with: the valid one of the
// highest transaction.
func currentMeta(f io.ReaderAt) (boltMeta, bool) {
	var cur boltMeta
	for _, m := range readMetas(f) {
		if m.valid && (!cur.valid || m.txid > cur.txid) {
			cur = m
		}
	}
	return cur, cur.valid
}

var errLayout = errors.New("bucket: the file does not have the bbolt layout this package reads")

// freelistIDs reads the ids of the freelist page of m: every free page,
// and every page freed by the last transaction (bbolt saves those too: after
// a crash they are free).
func freelistIDs(f io.ReaderAt, m boltMeta) ([]uint64, error) {
	if m.freelist == noFreelist || m.freelist < 2 || m.freelist >= m.pgid {
		return nil, errLayout
	}
	off := int64(m.freelist) * int64(m.pageSize)
	var hdr [pageHeaderSize + 8]byte
	if _, err := f.ReadAt(hdr[:], off); err != nil {
		return nil, err
	}
	if native.Uint16(hdr[8:])&freelistFlag == 0 {
		return nil, errLayout
	}
	n, start := uint64(native.Uint16(hdr[10:])), off+pageHeaderSize
	if n == 0xFFFF {
		// More than the header's count can hold: the first id is the count.
		n, start = native.Uint64(hdr[pageHeaderSize:]), start+8
	}
	if n > m.pgid {
		return nil, errLayout
	}
	raw := make([]byte, n*8)
	if _, err := f.ReadAt(raw, start); err != nil {
		return nil, err
	}
	ids := make([]uint64, n)
	for i := range ids {
		ids[i] = native.Uint64(raw[i*8:])
		if ids[i] < 2 || ids[i] >= m.pgid {
			return nil, errLayout
		}
	}
	return ids, nil
}

// scanLimit bounds the search for the meta bucket's page in a file whose
// meta pages are gone: memidx writes that page into the first pages of a
// new file (see stamp), and a large file must not be read whole.
const scanLimit = 1 << 20

// maxRootPages bounds the root page bbolt's meta pages point at, with its
// overflow, that is read to find the meta bucket of an older layout.
const maxRootPages = 16

const (
	leafPageFlag   = 0x02
	bucketLeafFlag = 0x01
	leafElemSize   = 16
	inBucketSize   = 16
)

// memidxLayout reports whether f, of size bytes, is memidx's by its
// structure: a bbolt leaf page, at its place and naming its own page id,
// that holds the meta bucket with the marker; or, for the layouts before
// the marker, the meta bucket with the cache version and layout keys in
// the root bucket that a meta page with bbolt's magic points at. A file
// that merely contains the marker's text anywhere else is not.
func memidxLayout(f io.ReaderAt, size int64) bool {
	metas := readMetas(f)
	for _, m := range metas {
		if rootHoldsMeta(f, size, m) {
			return true
		}
	}
	head := make([]byte, min(size, scanLimit))
	n, _ := f.ReadAt(head, 0)
	head = head[:n]
	sizes := commonPageSizes
	if len(metas) > 0 && sanePageSize(int64(metas[0].pageSize)) {
		sizes = []int64{int64(metas[0].pageSize)}
	}
	for _, ps := range sizes {
		for id := int64(2); (id+1)*ps <= int64(len(head)); id++ {
			p := head[id*ps : (id+1)*ps]
			if native.Uint64(p) != uint64(id) || native.Uint16(p[8:]) != leafPageFlag {
				continue
			}
			if k := metaKeys(p); k.marker && k.version {
				return true
			}
		}
	}
	return false
}

// sanePageSize reports whether n can be a bbolt page size.
func sanePageSize(n int64) bool { return n >= 512 && n <= 1<<20 && n&(n-1) == 0 }

// rootHoldsMeta reports whether the root bucket m points at holds
// memidx's meta bucket, inline or on a page of its own.
func rootHoldsMeta(f io.ReaderAt, size int64, m boltMeta) bool {
	ps := int64(m.pageSize)
	root := readPage(f, size, ps, m.root)
	if root == nil || native.Uint16(root[8:]) != leafPageFlag {
		return false
	}
	v, ok := leafValue(root, metaBucket, true)
	if !ok || len(v) < inBucketSize {
		return false
	}
	var meta []byte
	if at := native.Uint64(v); at == 0 { // inline: the page follows
		meta = v[inBucketSize:]
	} else if meta = readPage(f, size, ps, at); meta == nil {
		return false
	}
	if len(meta) < pageHeaderSize || native.Uint16(meta[8:]) != leafPageFlag {
		return false
	}
	k := metaKeys(meta)
	return k.version && (k.marker || k.layout)
}

// readPage reads page id, with its overflow, of a file of size bytes and
// page size ps; nil when it is not there or names another id.
func readPage(f io.ReaderAt, size, ps int64, id uint64) []byte {
	if !sanePageSize(ps) || id < 2 || int64(id) >= size/ps {
		return nil
	}
	hdr := make([]byte, pageHeaderSize)
	if _, err := f.ReadAt(hdr, int64(id)*ps); err != nil || native.Uint64(hdr) != id {
		return nil
	}
	n := int64(native.Uint32(hdr[12:])) + 1
	if n > maxRootPages || (int64(id)+n)*ps > size {
		return nil
	}
	p := make([]byte, n*ps)
	if _, err := f.ReadAt(p, int64(id)*ps); err != nil {
		return nil
	}
	return p
}

// metaFound is what a leaf holds of memidx's meta bucket.
type metaFound struct{ marker, version, layout bool }

// metaKeys reads the leaf page p as memidx's meta bucket: the marker, and
// the one-byte cache version and layout. A leaf that holds a nested bucket
// is not it.
func metaKeys(p []byte) metaFound {
	var k metaFound
	nested := false
	ok := forEachLeaf(p, func(flags uint32, key, val []byte) bool {
		switch {
		case flags&bucketLeafFlag != 0:
			nested = true
			return false
		case bytes.Equal(key, markerKey):
			k.marker = bytes.HasPrefix(val, markerText)
		case bytes.Equal(key, versionKey):
			k.version = len(val) == 1
		case bytes.Equal(key, layoutKey):
			k.layout = len(val) == 1
		}
		return true
	})
	if !ok || nested {
		return metaFound{}
	}
	return k
}

// leafValue returns the value of key in the leaf page p, when its
// element's bucket flag is bucket.
func leafValue(p, key []byte, bucket bool) (out []byte, found bool) {
	forEachLeaf(p, func(flags uint32, k, v []byte) bool {
		if bytes.Equal(k, key) {
			out, found = v, (flags&bucketLeafFlag != 0) == bucket
			return false
		}
		return true
	})
	return out, found
}

// forEachLeaf calls fn with each element of the leaf page p, in order,
// until fn returns false; it reports false when an element does not lie
// within p or the keys are out of order.
func forEachLeaf(p []byte, fn func(flags uint32, key, val []byte) bool) bool {
	if len(p) < pageHeaderSize {
		return false
	}
	n := int(native.Uint16(p[10:]))
	var prev []byte
	for i := range n {
		at := pageHeaderSize + i*leafElemSize
		if at+leafElemSize > len(p) {
			return false
		}
		e := p[at:]
		pos, ks, vs := uint64(native.Uint32(e[4:])), uint64(native.Uint32(e[8:])), uint64(native.Uint32(e[12:]))
		start := uint64(at) + pos
		if pos < uint64(leafElemSize*(n-i)) || start+ks+vs > uint64(len(p)) {
			return false
		}
		key, val := p[start:start+ks], p[start+ks:start+ks+vs]
		if i > 0 && bytes.Compare(prev, key) >= 0 {
			return false
		}
		prev = key
		if !fn(native.Uint32(e), key, val) {
			return true
		}
	}
	return true
}
