package index

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"

	bolt "go.etcd.io/bbolt"

	"github.com/memidx/memidx/internal/indexfile"
	"github.com/memidx/memidx/internal/lineage"
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
	l, err := ix.loadRecordsAt(ctx, mode)
	return l.stored, l.bad, err
}

// loadRecordsAt is loadRecords that also reads, in the same transaction,
// the lexicon epoch the records belong to. A long-lived host that asks
// again before anything was written to the file (by this process or
// another) gets the records it decoded last time (see recordCache).
func (ix *Index) loadRecordsAt(ctx context.Context, mode lineage.Mode) (loaded, error) {
	return ix.loadRecordsKept(ctx, mode, true, false)
}

// loadRecordsKept is loadRecordsAt; unless keep is set, records it
// decodes are not kept yet but marked unkept: the refresh that matches
// them with its targets points them at the targets' paths first
// (keepMatched), so that the kept records hold no copy of the paths
// the host's listing holds anyway. keyed (with keep unset) reads them
// into a gateTable by key, without their paths: a refresh of the whole
// archive gives them the targets' paths (refreshRun.unkeyGate), and the copies
// are never made (11 MB at 100k sessions, which a server's first call
// held beside the listing's paths at its peak).
func (ix *Index) loadRecordsKept(ctx context.Context, mode lineage.Mode, keep, keyed bool) (loaded, error) {
	got, err := ix.loadRecordsOnce(ctx, mode, keep, keyed && !keep)
	if errors.Is(err, errGateKeyed) {
		return ix.loadRecordsOnce(ctx, mode, keep, false)
	}
	return got, err
}

func (ix *Index) loadRecordsOnce(ctx context.Context, mode lineage.Mode, keep, keyed bool) (loaded, error) {
	var got loaded
	err := ix.store.View(ctx, func(tx *bolt.Tx) error {
		at, ok := ix.commitOf(tx)
		if ok {
			if c, hit := ix.decoded.get(mode, at); hit {
				got = c
				return nil
			}
		}
		got = loaded{epoch: lexiconEpoch(tx, mode), at: at, atKnown: ok}
		got.roster, got.hasRoster = readRoster(tx)
		// The records are kept in a list first and the map made at its
		// final size: growing it was a tenth of the walk.
		var recs []*Record
		var tab *gateTable
		if keyed {
			tab = &gateTable{}
		}
		notKeyed := false // a key not in record-key form, or out of order
		got.clean = true
		var key []byte
		prefix := len(mode) + 1
		eachRecordShared(tx, mode, !keyed, func(k []byte, r *Record, err error) {
			switch {
			case err != nil:
				got.bad = append(got.bad, append([]byte(nil), k...))
				return
			case tab != nil:
				if len(k) != prefix+gateSumLen || !tab.add(r, k[prefix:]) {
					notKeyed = true
				}
			default:
				recs = append(recs, r)
				key = appendRecordKey(key[:0], mode, r.Path)
				got.clean = got.clean && bytes.Equal(key, k)
			}
			if r.Doc != 0 {
				got.docs = append(got.docs, r.Doc)
			}
		})
		if notKeyed {
			return errGateKeyed // not record keys: read the paths
		}
		slices.Sort(got.docs)
		if tab != nil {
			tab.seal()
			got.gate = tab
		} else {
			got.stored = make(map[string]*Record, len(recs))
			for _, r := range recs {
				got.stored[r.Path] = r
			}
		}
		indexfile.DropPages(tx) // the records are copies
		switch {
		case ok && keep:
			got = ix.decoded.put(mode, at, got)
		case ok:
			got.unkept = true
		}
		return nil
	})
	if errors.Is(err, indexfile.ErrMissing) {
		return loaded{stored: map[string]*Record{}}, nil
	}
	// Callers append to bad: never into a cached array.
	got.bad = slices.Clip(got.bad)
	return got, err
}

// policyOf is the number of the policy string of tier and mode.
func (ix *Index) policyOf(tier Tier, mode lineage.Mode) policyNum {
	for m := range policyModes {
		for t := range policyTiers {
			if policyModes[m] == mode && policyTiers[t] == tier {
				return ix.policies[m][t]
			}
		}
	}
	return policies.named(ix.policy.String(tier, mode))
}

// policyModes and policyTiers index Index.policies.
var (
	policyModes = [2]lineage.Mode{lineage.Active, lineage.All}
	policyTiers = [2]Tier{Hot, Cold}
)

