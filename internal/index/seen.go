package index

import (
	"sync"

	"github.com/memidx/memidx/internal/blocksum"
)

// seenMemo remembers, for one commit of the index file, which blocks of
// the hot shards and lexicon segments reads have verified, so that a
// long-lived Index checks each block once per commit rather than once per
// call (a common term's lookups touch every hot shard, and each shard's
// columns are verified whole). Within a commit the stored bytes are the
// same at every read; only the bits are kept, never the bytes (they live
// in a map that may be unmapped between reads).
type seenMemo struct {
	mu     sync.Mutex
	at     commit
	shards map[string]*[3]blocksum.Seen
	segs   map[string]*blocksum.Seen
}

// move moves the memo to commit c, forgetting another commit's bits.
func (m *seenMemo) move(c commit) {
	if m.at != c || m.shards == nil {
		m.at = c
		m.shards = map[string]*[3]blocksum.Seen{}
		m.segs = map[string]*blocksum.Seen{}
	}
}

// shard returns the bits of the hot shard stored under key at commit c.
func (m *seenMemo) shard(c commit, key []byte) *[3]blocksum.Seen {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.move(c)
	return bitsOf(m.shards, key)
}

// seg returns the bits of the lexicon segment stored under key at commit c.
func (m *seenMemo) seg(c commit, key []byte) *blocksum.Seen {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.move(c)
	return bitsOf(m.segs, key)
}

// bitsOf returns the bits under key, made on first use.
func bitsOf[T any](bits map[string]*T, key []byte) *T {
	b := bits[string(key)]
	if b == nil {
		b = new(T)
		bits[string(key)] = b
	}
	return b
}

// commit is the commit r reads, once per Reader; ok is false without an
// Index to remember for, or when the file cannot be stat-ed.
func (r *Reader) commit() (commit, bool) {
	if r.ix == nil || r.tx == nil {
		return commit{}, false
	}
	if !r.atRead {
		r.atRead = true
		r.at, r.atOK = r.ix.commitOf(r.tx)
	}
	return r.at, r.atOK
}

// shardSeen is the memo of the hot shard under key, or nil.
func (r *Reader) shardSeen(key []byte) *[3]blocksum.Seen {
	if c, ok := r.commit(); ok {
		return r.ix.seen.shard(c, key)
	}
	return nil
}

// segSeen is the memo of the lexicon segment under key, or nil.
func (r *Reader) segSeen(key []byte) *blocksum.Seen {
	if c, ok := r.commit(); ok {
		return r.ix.seen.seg(c, key)
	}
	return nil
}
