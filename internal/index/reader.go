package index

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"

	bolt "go.etcd.io/bbolt"

	"github.com/memidx/memidx/internal/blocksum"
	"github.com/memidx/memidx/internal/coldvocab"
	"github.com/memidx/memidx/internal/hotbm25"
	"github.com/memidx/memidx/internal/indexfile"
	"github.com/memidx/memidx/internal/lineage"
)

// ErrNoData is returned for a record whose tier data is missing or of
// another version: another process removed or rewrote the session after
// the record was read.
var ErrNoData = errors.New("index: tier data missing or rewritten")

// ErrDamaged is returned for tier data whose checksums no longer match the
// record it was written with, while that record is unchanged: damage, not
// a rewrite by another process.
var ErrDamaged = errors.New("index: tier data damaged")

// sameData checks that tier data is the data rec was written with. When it
// is not, the record stored now tells a rewrite by another process (a new
// record: ErrNoData) from damage to the data's checksums (the same record:
// ErrDamaged).
func (r *Reader) sameData(rec *Record, values ...[]byte) error {
	st, ok := blocksum.Stamp(values...)
	if !ok || st == rec.DataStamp {
		return nil // a value of the wrong shape fails when it is opened
	}
	if b := r.tx.Bucket(recordsBucket); b != nil {
		key := recordKey(r.mode, rec.Path)
		if _, stamp, ok := storedBuild(key, b.Get(key)); ok && stamp == rec.DataStamp {
			return fmt.Errorf("%s: %w", rec.Path, ErrDamaged)
		}
	}
	return fmt.Errorf("%s: %w", rec.Path, ErrNoData)
}

// Reader reads tier data inside one read transaction. Everything it returns
// is valid only until the transaction ends.
type Reader struct {
	tx   *bolt.Tx
	mode lineage.Mode
	// unchanged: the file is at the commit a refresh read its records
	// at, and nothing was written since, so every one of them is current.
	unchanged bool
	// ix keeps the verified blocks of the commit read (seen.go).
	ix           *Index
	at           commit
	atRead, atOK bool
	// hot is the hot bucket once Shard looked it up (hotRead), and key a
	// record key's buffer: a common term opens every hot shard, and each
	// open made both anew.
	hot     *bolt.Bucket
	hotRead bool
	key     []byte
}

// View runs fn with a Reader over the current index file. With no index
// file yet, fn gets a Reader that finds nothing.
func (ix *Index) View(ctx context.Context, mode lineage.Mode, fn func(*Reader) error) error {
	return ix.ViewAfter(ctx, mode, nil, fn)
}

// ViewAfter is View for the search that follows rep's refresh: when the
// file is still at the commit the refresh read its records at, and the
// refresh wrote nothing, the Reader knows them all current and checks no
// record again (Current). A nil rep trusts nothing.
func (ix *Index) ViewAfter(ctx context.Context, mode lineage.Mode, rep *Report, fn func(*Reader) error) error {
	err := ix.store.View(ctx, func(tx *bolt.Tx) error {
		rd := &Reader{tx: tx, mode: mode, ix: ix}
		if rep != nil && rep.readAtKnown && !rep.wrote {
			at, ok := rd.commit()
			rd.unchanged = ok && at == rep.readAt
		}
		return fn(rd)
	})
	if errors.Is(err, indexfile.ErrMissing) {
		return fn(&Reader{mode: mode})
	}
	return err
}

// whole completes rec when it is a partial record (see Preload), or
// answers ErrNoData when its stored record is missing, damaged or of
// another build: its tier data is not answered with half a record (an
// empty session id), and the caller's Fail/Forget has it rebuilt.
func (r *Reader) whole(rec *Record) error {
	complete(r.tx, r.mode, rec)
	if rec.partial {
		return fmt.Errorf("%s: %w", rec.Path, ErrNoData)
	}
	return nil
}

// Shard opens the hot shard of rec.
func (r *Reader) Shard(rec *Record) (hotbm25.Shard, error) {
	if r.tx == nil || rec.Tier != Hot {
		return hotbm25.Shard{}, ErrNoData
	}
	if !r.hotRead {
		r.hot, r.hotRead = r.tx.Bucket(hotBucket), true
	}
	if r.hot == nil {
		return hotbm25.Shard{}, ErrNoData
	}
	if err := r.whole(rec); err != nil {
		return hotbm25.Shard{}, err
	}
	r.key = appendRecordKey(r.key[:0], r.mode, rec.Path)
	key := r.key // shardSeen copies what it keeps
	b := r.hot.Bucket(key)
	if b == nil {
		return hotbm25.Shard{}, ErrNoData
	}
	dict, cols, ents := shardValues(b)
	if err := r.sameData(rec, dict, cols, ents); err != nil {
		return hotbm25.Shard{}, err
	}
	s, err := hotbm25.OpenSeen(dict, cols, ents, int(rec.EntryCount), r.shardSeen(key))
	if err != nil {
		return hotbm25.Shard{}, fmt.Errorf("%s: %w", rec.Path, err)
	}
	return s, nil
}