// loaded is the stored records of a mode, as one read transaction saw
// them.
type loaded struct {
	stored map[string]*Record
	bad    [][]byte // keys of records that did not decode
	epoch  LexiconEpoch
	// at is the commit they were read at (when atKnown): a reader at the
	// same commit sees exactly these records.
	at      commit
	atKnown bool
	// roster is the stored hot roster (see roster.go).
	roster    []recentSession
	hasRoster bool
	// partial: the records are the manifest's (loadGateAt).
	partial bool
	// held is what the partial records took as they were read
	// (Index.holdRecords).
	held int64
	// gate, when set, holds the partial records by key instead of stored
	// (loadGateKeyed).
	gate *gateTable
	// clean: every record is stored under its own path's key (a damaged
	// manifest entry may name another path), so that a write's keys say
	// which of stored it changed (patchDecoded).
	clean bool
	// gen numbers the records the cache kept (0: not kept).
	gen uint64
	// from is the gen these records were patched from (patchDecoded),
	// and replaced the records of that gen they no longer hold: those
	// the patch's writes touched (a kept stat gate may carry the rest).
	from     uint64
	replaced []*Record
	// byTargets: stored is keyed by a refresh's targets' own strings
	// (keyedByTargets).
	byTargets bool
	// unkept: decoded at a known commit but not kept yet (see
	// keepMatched).
	unkept bool
	// docs are the lexicon docs of stored, in order, once each a record
	// (writer.liveFromKept).
	docs []uint32
}

// recordCache keeps, per branch mode, the records last decoded and the
// commit of the index file they were read at. Every refresh decodes every
// record of its mode (about 0.7 µs each, and the garbage they leave), so a
// host that keeps an Engine pays that once per change of the file rather
// than once per call. Records are never changed once kept; the map is
// shared read-only by the calls that get it.
type recordCache struct {
	mu     sync.Mutex
	byMode map[lineage.Mode]loaded
	// gens numbers what was kept; patched counts the records brought to a
	// new commit by patchDecoded (tests).
	gens, patched uint64
}

// commit identifies the content of the index file a read transaction
// sees: its last transaction id, and the file's identity (a reset makes a
// new file; a write by anything, even one that is not a commit, moves its
// ctime).
type commit struct {
	txid int
	file Identity
}

// commitOf is the commit tx reads, of the file it reads (which another
// process may have replaced at the path meanwhile); ok is false when the
// file cannot be stat-ed (then nothing is cached).
func (ix *Index) commitOf(tx *bolt.Tx) (commit, bool) {
	st, err := ix.store.Stat(tx)
	if err != nil {
		return commit{}, false
	}
	id, err := identityOf(st)
	if err != nil {
		return commit{}, false
	}
	return commit{txid: tx.ID(), file: id}, true
}

// cachedRecords is the record cache's records of mode, when they are of
// the commit the index file is at (ok). err is the read's failure (a
// lock held past its timeout), which the background read would only meet
// again after as long; a missing index file is no error here.
func (ix *Index) cachedRecords(ctx context.Context, mode lineage.Mode) (got loaded, ok bool, err error) {
	err = ix.store.View(ctx, func(tx *bolt.Tx) error {
		if at, atOK := ix.commitOf(tx); atOK {
			got, ok = ix.decoded.get(mode, at)
		}
		return nil
	})
	if errors.Is(err, indexfile.ErrMissing) {
		err = nil
	}
	return got, ok, err
}

func (c *recordCache) get(mode lineage.Mode, at commit) (loaded, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	r, ok := c.byMode[mode]
	return r, ok && r.at == at
}

// put keeps r as the records of mode at commit at, and returns it as kept;
// unless the records kept are of a later commit of the same file (a run
// that decoded before another's write keeps its records after it): r is
// then returned unkept (gen 0), at its commit.
func (c *recordCache) put(mode lineage.Mode, at commit, r loaded) loaded {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.byMode == nil {
		c.byMode = map[lineage.Mode]loaded{}
	}
	if cur, ok := c.byMode[mode]; ok && laterCommit(cur.at, at) {
		r.at, r.atKnown, r.gen = at, true, 0
		return r
	}
	c.gens++
	r.at, r.atKnown, r.gen = at, true, c.gens
	c.byMode[mode] = r
	return r
}

// laterCommit reports whether a is a later commit than b of the same
// file. A file made anew at the path (a reset) may get the old one's
// inode number back, and counts its transactions from the start again:
// its change time, never earlier than the old file's, tells it apart.
func laterCommit(a, b commit) bool {
	return sameFile(a.file, b.file) && a.txid > b.txid && a.file.CtimeNs >= b.file.CtimeNs
}

