package index

import (
	"bytes"
	"encoding/binary"
	"fmt"

	bolt "go.etcd.io/bbolt"

	"github.com/memidx/memidx/internal/lexicon"
	"github.com/memidx/memidx/internal/lineage"
)

// Dead docs. A session that is read again gets a new doc; its old doc's
// postings stay in their segment, masked, until a merge drops them. The
// tiered merge leaves segments past maxMergeInput alone, so a full
// rebuild used to leave a whole dead copy of the lexicon behind, for good
// (six rebuilds of the 2k archive: 74 MB of lexicon, 16 MB of it live).
// Now each segment keeps its census (its docs and their key counts, key
// censusValue of its bucket), each doc that dies is noted, and a segment
// that is half dead is rewritten alone.
//
// The notes (bucket <mode>\x00dead, a 4-byte big-endian doc per key, no
// value) only decide when to rewrite: a rewrite keeps exactly the docs
// that records name (liveDocs), so a wrong or lost note costs at most a
// rewrite too early or too late, never a posting.

var censusValue = []byte("d")

// deadShare is the dead part of a segment that gets it rewritten: at most
// about half of the lexicon is then ever dead.
const deadShare = 0.5

// sweepDead is false only in tests that make a lexicon as older
// versions left it.
var sweepDead = true

func deadBucket(mode lineage.Mode) []byte { return lexKey(mode, "dead") }

func docKey(doc uint32) []byte { return binary.BigEndian.AppendUint32(nil, doc) }

// noteDead notes that the doc of the record stored under key, if any, is
// dead unless it is keep (a racy re-verification keeps its doc).
func noteDead(tx *bolt.Tx, key, stored []byte, keep uint32) error {
	if stored == nil {
		return nil
	}
	doc, _, ok := storedBuild(key, stored)
	if !ok || doc == 0 || doc == keep {
		return nil
	}
	lb := tx.Bucket(lexiconBucket)
	i := bytes.IndexByte(key, 0)
	if lb == nil || i <= 0 {
		return nil
	}
	name := deadBucket(lineage.Mode(key[:i]))
	db := lb.Bucket(name)
	if db == nil {
		// A plain value in its place (damage) goes: notes only decide
		// when to rewrite.
		if err := lb.Delete(name); err != nil {
			return err
		}
		var err error
		if db, err = lb.CreateBucket(name); err != nil {
			return err
		}
	}
	return db.Put(docKey(doc), nil)
}

// putCensus stores the census of the segment under key.
func putCensus(lb *bolt.Bucket, key []byte, c lexicon.Census) error {
	b := lb.Bucket(key)
	if b == nil {
		return nil
	}
	enc, err := c.Encode()
	if err != nil {
		return err
	}
	return b.Put(censusValue, enc)
}

// censusOf returns the census of the segment under key, and whether it
// had to be counted (a segment written before censuses, or a damaged
// census): the caller then stores it.
func censusOf(lb *bolt.Bucket, key []byte) (c lexicon.Census, counted bool, err error) {
	if b := lb.Bucket(key); b != nil {
		if v := b.Get(censusValue); v != nil {
			if c, err := lexicon.DecodeCensus(v); err == nil {
				return c, false, nil
			}
		}
	}
	seg, err := lexicon.Open(segmentAt(lb, key))
	if err != nil {
		return nil, false, err
	}
	c, err = seg.Census()
	return c, true, err
}

// halfDead returns the segments of keys that are at least deadShare dead,
// counting (and storing) the censuses that are missing. A counted
// segment's docs are checked against the records themselves (live, read
// once), since its docs may have died before any was noted.
func halfDead(lb *bolt.Bucket, mode lineage.Mode, keys [][]byte, live func() docSet) ([][]byte, error) {
	notes := loadNotes(lb, mode)
	var pick [][]byte
	for _, k := range keys {
		if len(notes) == 0 && hasCensus(lb, k) {
			continue // nothing died since its census: nothing to weigh
		}
		c, counted, err := censusOf(lb, k)
		if err != nil {
			return nil, fmt.Errorf("%w: lexicon: %v", ErrLexiconDamaged, err)
		}
		if counted {
			if err := putCensus(lb, k, c); err != nil {
				return nil, err
			}
		}
		var dead uint64
		for _, d := range c {
			_, isDead := notes[d.Doc]
			if counted && !isDead {
				isDead = !live().has(d.Doc)
			}
			if isDead {
				dead += uint64(d.Keys)
			}
		}
		if total := c.Total(); total > 0 && float64(dead) >= deadShare*float64(total) {
			pick = append(pick, k)
		}
	}
	return pick, nil
}

func hasCensus(lb *bolt.Bucket, key []byte) bool {
	b := lb.Bucket(key)
	return b != nil && b.Get(censusValue) != nil
}

// loadNotes reads mode's dead-doc notes (nil when there are none).
func loadNotes(lb *bolt.Bucket, mode lineage.Mode) map[uint32]struct{} {
	b := lb.Bucket(deadBucket(mode))
	if b == nil {
		return nil
	}
	var notes map[uint32]struct{}
	c := b.Cursor()
	for k, _ := c.First(); k != nil; k, _ = c.Next() {
		if len(k) != 4 {
			continue // damage: a note only ever hastens a rewrite
		}
		if notes == nil {
			notes = map[uint32]struct{}{}
		}
		notes[binary.BigEndian.Uint32(k)] = struct{}{}
	}
	return notes
}

// forgetNotes drops the notes of the docs in a merge's inputs: those it
// dropped, and any kept one, whose note was wrong (a kept doc is live).
func forgetNotes(lb *bolt.Bucket, mode lineage.Mode, inputs []lexicon.Census) error {
	notes := lb.Bucket(deadBucket(mode))
	if notes == nil {
		return nil
	}
	for _, c := range inputs {
		for _, d := range c {
			if err := notes.Delete(docKey(d.Doc)); err != nil {
				return err
			}
		}
	}
	return nil
}
