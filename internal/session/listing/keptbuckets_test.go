package listing_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/internal/memtest"
	"github.com/memidx/memidx/internal/session/listing"
	"github.com/memidx/memidx/internal/session/locate"
)

// keptListingBytes is the fewest bytes of tries listings of a sessions
// root of n buckets (one file each) through a warm ListCache.
func keptListingBytes(t *testing.T, n, tries int) uint64 {
	root := t.TempDir()
	for i := range n {
		dir := filepath.Join(root, fmt.Sprintf("--b%03d--", i))
		require.NoError(t, os.MkdirAll(dir, 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "2026-01-01T00-00-00-000Z_s.jsonl"), []byte("{}\n"), 0o644))
	}
	c := listing.NewListCache()
	t.Cleanup(func() { c.Close() })
	dirs := locate.Dirs{SessionsRoot: root}
	list := func() {
		v := c.Begin()
		require.NotNil(t, v)
		refs, err := v.ListSessions(dirs, listing.ListOptions{})
		require.NoError(t, err)
		require.Len(t, refs, n)
	}
	list() // listed and kept
	return memtest.FewestBytes(tries, list)
}

// A listing a server takes from kept bucket listings costs a few small
// values a bucket, not a lister each (some 200 bytes): a 100k archive's
// global call takes every bucket's.
func TestKeptBucketsCostLittleEach(t *testing.T) {
	if !listing.WatchSupported {
		t.Skip("no usable watcher here")
	}
	few, many := keptListingBytes(t, 8, 5), keptListingBytes(t, 72, 5)
	perBucket := float64(int64(many)-int64(few)) / 64
	t.Logf("%d bytes for 8 buckets, %d for 72: %.0f a bucket", few, many, perBucket)
	assert.Less(t, perBucket, 240.0)
}