// holds reports whether the records kept for mode are base.
func (c *recordCache) holds(mode lineage.Mode, base loaded) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	cur, ok := c.byMode[mode]
	return ok && base.gen != 0 && cur.gen == base.gen
}

// swap keeps next at commit at in place of base, unless another call
// kept other records of mode meanwhile.
func (c *recordCache) swap(mode lineage.Mode, base loaded, at commit, next loaded) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if cur, ok := c.byMode[mode]; !ok || base.gen == 0 || cur.gen != base.gen {
		return false
	}
	c.gens++
	next.at, next.atKnown, next.gen = at, true, c.gens
	c.byMode[mode] = next
	c.patched++
	return true
}

// dropsText reports whether replacing old by rec drops text that must
// then leave the file's bytes, not only its tree (the write scrubs): a
// changed policy (thinking or tool output no longer indexed, say) drops
// what old held, and a demotion drops the hot shard's entry text, of
// which the cold vocabulary keeps single tokens only.
func dropsText(old, rec *Record) bool {
	return (old.Tier == rec.Tier && old.policy != rec.policy) || (old.Tier == Hot && rec.Tier != Hot)
}

// writeBuilt stores records and their tier data; a tier move writes the new
// tier and drops the old one in the same transaction.
func writeBuilt(tx *bolt.Tx, mode lineage.Mode, batch []*built, lx *lexiconBatch, sole bool) error {
	// Cold builds get their lexicon docs and packs before their records
	// are encoded.
	if err := addToLexicon(tx, mode, batch, lx); err != nil {
		return err
	}
	later := builtAgain(batch)
	packed, err := packBatch(tx, mode, batch, later)
	if err != nil {
		return err
	}
	recs, err := tx.CreateBucketIfNotExists(recordsBucket)
	if err != nil {
		return err
	}
	for i, b := range batch {
		if later[i] {
			// A target listed twice, built twice in this batch: the later
			// build replaces this one, which is not written at all (its
			// tier data would take the session's place in the pack the
			// later one was put in; packBatch left it out). Its lexicon
			// doc, named by no record, is dropped by the next merge.
			continue
		}
		if i%dropEvery == dropEvery-1 {
			// A lookup in the cold bucket reads across leaves of
			// digests: some 64 KB of the file a session.
			dropMapped(tx)
		}
		key := recordKey(mode, b.rec.Path)
		if b.hot == nil && b.cold == nil {
			if err := reverify(tx, recs, key, b.rec); err != nil {
				return err
			}
			continue
		}
		stored, oldPack, err := storedOf(tx, recs, mode, key, sole && b.unstored)
		if err != nil {
			return err
		}
		if err := writeTierData(tx, mode, key, b, packed[b], oldPack); err != nil {
			return err
		}
		if err := noteDead(tx, key, stored, b.rec.Doc); err != nil {
			return err
		}
		if err := putRecord(tx, recs, key, b.rec); err != nil {
			return err
		}
	}
	return nil
}

// builtAgain marks the builds of batch that a later build of the same
// session replaces (a target listed twice).
func builtAgain(batch []*built) []bool {
	last := make(map[string]int, len(batch))
	for i, b := range batch {
		last[b.rec.Path] = i
	}
	if len(last) == len(batch) {
		return make([]bool, len(batch))
	}
	again := make([]bool, len(batch))
	for i, b := range batch {
		again[i] = last[b.rec.Path] != i
	}
	return again
}

// storedOf is the record stored under key and its cold pack, which a
// write replaces. A session that had no record when its sole write's run
// read them (absent; writer.sole) has neither, and is not looked up.
func storedOf(tx *bolt.Tx, recs *bolt.Bucket, mode lineage.Mode, key []byte, absent bool) (stored []byte, pack uint64, err error) {
	if absent && !verifySole {
		return nil, 0, nil
	}
	stored, pack = recs.Get(key), storedPack(tx, mode, key)
	if absent {
		if stored != nil || pack != 0 {
			return nil, 0, fmt.Errorf("index: a sole write found %q stored", key)
		}
		soleSkips.Add(1)
	}
	return stored, pack, nil
}

// verifySole, set by tests, makes storedOf look up what it would skip and
// fail the write when it finds anything; soleSkips counts what it would
// have skipped.
var (
	verifySole bool
	soleSkips  atomic.Int64
)

