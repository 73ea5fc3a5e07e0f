package index

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strings"

	bolt "go.etcd.io/bbolt"

	"github.com/memidx/memidx/coldvocab"
	"github.com/memidx/memidx/lexicon"
	"github.com/memidx/memidx/lineage"
)

// The archive lexicon (package lexicon) lives in one bucket:
//
//	<mode>\x00s<seq, 8 bytes big-endian>  a sealed segment of that mode
//	<mode>\x00epoch                        uvarint, bumped by every merge
//
// The bucket's sequence numbers both the segments and the cold records'
// docs, so a doc is never reused. A cold record is in the lexicon under
// its Doc from the transaction that writes it; a rebuilt or removed
// session's old doc is dead (no record names it) until a merge drops it.
var lexiconBucket = []byte("lexicon")

// maxLexiconSegments bounds the segments a query reads; past it a write
// merges them into one.
const maxLexiconSegments = 16

func lexKey(mode lineage.Mode, name string) []byte {
	return append(append([]byte(mode), 0), name...)
}

func segmentKey(mode lineage.Mode, seq uint64) []byte {
	return binary.BigEndian.AppendUint64(lexKey(mode, "s"), seq)
}

// addToLexicon numbers every cold build of batch (setting its record's
// Doc) and writes their digests' keys as one new segment.
func addToLexicon(tx *bolt.Tx, mode lineage.Mode, batch []*built) error {
	lb, err := tx.CreateBucketIfNotExists(lexiconBucket)
	if err != nil {
		return err
	}
	seg := lexicon.NewBuilder()
	n := 0
	for _, b := range batch {
		if b.cold == nil {
			continue
		}
		doc, err := lb.NextSequence()
		if err != nil {
			return err
		}
		if doc > math.MaxUint32 {
			return errors.New("index: lexicon doc numbers exhausted; remove the index directory to rebuild it")
		}
		b.rec.Doc = uint32(doc)
		if err := eachDigestKey(b.cold, func(k []byte) { seg.AddKey(b.rec.Doc, k) }); err != nil {
			return err
		}
		n++
	}
	if n == 0 {
		return nil
	}
	sealed, err := seg.Build()
	if err != nil {
		return err
	}
	seq, err := lb.NextSequence()
	if err != nil {
		return err
	}
	return lb.Put(segmentKey(mode, seq), sealed)
}

// eachDigestKey calls fn with what the lexicon keeps of a cold digest:
// every term of its vocabulary and every structural filter key of its
// addresses, exactly as persisted (a capped digest's prefixes included),
// so that the lexicon and the digest always agree. The keys are views into
// the blob.
func eachDigestKey(blob []byte, fn func(key []byte)) error {
	v, err := coldvocab.Open(blob)
	if err != nil {
		return err
	}
	for i := range v.Vocabulary.Len() {
		fn(v.Vocabulary.Term(i))
	}
	for i := range v.Addresses.Len() {
		if k := v.Addresses.Term(i); len(k) > 0 && k[0] == 0 {
			fn(k)
		}
	}
	return v.Err()
}

// segmentKeys returns the keys of mode's segments in write order.
func segmentKeys(lb *bolt.Bucket, mode lineage.Mode) [][]byte {
	var keys [][]byte
	prefix := lexKey(mode, "s")
	c := lb.Cursor()
	for k, _ := c.Seek(prefix); k != nil && strings.HasPrefix(string(k), string(prefix)); k, _ = c.Next() {
		keys = append(keys, append([]byte(nil), k...))
	}
	return keys
}

// mergeLexicon folds mode's segments into one when there are more than
// maxLexiconSegments, or with force whenever there is one (to drop the
// docs of removed sessions), keeping only the docs of the cold records
// stored now, and bumps the epoch so that a reader whose records predate
// the merge does not trust the lexicon.
func mergeLexicon(tx *bolt.Tx, mode lineage.Mode, force bool) error {
	lb := tx.Bucket(lexiconBucket)
	if lb == nil {
		return nil
	}
	keys := segmentKeys(lb, mode)
	if len(keys) <= maxLexiconSegments && (!force || len(keys) == 0) {
		return nil
	}
	live, err := liveDocs(tx, mode)
	if err != nil {
		return err
	}
	segs := make([]lexicon.Segment, len(keys))
	for i, k := range keys {
		if segs[i], err = lexicon.Open(lb.Get(k)); err != nil {
			return fmt.Errorf("%w: lexicon: %v", errLexiconDamaged, err)
		}
	}
	merged, err := lexicon.Merge(segs, func(d uint32) bool { _, ok := live[d]; return ok })
	if err != nil {
		return fmt.Errorf("%w: lexicon: %v", errLexiconDamaged, err)
	}
	for _, k := range keys {
		if err := lb.Delete(k); err != nil {
			return err
		}
	}
	seq, err := lb.NextSequence()
	if err != nil {
		return err
	}
	if err := lb.Put(segmentKey(mode, seq), merged); err != nil {
		return err
	}
	epoch, _ := binary.Uvarint(lb.Get(lexKey(mode, "epoch")))
	return lb.Put(lexKey(mode, "epoch"), binary.AppendUvarint(nil, epoch+1))
}

