package index

import (
	"bytes"
	"encoding/binary"
	"errors"

	bolt "go.etcd.io/bbolt"

	"github.com/memidx/memidx/internal/lineage"
)

// Cold packs: bbolt puts at least two values on a leaf, so two digests of
// 3.3 KB took two 4 KiB pages each side of a leaf split, a fifth of a
// 100k-session index in slack. A write batch's digests up to
// maxPackedDigest are stored many to a value of the coldpacks bucket, up
// to maxPackBytes each, and a record names its pack (Record.Pack). A
// pack never holds a dead digest: the write that replaces or removes a
// session's digest rewrites its pack without it (or deletes an empty
// one) in the same transaction, so a dropped digest leaves the file as a
// rewritten value does (the write scrubs when the text must go).
//
// A pack's value: uvarint count; per member its record key (uvarint-
// length-prefixed) and its digest's length (uvarint); then the digests,
// in that order. Each digest is sealed on its own (blocksum) and checked
// against its record's DataStamp like an unpacked one.
var packBucket = []byte("coldpacks")

const (
	// maxPackBytes bounds a pack's value: a read of one digest maps at
	// most this much, and a rewrite copies it.
	maxPackBytes = 64 << 10
	// maxPackedDigest is the largest digest packed; a larger one keeps a
	// value of its own, whose page slack is a small part of it.
	maxPackedDigest = 16 << 10
)

var errPackShape = errors.New("cold pack does not decode")

// packKey is the key of pack id of mode.
func packKey(mode lineage.Mode, id uint64) []byte {
	k := append([]byte(string(mode)), 0)
	return binary.BigEndian.AppendUint64(k, id)
}

type packMember struct {
	key, blob []byte
}

// decodePack returns the members of a pack value, in place.
func decodePack(v []byte) ([]packMember, error) {
	d := recordReader{b: v, ok: true}
	n := d.uvarint()
	if !d.ok || n > uint64(len(v)) {
		return nil, errPackShape
	}
	members := make([]packMember, n)
	sizes := make([]uint64, n)
	for i := range members {
		members[i].key = d.field()
		sizes[i] = d.uvarint()
	}
	for i := range members {
		members[i].blob = d.bytes(sizes[i])
	}
	if !d.ok || d.pos != len(v) {
		return nil, errPackShape
	}
	return members, nil
}

func encodePack(members []packMember) []byte {
	n := binary.MaxVarintLen64
	for _, m := range members {
		n += 2*binary.MaxVarintLen64 + len(m.key) + len(m.blob)
	}
	b := binary.AppendUvarint(make([]byte, 0, n), uint64(len(members)))
	for _, m := range members {
		b = appendString(b, string(m.key))
		b = binary.AppendUvarint(b, uint64(len(m.blob)))
	}
	for _, m := range members {
		b = append(b, m.blob...)
	}
	return b
}

// packedDigest returns the digest under key in pack id of mode (nil when
// the pack or the member is not there).
func packedDigest(tx *bolt.Tx, mode lineage.Mode, id uint64, key []byte) []byte {
	pb := tx.Bucket(packBucket)
	if pb == nil {
		return nil
	}
	members, err := decodePack(pb.Get(packKey(mode, id)))
	if err != nil {
		return nil
	}
	for _, m := range members {
		if bytes.Equal(m.key, key) {
			return m.blob
		}
	}
	return nil
}

// unpack removes the digest under key from pack id of mode: the pack is
// rewritten without it, or deleted when nothing else is left in it.
func unpack(tx *bolt.Tx, mode lineage.Mode, id uint64, key []byte) error {
	pb := tx.Bucket(packBucket)
	if id == 0 || pb == nil {
		return nil
	}
	pk := packKey(mode, id)
	members, err := decodePack(pb.Get(pk))
	if err != nil {
		return pb.Delete(pk) // damaged: its sessions fail their reads and are rebuilt
	}
	kept := members[:0]
	for _, m := range members {
		if !bytes.Equal(m.key, key) {
			kept = append(kept, m)
		}
	}
	if len(kept) == len(members) {
		return nil
	}
	if len(kept) == 0 {
		return pb.Delete(pk)
	}
	return pb.Put(pk, encodePack(kept))
}

// packBatch stores the batch's small cold digests in packs and sets their
// records' Pack: first in the last pack written, while it has room (so
// that the few sessions a call rebuilds are packed too), then in new
// ones of two digests or more; again marks the builds a later one of the
// batch replaces (builtAgain). It returns which builds it packed.
func packBatch(tx *bolt.Tx, mode lineage.Mode, batch []*built, again []bool) (map[*built]bool, error) {
	// A target listed twice is built twice: the later build replaces the
	// earlier (again), which is neither packed (a pack never holds a dead
	// digest) nor written (writeBuilt).
	var small []*built
	for i, b := range batch {
		if b.stored != nil && len(b.stored) <= maxPackedDigest && !again[i] {
			small = append(small, b)
		}
	}
	if len(small) == 0 {
		return nil, nil
	}
	pb, err := tx.CreateBucketIfNotExists(packBucket)
	if err != nil {
		return nil, err
	}
	packed := make(map[*built]bool, len(small))
	id, members := lastPack(pb, mode, small)
	for len(small) > 0 {
		size := 0
		for _, m := range members {
			size += len(m.blob)
		}
		n := 0
		for n < len(small) && (size == 0 || size+len(small[n].stored) <= maxPackBytes) {
			size += len(small[n].stored)
			n++
		}
		if n == 0 { // the last pack is full
			id, members = 0, nil
			continue
		}
		if id == 0 && n == 1 {
			break // a pack of one digest gains nothing: it keeps its own value
		}
		if id == 0 {
			if id, err = pb.NextSequence(); err != nil {
				return nil, err
			}
		}
		for _, b := range small[:n] {
			members = append(members, packMember{key: recordKey(mode, b.rec.Path), blob: b.stored})
			b.rec.Pack = id
			packed[b] = true
		}
		if err := pb.Put(packKey(mode, id), encodePack(members)); err != nil {
			return nil, err
		}
		small, id, members = small[n:], 0, nil
	}
	return packed, nil
}

// lastPack is the pack of mode written last, when it is still there and
// decodes (0 otherwise), without the old digests of the sessions of
// adding: their new ones replace them (writeTierData then leaves that
// pack alone for them). Its members are copied: they outlive a Put.
func lastPack(pb *bolt.Bucket, mode lineage.Mode, adding []*built) (uint64, []packMember) {
	id := pb.Sequence()
	if id == 0 {
		return 0, nil
	}
	members, err := decodePack(pb.Get(packKey(mode, id)))
	if err != nil || len(members) == 0 {
		return 0, nil
	}
	replaced := make(map[string]bool, len(adding))
	for _, b := range adding {
		replaced[string(recordKey(mode, b.rec.Path))] = true
	}
	kept := members[:0]
	for _, m := range members {
		if !replaced[string(m.key)] {
			kept = append(kept, packMember{key: bytes.Clone(m.key), blob: bytes.Clone(m.blob)})
		}
	}
	return id, kept
}
