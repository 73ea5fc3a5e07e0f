package index

import (
	"bytes"
	"os"
	"path/filepath"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/memidx/memidx/internal/coldvocab"
	"github.com/memidx/memidx/internal/lexicon"
)

// Plaintext returns what the index file in dir holds, as text a grep can
// search: the file's bytes, then every word stored packed (the terms of
// a digest's vocabulary, deflated, where a digest holds one; the entry ids
// its addresses keep packed, as hex; the keys of
// each lexicon segment, front-coded), one a line. A check that a word is not persisted (a
// thinking term, a file that is not a session) greps this, not the raw
// file: packed values would hide the word from it.
func Plaintext(dir string) ([]byte, error) {
	path := filepath.Join(dir, "index.db")
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true, Timeout: 10 * time.Second})
	if err != nil {
		return nil, err
	}
	defer db.Close()
	out := bytes.NewBuffer(raw)
	// The file's bytes end anywhere: the unpacked words start on a line
	// of their own, or the first would run into the file's last bytes.
	out.WriteByte('\n')
	line := func(w []byte) { out.Write(w); out.WriteByte('\n') }
	err = db.View(func(tx *bolt.Tx) error {
		digest := func(v []byte) {
			if vw, err := coldvocab.Open(v); err == nil {
				for i := 0; i < vw.Vocabulary.Len(); i++ {
					line(vw.Vocabulary.Term(i))
				}
				vw.Addresses.EachPacked(func(v string) { line([]byte(v)) })
			}
		}
		if cb := tx.Bucket(coldBucket); cb != nil {
			err := cb.ForEach(func(_, v []byte) error { digest(v); return nil })
			if err != nil {
				return err
			}
		}
		if pb := tx.Bucket(packBucket); pb != nil {
			err := pb.ForEach(func(_, v []byte) error {
				members, _ := decodePack(v)
				for _, m := range members {
					digest(m.blob)
				}
				return nil
			})
			if err != nil {
				return err
			}
		}
		lb := tx.Bucket(lexiconBucket)
		if lb == nil {
			return nil
		}
		return lb.ForEach(func(k, v []byte) error {
			if v != nil {
				return nil
			}
			if seg, err := lexicon.Open(segmentAt(lb, k)); err == nil {
				return seg.EachKey(func(key []byte) { line(key) })
			}
			return nil
		})
	})
	return out.Bytes(), err
}
