package index

import (
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
// (records, hot shards, cold digests, lexicon, roster, meta); the rest of
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
		return tx.ForEach(func(name []byte, b *bolt.Bucket) error {
			bu := BucketUsage{Name: string(name)}
			sumBucket(b, &bu)
			s := b.Stats()
			bu.PageBytes = int64(s.BranchAlloc + s.LeafAlloc)
			bu.InuseBytes = int64(s.BranchInuse + s.LeafInuse + s.InlineBucketInuse)
			u.Buckets = append(u.Buckets, bu)
			return nil
		})
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

// sealOverhead is what blocksum added to v, or 0 when v is not a sealed
// value (its length head and checksums do not agree with it).
func sealOverhead(v []byte) int64 {
	data, err := blocksum.Unseal(v)
	if err != nil {
		return 0
	}
	return int64(len(v) - len(data))
}