var errLexiconDamaged = errors.New("index: lexicon damaged")

// liveDocs are the docs of mode's cold records.
func liveDocs(tx *bolt.Tx, mode lineage.Mode) (map[uint32]struct{}, error) {
	live := map[uint32]struct{}{}
	b := tx.Bucket(recordsBucket)
	if b == nil {
		return live, nil
	}
	prefix := []byte(string(mode) + "\x00")
	c := b.Cursor()
	for k, v := c.Seek(prefix); k != nil && strings.HasPrefix(string(k), string(prefix)); k, v = c.Next() {
		if r, err := decodeRecord(k, v); err == nil && r.Tier == Cold && r.Doc != 0 {
			live[r.Doc] = struct{}{}
		}
	}
	return live, nil
}

// lexiconEpoch reads mode's merge epoch.
func lexiconEpoch(tx *bolt.Tx, mode lineage.Mode) uint64 {
	lb := tx.Bucket(lexiconBucket)
	if lb == nil {
		return 0
	}
	e, _ := binary.Uvarint(lb.Get(lexKey(mode, "epoch")))
	return e
}

// Lexicon is the archive lexicon of one mode as one read transaction sees
// it. Valid only inside that transaction.
type Lexicon struct {
	// Epoch counts the merges so far: a lexicon of another epoch than the
	// records a caller holds may have dropped their docs.
	Epoch uint64
	segs  []lexicon.Segment
}

// Lexicon opens the reader's mode's lexicon; nil when the index has none.
func (r *Reader) Lexicon() (*Lexicon, error) {
	if r.tx == nil {
		return nil, nil
	}
	lb := r.tx.Bucket(lexiconBucket)
	if lb == nil {
		return nil, nil
	}
	l := &Lexicon{Epoch: lexiconEpoch(r.tx, r.mode)}
	for _, k := range segmentKeys(lb, r.mode) {
		s, err := lexicon.Open(lb.Get(k))
		if err != nil {
			return nil, fmt.Errorf("%w: %v", errLexiconDamaged, err)
		}
		l.segs = append(l.segs, s)
	}
	return l, nil
}

// Docs appends the docs, live or dead, that hold key to dst (unsorted
// across segments).
func (l *Lexicon) Docs(dst []uint32, key string) ([]uint32, error) {
	for _, s := range l.segs {
		var err error
		if dst, err = s.AppendDocs(dst, key); err != nil {
			return dst, fmt.Errorf("%w: %v", errLexiconDamaged, err)
		}
	}
	return dst, nil
}

// Current reports whether rec is still the record stored for its session:
// a session that the lexicon says can match is checked before it is
// answered from, since another process may have rewritten it after rec was
// read (its digest then has another stamp and is read from source).
func (r *Reader) Current(rec *Record) bool {
	if r.tx == nil {
		return false
	}
	b := r.tx.Bucket(recordsBucket)
	if b == nil {
		return false
	}
	key := recordKey(r.mode, rec.Path)
	cur, err := decodeRecord(key, b.Get(key))
	return err == nil && cur.Doc == rec.Doc && cur.DataStamp == rec.DataStamp
}

// CompactLexicon merges mode's lexicon segments into one when there are
// several: a batch rebuild ends with it, so that queries read one segment.
func (ix *Index) CompactLexicon(ctx context.Context, mode lineage.Mode) error {
	several := false
	err := ix.store.View(ctx, func(tx *bolt.Tx) error {
		if lb := tx.Bucket(lexiconBucket); lb != nil {
			several = len(segmentKeys(lb, mode)) > 1
		}
		return nil
	})
	if err != nil || !several {
		return nil // nothing to do, or nothing this call can do
	}
	return ix.store.Update(ctx, func(tx *bolt.Tx) error { return mergeLexicon(tx, mode, true) })
}
