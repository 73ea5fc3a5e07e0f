package bucket

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/fnv"
	"io"
	"os"
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
	valid    bool // the checksum matches
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

// scanLimit bounds the search for the marker in a file without bbolt's
// magic: memidx writes its marker into the first pages of a new file (see
// stamp), and a large foreign file must not be read whole on every call.
const scanLimit = 1 << 20

// carries reports whether the bytes of path hold one of sigs: the whole
// file when a meta page still has bbolt's magic, its first scanLimit bytes
// otherwise.
func carries(path string, sigs ...[]byte) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	var r io.Reader = f
	if len(readMetas(f)) == 0 {
		r = io.LimitReader(f, scanLimit)
	}
	keep := 0
	for _, s := range sigs {
		keep = max(keep, len(s)-1)
	}
	buf := make([]byte, 0, 1<<20)
	for {
		n, err := io.ReadFull(r, buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		for _, s := range sigs {
			if bytes.Contains(buf, s) {
				return true, nil
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				return false, nil
			}
			return false, err
		}
		// Keep the tail: a signature may straddle two reads.
		tail := min(keep, len(buf))
		buf = buf[:copy(buf, buf[len(buf)-tail:])]
	}
}