// VerifySole makes every lookup a sole write skips be made and checked
// (failing the write where it finds a record), for the tests of the
// packages above.
func VerifySole(on bool) { verifySole = on }

// dropEvery is how many sessions' writes map the file before a write lets
// go of it (dropMapped). Each session's lookups and puts fault in some
// 400-650 KB of the file at 100k sessions (a page fault maps the 64 KB
// around it): 128 sessions kept up to 70 MB mapped.
const dropEvery = 16

// reverify stores a re-verified (racy) record, which carries no data: it
// may only refresh a record that still describes the same source and
// tier. Another process may have moved or rebuilt the session meanwhile;
// its record and data stand. Its lexicon doc must match too: the same
// bytes rebuilt elsewhere got a new doc, and a merge since may have
// dropped this one. The stored manifest entry is written again with the
// new verification time, not rec: that may be a partial one.
func reverify(tx *bolt.Tx, recs *bolt.Bucket, key []byte, rec *Record) error {
	mb := tx.Bucket(manifestBucket)
	if mb == nil {
		return nil
	}
	cur, err := (*recordArena)(nil).decodeFull(rec.Branches.Mode(), key, mb.Get(key), recs.Get(key))
	if err != nil || cur.Tier != rec.Tier || cur.SourceHash != rec.SourceHash || cur.policy != rec.policy ||
		cur.DataStamp != rec.DataStamp || cur.Doc != rec.Doc || cur.Pack != rec.Pack {
		return nil
	}
	// The verification time is in the manifest entry only: the stored
	// record stays as it is.
	cur.VerifiedAtNs = rec.VerifiedAtNs
	cur.policy = rec.policy
	return putGate(tx, key, cur)
}

// storedPack is the cold pack of the session stored under key, by its
// manifest entry or, when that does not decode (damage), by its stored
// record (0: none, or neither decodes).
func storedPack(tx *bolt.Tx, mode lineage.Mode, key []byte) uint64 {
	if mb := tx.Bucket(manifestBucket); mb != nil {
		if old, err := (*recordArena)(nil).decodeGate(mode, key, mb.Get(key)); err == nil {
			return old.Pack
		}
	}
	if b := tx.Bucket(recordsBucket); b != nil {
		var t tail
		if t.read(key, b.Get(key)) == nil {
			return t.pack
		}
	}
	return 0
}

// writeTierData stores b's hot shard or cold digest under key (the
// digest only when packBatch did not pack it) and drops the session's
// other tier data: its old shard, its own digest value, its old pack
// membership.
func writeTierData(tx *bolt.Tx, mode lineage.Mode, key []byte, b *built, packed bool, oldPack uint64) error {
	hot, err := tx.CreateBucketIfNotExists(hotBucket)
	if err != nil {
		return err
	}
	cold, err := tx.CreateBucketIfNotExists(coldBucket)
	if err != nil {
		return err
	}
	// A digest packed into its old pack replaced its old member there
	// (packBatch).
	if !packed || oldPack != b.rec.Pack {
		if err := unpack(tx, mode, oldPack, key); err != nil {
			return err
		}
	}
	if hot.Bucket(key) != nil {
		if err := hot.DeleteBucket(key); err != nil {
			return err
		}
	}
	if b.hot != nil {
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
	}
	if b.stored != nil && !packed {
		return cold.Put(key, b.stored)
	}
	return cold.Delete(key)
}

// putRecord stores rec under key, and its manifest entry.
func putRecord(tx *bolt.Tx, recs *bolt.Bucket, key []byte, rec *Record) error {
	enc, err := encodeRecord(rec)
	if err != nil {
		return err
	}
	if err := recs.Put(key, enc); err != nil {
		return err
	}
	return putGate(tx, key, rec)
}

// unpackStored takes the session's digest out of its pack (storedPack).
func unpackStored(tx *bolt.Tx, key []byte) error {
	i := bytes.IndexByte(key, 0)
	if i <= 0 {
		return nil
	}
	mode := lineage.Mode(key[:i])
	if pack := storedPack(tx, mode, key); pack != 0 {
		return unpack(tx, mode, pack, key)
	}
	return nil
}

func deleteSession(tx *bolt.Tx, key []byte) error {
	if err := unpackStored(tx, key); err != nil {
		return err
	}
	if err := deleteGate(tx, key); err != nil {
		return err
	}
	if b := tx.Bucket(recordsBucket); b != nil {
		if err := noteDead(tx, key, b.Get(key), 0); err != nil {
			return err
		}
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
