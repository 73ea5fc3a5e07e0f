package index

import (
	"context"
	"errors"

	bolt "go.etcd.io/bbolt"

	"github.com/memidx/memidx/bucket"
	"github.com/memidx/memidx/lineage"
)

// The bbolt layout of the index file: the records bucket keys each
// session's record by mode and path hash (recordKey); the hot and cold
// buckets hold its tier data under the same key; the lexicon bucket holds
// each mode's segments (lexicon.go). What refresh reads and writes of it
// goes through the functions below.

var (
	recordsBucket = []byte("records")
	hotBucket     = []byte("hot")
	coldBucket    = []byte("cold")
	keyDict       = []byte("d")
	keyCols       = []byte("c")
	keyEnts       = []byte("e")
)

// loadRecords reads every record of mode. Records that do not decode, are
// of another version or whose key does not match their source come back in
// bad, to be removed.
func (ix *Index) loadRecords(ctx context.Context, mode lineage.Mode) (map[string]*Record, [][]byte, error) {
	out, bad, _, err := ix.loadRecordsAt(ctx, mode)
	return out, bad, err
}

// loadRecordsAt is loadRecords that also reads, in the same transaction,
// the lexicon epoch the records belong to.
func (ix *Index) loadRecordsAt(ctx context.Context, mode lineage.Mode) (map[string]*Record, [][]byte, LexiconEpoch, error) {
	out := map[string]*Record{}
	var bad [][]byte
	var epoch LexiconEpoch
	err := ix.store.View(ctx, func(tx *bolt.Tx) error {
		epoch = lexiconEpoch(tx, mode)
		eachRecord(tx, mode, func(k []byte, r *Record, err error) {
			if err != nil {
				bad = append(bad, append([]byte(nil), k...))
				return
			}
			out[r.Path] = r
		})
		return nil
	})
	if errors.Is(err, bucket.ErrMissing) {
		return out, nil, LexiconEpoch{}, nil
	}
	return out, bad, epoch, err
}

// writeBuilt stores records and their tier data; a tier move writes the new
// tier and drops the old one in the same transaction.
func writeBuilt(tx *bolt.Tx, mode lineage.Mode, batch []*built) error {
	// Cold builds get their lexicon docs before their records are encoded.
	if err := addToLexicon(tx, mode, batch); err != nil {
		return err
	}
	recs, err := tx.CreateBucketIfNotExists(recordsBucket)
	if err != nil {
		return err
	}
	hot, err := tx.CreateBucketIfNotExists(hotBucket)
	if err != nil {
		return err
	}
	cold, err := tx.CreateBucketIfNotExists(coldBucket)
	if err != nil {
		return err
	}
	for _, b := range batch {
		key := recordKey(mode, b.rec.Path)
		if b.hot == nil && b.cold == nil {
			// A re-verified (racy) record carries no data: it may only
			// refresh a record that still describes the same source and
			// tier. Another process may have moved or rebuilt the session
			// meanwhile; its record and data stand. Its lexicon doc must
			// match too: the same bytes rebuilt elsewhere got a new doc,
			// and a merge since may have dropped this one.
			cur, err := decodeRecord(key, recs.Get(key))
			if err != nil || cur.Tier != b.rec.Tier || cur.SourceHash != b.rec.SourceHash || cur.Policy != b.rec.Policy || cur.DataStamp != b.rec.DataStamp || cur.Doc != b.rec.Doc {
				continue
			}
		}
		if b.hot != nil {
			if hot.Bucket(key) != nil {
				if err := hot.DeleteBucket(key); err != nil {
					return err
				}
			}
			hb, err := hot.CreateBucket(key)
			if err != nil {
				return err
			}
			hb.FillPercent = 1
			for _, kv := range []struct{ k, v []byte }{{keyDict, b.hot.Dict}, {keyCols, b.hot.Cols}, {keyEnts, b.hot.Ents}} {
				if err := hb.Put(kv.k, kv.v); err != nil {
					return err
				}
			}
			if err := cold.Delete(key); err != nil {
				return err
			}
		}
		if b.cold != nil {
			if err := cold.Put(key, b.cold); err != nil {
				return err
			}
			if hot.Bucket(key) != nil {
				if err := hot.DeleteBucket(key); err != nil {
					return err
				}
			}
		}
		enc, err := encodeRecord(b.rec)
		if err != nil {
			return err
		}
		if err := recs.Put(key, enc); err != nil {
			return err
		}
	}
	return nil
}

func deleteSession(tx *bolt.Tx, key []byte) error {
	if b := tx.Bucket(recordsBucket); b != nil {
		if err := b.Delete(key); err != nil {
			return err
		}
	}
	if b := tx.Bucket(hotBucket); b != nil && b.Bucket(key) != nil {
		if err := b.DeleteBucket(key); err != nil {
			return err
		}
	}
	if b := tx.Bucket(coldBucket); b != nil {
		if err := b.Delete(key); err != nil {
			return err
		}
	}
	return nil
}