// shardValues reads a shard's three values through one cursor (Get
// makes a cursor each).
func shardValues(b *bolt.Bucket) (dict, cols, ents []byte) {
	c := b.Cursor()
	get := func(key []byte) []byte {
		// A nested bucket under the key reads as nil, as with Get.
		if k, v := c.Seek(key); bytes.Equal(k, key) {
			return v
		}
		return nil
	}
	return get(keyDict), get(keyCols), get(keyEnts)
}

// Digest returns the cold digest blob of rec and its in-place view.
func (r *Reader) Digest(rec *Record) ([]byte, coldvocab.View, error) {
	if r.tx == nil || rec.Tier != Cold {
		return nil, coldvocab.View{}, ErrNoData
	}
	if err := r.whole(rec); err != nil {
		return nil, coldvocab.View{}, err
	}
	blob := r.coldBlob(rec, recordKey(r.mode, rec.Path))
	if blob == nil {
		return nil, coldvocab.View{}, ErrNoData
	}
	if err := r.sameData(rec, blob); err != nil {
		return nil, coldvocab.View{}, err
	}
	v, err := coldvocab.Open(blob)
	if err != nil {
		return nil, coldvocab.View{}, fmt.Errorf("%s: %w", rec.Path, err)
	}
	return blob, v, nil
}

// Digests calls fn with the digest of every record in recs (cold records of
// the reader's mode), walking the cold bucket once in key order: far
// cheaper than a lookup per record. A record without data is passed with
// ErrNoData.
func (r *Reader) Digests(recs []*Record, fn func(rec *Record, blob []byte, v coldvocab.View, err error)) {
	if len(recs) == 0 {
		return
	}
	want := make(map[string]*Record, len(recs))
	for _, rec := range recs {
		if rec.Pack != 0 {
			r.packedDigest(rec, fn)
			continue
		}
		want[string(recordKey(r.mode, rec.Path))] = rec
	}
	var cb *bolt.Bucket
	if r.tx != nil {
		cb = r.tx.Bucket(coldBucket)
	}
	if cb != nil {
		prefix := string(r.mode) + "\x00"
		c := cb.Cursor()
		for k, blob := c.Seek([]byte(prefix)); k != nil && len(want) > 0 && strings.HasPrefix(string(k), prefix); k, blob = c.Next() {
			rec, ok := want[string(k)]
			if !ok {
				continue
			}
			delete(want, string(k))
			err := r.whole(rec)
			if err == nil {
				err = r.sameData(rec, blob)
			}
			if err != nil {
				fn(rec, nil, coldvocab.View{}, err)
				continue
			}
			v, err := coldvocab.Open(blob)
			if err != nil {
				err = fmt.Errorf("%s: %w", rec.Path, err)
			}
			fn(rec, blob, v, err)
		}
	}
	for _, rec := range want {
		fn(rec, nil, coldvocab.View{}, ErrNoData)
	}
}

// coldBlob is rec's digest under key: in its pack, or its own value.
func (r *Reader) coldBlob(rec *Record, key []byte) []byte {
	if rec.Pack != 0 {
		return packedDigest(r.tx, r.mode, rec.Pack, key)
	}
	if cb := r.tx.Bucket(coldBucket); cb != nil {
		return cb.Get(key)
	}
	return nil
}

// packedDigest calls fn with the digest of rec, a packed one, as Digests
// does.
func (r *Reader) packedDigest(rec *Record, fn func(rec *Record, blob []byte, v coldvocab.View, err error)) {
	blob, v, err := r.Digest(rec)
	fn(rec, blob, v, err)
}

// Records returns every record of the reader's mode, in key order.
func (r *Reader) Records() ([]*Record, error) {
	if r.tx == nil {
		return nil, nil
	}
	var out []*Record
	eachRecordShared(r.tx, r.mode, true, func(_ []byte, rec *Record, err error) {
		if err == nil {
			out = append(out, rec)
		}
	})
	return out, nil
}

// Forget removes the records (and whatever tier data they have) of sessions
// whose data turned out to be missing or damaged, so that the next refresh
// rebuilds them from source. Best effort: a busy or unwritable index is left
// as it is. A file that turns out damaged where the removal writes (a page
// no read had touched) is dropped whole, as ResetIfDamaged drops it:
// otherwise the records would stay, their data unreadable, call after call.
// It reports whether it removed any (or the file).
func (ix *Index) Forget(ctx context.Context, mode lineage.Mode, recs []*Record) bool {
	if len(recs) == 0 {
		return false
	}
	err := ix.store.Update(ctx, func(tx *bolt.Tx) error {
		for _, rec := range recs {
			if err := deleteSession(tx, recordKey(mode, rec.Path)); err != nil {
				return err
			}
		}
		return nil
	})
	return err == nil || ix.ResetIfDamaged(err)
}

// ResetIfDamaged drops an index file that a read found damaged; the next
// refresh rebuilds it from source. It reports whether the file is gone.
func (ix *Index) ResetIfDamaged(err error) bool {
	return errors.Is(err, indexfile.ErrCorrupt) && ix.store.Reset() == nil
}

// Compact rewrites the index file with each bucket's pages together
// (indexfile.Store.Compact). After a refresh that rebuilt much of the
// archive, a recall then maps fewer pages and finds them sooner.
func (ix *Index) Compact(ctx context.Context) error { return ix.store.Compact(ctx) }
