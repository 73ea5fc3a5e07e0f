package index

import (
	"bytes"
	"context"
	"errors"

	bolt "go.etcd.io/bbolt"

	"github.com/memidx/memidx/internal/blocksum"
	"github.com/memidx/memidx/internal/indexfile"
)

// BucketUsage is where the bytes of one top-level bucket of the index
// file go: its keys, its values (of which ChecksumBytes are the block
// checksums of sealed values), and the bbolt pages that hold them
// (PageBytes allocated, of which InuseBytes hold keys, values and page
// and bucket headers; the rest is slack). A bucket small enough to be
// inline lives in its parent's page: its PageBytes are 0.
type BucketUsage struct {
	Name          string `json:"name"`
	Values        int    `json:"values"`
	Buckets       int    `json:"buckets"`
	KeyBytes      int64  `json:"keyBytes"`
	ValueBytes    int64  `json:"valueBytes"`
	ChecksumBytes int64  `json:"checksumBytes"`
	PageBytes     int64  `json:"pageBytes"`
	InuseBytes    int64  `json:"inuseBytes"`
}

// Usage is where the bytes of the index file go: by top-level bucket
// (records, manifest, hot shards, cold digests with their packs, lexicon,
// roster, meta); the rest of
// the file's used size (UsedBytes: its pages up to the highest in use) is
// free pages, the freelist and the meta pages.
type Usage struct {
	Buckets   []BucketUsage `json:"buckets"`
	UsedBytes int64         `json:"usedBytes"`
	PageSize  int           `json:"pageSize"`
}

// Usage reads the whole index file once and says where its bytes go. A
// missing file has none.
func (ix *Index) Usage(ctx context.Context) (*Usage, error) {
	u := &Usage{Buckets: []BucketUsage{}}
	err := ix.store.View(ctx, func(tx *bolt.Tx) error {
		u.UsedBytes, u.PageSize = tx.Size(), tx.DB().Info().PageSize
		var packs *BucketUsage
		err := tx.ForEach(func(name []byte, b *bolt.Bucket) error {
			bu := BucketUsage{Name: string(name)}
			if bytes.Equal(name, packBucket) {
				packs = &bu
				sumPacks(b, &bu)
			} else {
				sumBucket(b, &bu)
			}
			s := b.Stats()
			bu.PageBytes = int64(s.BranchAlloc + s.LeafAlloc)
			bu.InuseBytes = int64(s.BranchInuse + s.LeafInuse + s.InlineBucketInuse)
			if packs != &bu {
				u.Buckets = append(u.Buckets, bu)
			}
			return nil
		})
		u.addPacks(packs)
		return err
	})
	if errors.Is(err, indexfile.ErrMissing) {
		return u, nil
	}
	return u, err
}

// sumBucket adds the keys and values under b, nested buckets included.
func sumBucket(b *bolt.Bucket, u *BucketUsage) {
	c := b.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		u.KeyBytes += int64(len(k))
		if v == nil {
			u.Buckets++
			sumBucket(b.Bucket(k), u)
			continue
		}
		u.Values++
		u.ValueBytes += int64(len(v))
		u.ChecksumBytes += sealOverhead(v)
	}
}

// sumPacks adds the digests in the cold packs under b as values, each
// with its checksums; a pack's key and member list count as keys.
func sumPacks(b *bolt.Bucket, u *BucketUsage) {
	c := b.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		members, err := decodePack(v)
		if err != nil {
			u.KeyBytes += int64(len(k) + len(v))
			continue
		}
		u.KeyBytes += int64(len(k) + len(v))
		for _, m := range members {
			u.Values++
			u.ValueBytes += int64(len(m.blob))
			u.KeyBytes -= int64(len(m.blob))
			u.ChecksumBytes += sealOverhead(m.blob)
		}
	}
}

// addPacks counts the cold packs with the cold digests: where a digest
// lies is no concern of the reader of the table.
func (u *Usage) addPacks(p *BucketUsage) {
	if p == nil {
		return
	}
	for i := range u.Buckets {
		if c := &u.Buckets[i]; c.Name == string(coldBucket) {
			c.Values += p.Values
			c.KeyBytes += p.KeyBytes
			c.ValueBytes += p.ValueBytes
			c.ChecksumBytes += p.ChecksumBytes
			c.PageBytes += p.PageBytes
			c.InuseBytes += p.InuseBytes
			return
		}
	}
	p.Name = string(coldBucket)
	u.Buckets = append(u.Buckets, *p)
}

// sealOverhead is what blocksum added to v, or 0 when v is not a sealed
// value (its length head and checksums do not agree with it).
func sealOverhead(v []byte) int64 {
	data, err := blocksum.Unseal(v)
	if err != nil {
		return 0
	}
	return int64(len(v) - len(data))
}
