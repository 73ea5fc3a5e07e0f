package index

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/memidx/memidx/internal/sessiontext"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"github.com/memidx/memidx/internal/blocksum"
	"github.com/memidx/memidx/internal/coldvocab"
	"github.com/memidx/memidx/internal/coverage"
	"github.com/memidx/memidx/internal/hotbm25"
	"github.com/memidx/memidx/internal/indexfile"
	"github.com/memidx/memidx/internal/lineage"
)

var ctx = context.Background()

// sessionText writes a small v3 session whose user turns hold words.
// sessionText is a linear session of id with one user message per word.
func sessionText(id string, words ...string) string { return sessiontext.Linear(id, words...) }

type fixture struct {
	t     *testing.T
	dir   string // sessions
	paths []string
	cfg   Config
}

func newFixture(t *testing.T, n int) *fixture {
	f := &fixture{t: t, dir: filepath.Join(t.TempDir(), "sessions")}
	require.NoError(t, os.MkdirAll(f.dir, 0o755))
	f.cfg = DefaultConfig()
	f.cfg.IndexDir = filepath.Join(t.TempDir(), "index")
	f.cfg.HotSessions = 2
	base := time.Now().Add(-time.Hour)
	for i := 0; i < n; i++ {
		p := filepath.Join(f.dir, fmt.Sprintf("s%d.jsonl", i))
		require.NoError(t, os.WriteFile(p, []byte(sessionText(fmt.Sprintf("s%d", i), fmt.Sprintf("alpha%d beta", i))), 0o600))
		mt := base.Add(time.Duration(i) * time.Minute) // s(n-1) is newest
		require.NoError(t, os.Chtimes(p, mt, mt))
		f.paths = append(f.paths, p)
	}
	return f
}

func (f *fixture) index() *Index {
	ix := Open(f.cfg, time.Second)
	ix.RacyWindow = -1 // these tests change files within one clock tick
	return ix
}

func (f *fixture) refresh(ix *Index, mode lineage.Mode) *Report {
	f.t.Helper()
	var targets []Target
	for _, p := range f.paths {
		targets = append(targets, Target{Path: p})
	}
	rep, err := ix.Refresh(ctx, targets, RefreshOptions{Mode: mode, Searched: []string{f.dir}})
	require.NoError(f.t, err)
	return rep
}

func tiersOf(rep *Report) []string {
	var out []string
	for _, s := range rep.States {
		if s.Record == nil {
			out = append(out, "-"+s.Reason())
		} else {
			out = append(out, s.Record.Tier.String())
		}
	}
	return out
}

func TestRefresh_BuildThenUnchanged(t *testing.T) {
	f := newFixture(t, 3)
	ix := f.index()
	rep := f.refresh(ix, lineage.Active)
	assert.Equal(t, 3, rep.Rebuilt)
	assert.Equal(t, []string{Cold.String(), Hot.String(), Hot.String()}, tiersOf(rep))
	assert.True(t, rep.Coverage.Complete, rep.Coverage.Reasons)
	assert.Equal(t, 3, rep.Coverage.IndexedSessions)
	assert.Greater(t, rep.BytesRead, int64(0))

	rep = f.refresh(ix, lineage.Active)
	assert.Equal(t, 0, rep.Rebuilt)
	assert.Equal(t, 3, rep.Unchanged)
	assert.Equal(t, int64(0), rep.BytesRead, "an unchanged index reads no source")

	// The other branch mode has records of its own.
	rep = f.refresh(ix, lineage.All)
	assert.Equal(t, 3, rep.Rebuilt)

	// Data is where the records say.
	require.NoError(t, ix.View(ctx, lineage.Active, func(r *Reader) error {
		recs, _ := r.Records()
		require.Len(t, recs, 3)
		for _, rec := range recs {
			if rec.Tier == Hot {
				s, err := r.Shard(rec)
				require.NoError(t, err)
				assert.Equal(t, 1, s.Len())
				assert.Equal(t, 1, s.Postings("beta").Count())
			} else {
				_, v, err := r.Digest(rec)
				require.NoError(t, err)
				has, err := r.Holds(rec, v, "alpha0")
				require.NoError(t, err)
				assert.True(t, has)
			}
		}
		return nil
	}))
}

func TestRefresh_Invalidation(t *testing.T) {
	cases := []struct {
		name   string
		change func(t *testing.T, p string)
	}{
		{"append", func(t *testing.T, p string) {
			fh, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
			require.NoError(t, err)
			_, err = fh.WriteString(`{"type":"label","id":"l","parentId":null,"targetId":"x"}` + "\n")
			require.NoError(t, err)
			require.NoError(t, fh.Close())
		}},
		{"same-size rewrite restoring mtime", func(t *testing.T, p string) {
			st, err := os.Stat(p)
			require.NoError(t, err)
			b, err := os.ReadFile(p)
			require.NoError(t, err)
			nb := []byte(strings.Replace(string(b), "beta", "gama", 1))
			require.Equal(t, len(b), len(nb))
			require.NoError(t, os.WriteFile(p, nb, 0o600))
			require.NoError(t, os.Chtimes(p, st.ModTime(), st.ModTime()))
		}},
		{"truncation", func(t *testing.T, p string) {
			b, err := os.ReadFile(p)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(p, b[:len(b)/2], 0o600))
		}},
		{"replace by rename", func(t *testing.T, p string) {
			b, err := os.ReadFile(p)
			require.NoError(t, err)
			tmp := p + ".tmp"
			require.NoError(t, os.WriteFile(tmp, b, 0o600))
			require.NoError(t, os.Rename(tmp, p))
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t, 3)
			ix := f.index()
			f.refresh(ix, lineage.Active)
			// The newest session: a change keeps it hot, so nothing moves
			// tier and only it is read again.
			c.change(t, f.paths[2])
			rep := f.refresh(ix, lineage.Active)
			assert.Equal(t, 1, rep.Rebuilt)
			assert.Equal(t, 2, rep.Unchanged)
			assert.True(t, rep.States[2].Rebuilt())
		})
	}
}

// A record read before another process rewrote its session does not
// open the new data: the data's stamp differs, and the reader says
// ErrNoData (a race to retry), not damage and not the other version's data.
func TestReader_DataOfAnotherVersionIsNotServed(t *testing.T) {
	f := newFixture(t, 3)
	ix := f.index()
	rep := f.refresh(ix, lineage.Active)
	old := map[string]*Record{}
	for _, st := range rep.States {
		old[st.Path] = st.Record
	}
	for _, p := range f.paths {
		fh, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
		require.NoError(t, err)
		_, err = fh.WriteString(`{"type":"message","id":"zz","parentId":null,"message":{"role":"user","content":"rewritten later"}}` + "\n")
		require.NoError(t, err)
		require.NoError(t, fh.Close())
	}
	rep = f.refresh(ix, lineage.Active)
	require.Equal(t, 3, rep.Rebuilt)
	var hot, cold int
	require.NoError(t, ix.View(ctx, lineage.Active, func(r *Reader) error {
		for _, st := range rep.States {
			rec := old[st.Path]
			require.NotEqual(t, rec.DataStamp, st.Record.DataStamp)
			// The old record's data is gone or rewritten (the appends may
			// also have moved tiers); the new record opens its data.
			if rec.Tier == Hot {
				hot++
				_, err := r.Shard(rec)
				assert.ErrorIs(t, err, ErrNoData)
			} else {
				cold++
				_, _, err := r.Digest(rec)
				assert.ErrorIs(t, err, ErrNoData)
				r.Digests([]*Record{rec}, func(_ *Record, _ []byte, _ coldvocab.View, err error) {
					assert.ErrorIs(t, err, ErrNoData)
				})
			}
			if st.Record.Tier == Hot {
				_, err := r.Shard(st.Record)
				assert.NoError(t, err)
			} else {
				_, _, err := r.Digest(st.Record)
				assert.NoError(t, err)
			}
		}
		return nil
	}))
	assert.Positive(t, hot)
	assert.Positive(t, cold)
}

// Damage to a value's checksum header changes its stamp too; the record
// stored now (unchanged) tells it from a rewrite: ErrDamaged, not a race.
func TestReader_DamagedSumsAreDamageNotARace(t *testing.T) {
	f := newFixture(t, 3)
	ix := f.index()
	rep := f.refresh(ix, lineage.Active)
	require.NoError(t, ix.Store().Update(ctx, func(tx *bolt.Tx) error {
		for _, st := range rep.States {
			key := recordKey(lineage.Active, st.Path)
			var b *bolt.Bucket
			var k []byte
			if st.Record.Tier == Hot {
				b, k = tx.Bucket(hotBucket).Bucket(key), keyDict
			} else {
				b, k = tx.Bucket(coldBucket), key
			}
			v := append([]byte(nil), b.Get(k)...)
			v[4] ^= 1 // the first block's sum
			if err := b.Put(k, v); err != nil {
				return err
			}
		}
		return nil
	}))
	var hot, cold int
	require.NoError(t, ix.View(ctx, lineage.Active, func(r *Reader) error {
		for _, st := range rep.States {
			var err error
			if st.Record.Tier == Hot {
				hot++
				_, err = r.Shard(st.Record)
			} else {
				cold++
				_, _, err = r.Digest(st.Record)
			}
			assert.ErrorIs(t, err, ErrDamaged, st.Path)
			assert.NotErrorIs(t, err, ErrNoData)
		}
		return nil
	}))
	assert.Positive(t, hot)
	assert.Positive(t, cold)
}

func TestRefresh_SameSizeSameMtimeCaughtByHash(t *testing.T) {
	// With the default racy window, a record built right after its source
	// changed is re-hashed on the next refresh, so even a rewrite in the
	// same clock tick is caught.
	f := newFixture(t, 1)
	ix := Open(f.cfg, time.Second)
	require.NoError(t, os.WriteFile(f.paths[0], []byte(sessionText("s0", "one")), 0o600))
	rep := f.refresh(ix, lineage.Active)
	require.Equal(t, 1, rep.Rebuilt)
	st, _ := os.Stat(f.paths[0])
	require.NoError(t, os.WriteFile(f.paths[0], []byte(sessionText("s0", "two")), 0o600))
	require.NoError(t, os.Chtimes(f.paths[0], st.ModTime(), st.ModTime()))
	rep = f.refresh(ix, lineage.Active)
	assert.Equal(t, 1, rep.Rebuilt)
	// Unchanged but racy: re-hashed, not rebuilt.
	rep = f.refresh(ix, lineage.Active)
	assert.Equal(t, 0, rep.Rebuilt)
	assert.Equal(t, 1, rep.Unchanged)
}

func TestRefresh_DeletionRemovesRecord(t *testing.T) {
	f := newFixture(t, 3)
	ix := f.index()
	f.refresh(ix, lineage.Active)
	require.NoError(t, os.Remove(f.paths[1]))
	f.paths = append(f.paths[:1], f.paths[2:]...)
	rep := f.refresh(ix, lineage.Active)
	assert.Equal(t, 1, rep.Removed)
	require.NoError(t, ix.View(ctx, lineage.Active, func(r *Reader) error {
		recs, _ := r.Records()
		assert.Len(t, recs, 2)
		return nil
	}))
}

func TestRefresh_PolicyChangeRebuildsAffectedTier(t *testing.T) {
	f := newFixture(t, 3)
	f.refresh(f.index(), lineage.Active)
	f.cfg.MaxEntryChars = 500
	rep := f.refresh(f.index(), lineage.Active)
	assert.Equal(t, 2, rep.Rebuilt, "hot shards depend on maxEntryChars, cold digests do not")
	f.cfg.IndexToolOutput = false
	rep = f.refresh(f.index(), lineage.Active)
	assert.Equal(t, 3, rep.Rebuilt)
}

func TestRefresh_TierMove(t *testing.T) {
	f := newFixture(t, 3)
	ix := f.index()
	f.refresh(ix, lineage.Active)
	now := time.Now()
	require.NoError(t, os.Chtimes(f.paths[0], now, now))
	rep := f.refresh(ix, lineage.Active)
	assert.Equal(t, []string{Hot.String(), Cold.String(), Hot.String()}, tiersOf(rep))
	assert.Equal(t, 2, rep.Rebuilt)
	require.NoError(t, ix.View(ctx, lineage.Active, func(r *Reader) error {
		recs, _ := r.Records()
		for _, rec := range recs {
			if rec.Tier == Hot {
				_, _, err := r.Digest(&Record{Path: rec.Path, Tier: Cold})
				assert.ErrorIs(t, err, ErrNoData, "old cold data of %s dropped", rec.Path)
			} else {
				_, err := r.Shard(&Record{Path: rec.Path, Tier: Hot, EntryCount: rec.EntryCount})
				assert.ErrorIs(t, err, ErrNoData, "old hot data of %s dropped", rec.Path)
			}
		}
		return nil
	}))
}

func TestRefresh_Budgets(t *testing.T) {
	f := newFixture(t, 3)
	f.cfg.MaxSyncSessions = 1
	rep := f.refresh(f.index(), lineage.Active)
	assert.Equal(t, 1, rep.Rebuilt)
	assert.False(t, rep.Coverage.Complete)
	assert.Contains(t, rep.Coverage.Reasons, coverage.MaxSyncSessions)
	assert.Equal(t, 2, rep.Coverage.StaleSessions)
	assert.Equal(t, 3, rep.Coverage.EligibleSessions)
	assert.NotNil(t, rep.States[2].Record, "the newest session is built first")

	// The next call continues; unchanged sessions cost nothing.
	rep = f.refresh(f.index(), lineage.Active)
	assert.Equal(t, 1, rep.Rebuilt)
	rep = f.refresh(f.index(), lineage.Active)
	assert.Equal(t, 1, rep.Rebuilt)
	rep = f.refresh(f.index(), lineage.Active)
	assert.Equal(t, 0, rep.Rebuilt)
	assert.True(t, rep.Coverage.Complete, rep.Coverage.Reasons)

	f.cfg.MaxSyncSessions = 100
	size, _ := os.Stat(f.paths[0])
	f.cfg.MaxSyncSourceBytes = int(2*size.Size() + 1)
	f.cfg.IndexToolOutput = false // force a rebuild of all
	rep = f.refresh(f.index(), lineage.Active)
	assert.Equal(t, 2, rep.Rebuilt)
	assert.Contains(t, rep.Coverage.Reasons, coverage.MaxSyncSourceBytes)
}

func TestRefresh_CorruptRecordIsRebuilt(t *testing.T) {
	f := newFixture(t, 2)
	ix := f.index()
	f.refresh(ix, lineage.Active)
	key := recordKey(lineage.Active, f.paths[0])
	require.NoError(t, ix.Store().Update(ctx, func(tx *bolt.Tx) error {
		return tx.Bucket(recordsBucket).Put(key, []byte("not msgpack"))
	}))
	rep := f.refresh(ix, lineage.Active)
	assert.Equal(t, 1, rep.Rebuilt)
	// A record of another version, and one filed under the wrong key.
	rec := *rep.States[1].Record
	rec.CacheVersion = 5
	enc, _ := encodeRecord(&rec)
	require.NoError(t, ix.Store().Update(ctx, func(tx *bolt.Tx) error {
		return tx.Bucket(recordsBucket).Put(recordKey(lineage.Active, f.paths[1]), enc)
	}))
	rep = f.refresh(ix, lineage.Active)
	assert.Equal(t, 1, rep.Rebuilt)
	assert.True(t, rep.States[1].Rebuilt())
	// A sound record of one session filed under another's key.
	enc, _ = encodeRecord(rep.States[1].Record)
	_, err := decodeRecord(key, enc)
	assert.ErrorContains(t, err, "does not match")
	require.NoError(t, ix.Store().Update(ctx, func(tx *bolt.Tx) error {
		return tx.Bucket(recordsBucket).Put(key, enc)
	}))
	rep = f.refresh(ix, lineage.Active)
	assert.Equal(t, 1, rep.Rebuilt)
	assert.True(t, rep.States[0].Rebuilt())
	assert.Equal(t, f.paths[0], rep.States[0].Record.Path)
	// One flipped bit anywhere in a stored record (a reason dropped, a
	// count changed): the record fails its checksum and is rebuilt.
	require.NoError(t, ix.Store().Update(ctx, func(tx *bolt.Tx) error {
		b := tx.Bucket(recordsBucket)
		v := append([]byte(nil), b.Get(key)...)
		v[len(v)/2] ^= 0x02
		return b.Put(key, v)
	}))
	rep = f.refresh(ix, lineage.Active)
	assert.Equal(t, 1, rep.Rebuilt)
	assert.True(t, rep.States[0].Rebuilt())
}

// encodeWhole is what putRecord stores of rec: its manifest entry and its
// record.
func encodeWhole(t testing.TB, rec *Record) (gate, stored []byte) {
	gate, err := encodeGate(rec)
	require.NoError(t, err)
	stored, err = encodeRecord(rec)
	require.NoError(t, err)
	return gate, stored
}

const (
	hexA = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	hexB = "fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210"
)

var (
	sumA = MustSum(hexA)
	sumB = MustSum(hexB)
)

// TestRecordRoundTrip: a record stored as its manifest entry and its own
// part decodes whole to itself (decodeFull), and its own part alone to
// the fields it holds (decodeRecord); strings that pack (hex hashes, a
// UUID) and strings that only look like them come back the same.
func TestRecordRoundTrip(t *testing.T) {
	ts, te := 1.7e12, -0.5
	for _, c := range []struct {
		name string
		rec  *Record
	}{
		{"bare", withFacts(&Record{CacheVersion: indexfile.CacheVersion, Path: "/s.jsonl", Branches: ActiveBranch, Tier: Cold, SourceHash: sumA, policy: policies.named("p")}, sessionFacts{})},
		{"every field", withFacts(&Record{CacheVersion: indexfile.CacheVersion, Path: "/a/ü b.jsonl", Branches: AllBranches,
			Identity:   Identity{Size: 1 << 40, MtimeNs: -5, CtimeNs: 1<<62 + 3, Inode: 1<<64 - 1, Dev: 7},
			SourceHash: sumA, policy: policies.named("p"), Tier: Hot, note: &recordNote{reasons: []string{"a", "", "max_entry_chars"}, liveSignature: "live"},
			EntryCount: 123456, SumLen: 99,
			DataStamp: 0xdeadbeef, Doc: 1<<32 - 1, Pack: 1 << 40, IndexedAtNs: 1<<63 - 1, VerifiedAtNs: -1 << 63}, sessionFacts{sessionID: "id", cwd: "/w", cacheBytes: 1 << 33, firstTs: stampAt(ts), lastTs: stampAt(te)})},
		{"packed", withFacts(&Record{CacheVersion: indexfile.CacheVersion, Path: "/p.jsonl", Branches: ActiveBranch, Tier: Cold, policy: policies.named("q"), SourceHash: sumB, Doc: 3, DataStamp: 9}, sessionFacts{sessionID: "019d59f8-84c2-738a-a424-2e63ffc49c39", lineageFingerprint: sumA, firstTs: stampAt(ts)})},
		{"look-alikes", withFacts(&Record{CacheVersion: indexfile.CacheVersion, Path: "/l.jsonl", Branches: ActiveBranch, Tier: Cold, policy: policies.named("q"), SourceHash: sumA}, sessionFacts{sessionID: "019D59F8-84C2-738A-A424-2E63FFC49C39", cwd: hexA[:36]})},
		{"uuid-shaped, not hex", withFacts(&Record{CacheVersion: indexfile.CacheVersion, Path: "/u.jsonl", Branches: AllBranches, Tier: Hot, policy: policies.named("p"), SourceHash: sumA}, sessionFacts{sessionID: "019d59f8-84c2-738a-a424-2e63ffc49c3g", lineageFingerprint: sumB})},
	} {
		t.Run(c.name, func(t *testing.T) {
			rec := c.rec
			gate, stored := encodeWhole(t, rec)
			key := recordKey(rec.Branches.Mode(), rec.Path)
			arena := recordArena{}
			got, err := arena.decodeFull(rec.Branches.Mode(), key, gate, stored)
			require.NoError(t, err)
			assert.Equal(t, rec, got)
			// A server's arena (shared working directories) gives ids and
			// working directories allocations of their own: its text
			// chunks stay empty, so an id a record cuts from its path
			// (pointAt) keeps no chunk alive.
			server := recordArena{cwds: map[string]string{}}
			got, err = server.decodeFull(rec.Branches.Mode(), key, gate, stored)
			require.NoError(t, err)
			assert.Equal(t, rec, got)
			chunk := string(server.text[:cap(server.text)])
			assert.False(t, within(got.SessionID(), chunk), "the id in a text chunk")
			assert.False(t, within(got.Cwd(), chunk), "the working directory in a text chunk")
			if got.note == nil {
				assert.Zero(t, cap(server.text), "text chunks")
			}
			own, err := decodeRecord(key, stored)
			require.NoError(t, err)
			assert.Equal(t, withFacts(&Record{CacheVersion: rec.CacheVersion, Branches: rec.Branches,
				SourceHash: rec.SourceHash,
				DataStamp:  rec.DataStamp, Doc: rec.Doc, Pack: rec.Pack}, sessionFacts{sessionID: rec.SessionID(), cwd: rec.Cwd(), lineageFingerprint: rec.LineageFingerprint(), cacheBytes: rec.CacheBytes(), firstTs: rec.FirstTs(), lastTs: rec.LastTs()}), own)
		})
	}
}

// TestRecordHoldsOnlyItsOwnPart: the stored record repeats none of what
// the manifest entry holds, and packs its hashes and session id; a record
// of the 100k archive's shape (a 111-byte path, a ~95-byte policy) was
// 508 bytes in format 5.
func TestRecordHoldsOnlyItsOwnPart(t *testing.T) {
	ts := 1.7e12
	rec := withFacts(&Record{CacheVersion: indexfile.CacheVersion, Branches: ActiveBranch, Tier: Cold,
		Path:       "/work/corpora/100k/sessions/--home-dev-src-webshop--/2026-04-04T19-29-12-386Z_019d59f8-84c2-738a-a424-2e63ffc49c39.jsonl",
		SourceHash: sumA,
		policy:     policies.named(PolicyOf(Config{MaxColdVocabularyBytes: 1 << 20, MaxColdCacheBytes: 1 << 22}).String(Cold, lineage.Active)),
		Identity:   Identity{Size: 17000, MtimeNs: 1.7e18, CtimeNs: 1.7e18, Inode: 1 << 30, Dev: 2049},
		EntryCount: 40, DataStamp: 0xdeadbeef, Doc: 100000, Pack: 20000,
		IndexedAtNs: 1.7e18}, sessionFacts{sessionID: "019d59f8-84c2-738a-a424-2e63ffc49c39", cwd: "/home/dev/src/webshop", lineageFingerprint: sumB, cacheBytes: 3000, firstTs: stampAt(ts), lastTs: stampAt(ts)})
	stored, err := encodeRecord(rec)
	require.NoError(t, err)
	assert.LessOrEqual(t, len(stored), 150, "stored record bytes")
	for _, s := range []string{rec.Path, rec.Policy(), hexA, hexB, rec.SessionID()} {
		assert.NotContains(t, string(stored), s)
	}
}

// FuzzDecodeRecord: any bytes, sealed, decode without panic, and whatever
// decodes encodes back to a record that decodes the same (under the key
// of the path it was read for).
func FuzzDecodeRecord(f *testing.F) {
	ts := 3.0
	rec := withFacts(&Record{CacheVersion: indexfile.CacheVersion, Path: "/s.jsonl", Branches: ActiveBranch, Tier: Hot, EntryCount: 4, SourceHash: sumA}, sessionFacts{firstTs: stampAt(ts), sessionID: "019d59f8-84c2-738a-a424-2e63ffc49c39"})
	enc, _ := encodeRecord(rec)
	data, _ := blocksum.Unseal(enc)
	f.Add(data)
	key := recordKey(lineage.Active, rec.Path)
	f.Fuzz(func(t *testing.T, data []byte) {
		sealed, err := blocksum.Seal(data)
		if err != nil {
			return
		}
		r, err := decodeRecord(key, sealed)
		if err != nil {
			return
		}
		r.Path = rec.Path // the stored record does not hold it
		again, err := encodeRecord(r)
		if err != nil {
			t.Fatal(err)
		}
		r2, err := decodeRecord(key, again)
		if err == nil {
			r2.Path = rec.Path
		}
		if err != nil || !assert.ObjectsAreEqual(r, r2) {
			t.Fatalf("re-encoded record differs: %v\n%+v\n%+v", err, r, r2)
		}
	})
}

// TestDecodeRecordRefusesEveryDamagedByte: a flipped bit anywhere in the
// stored record fails it alone and whole; so does a manifest entry of
// another build of the session (another doc, stamp, source hash or
// cold pack).
func TestDecodeRecordRefusesEveryDamagedByte(t *testing.T) {
	rec := withFacts(&Record{CacheVersion: indexfile.CacheVersion, Path: "/s.jsonl", Branches: ActiveBranch, Tier: Hot, EntryCount: 12,
		SourceHash: sumA, Doc: 5, DataStamp: 7, policy: policies.named("p")}, sessionFacts{sessionID: "019d59f8-84c2-738a-a424-2e63ffc49c39", lineageFingerprint: sumB})
	gate, enc := encodeWhole(t, rec)
	key := recordKey(lineage.Active, rec.Path)
	arena := recordArena{}
	got, err := arena.decodeFull(lineage.Active, key, gate, enc)
	require.NoError(t, err)
	assert.Equal(t, rec, got)
	for i := range enc {
		bad := append([]byte(nil), enc...)
		bad[i] ^= 0x01
		_, err := decodeRecord(key, bad)
		assert.Error(t, err, "byte %d", i)
		_, err = arena.decodeFull(lineage.Active, key, gate, bad)
		assert.Error(t, err, "byte %d, whole", i)
	}
	for name, other := range map[string]func(r *Record){
		"doc":         func(r *Record) { r.Doc++ },
		"data stamp":  func(r *Record) { r.DataStamp++ },
		"source hash": func(r *Record) { r.SourceHash = sumB },
		"cold pack":   func(r *Record) { r.Pack++ },
	} {
		r := *rec
		other(&r)
		otherGate, _ := encodeWhole(t, &r)
		_, err := arena.decodeFull(lineage.Active, key, otherGate, enc)
		assert.ErrorContains(t, err, "does not match its manifest entry", name)
	}
	_, err = arena.decodeFull(lineage.Active, key, nil, enc)
	assert.Error(t, err, "no manifest entry")
	_, err = decodeRecord(recordKey(lineage.All, rec.Path), enc)
	assert.ErrorContains(t, err, "does not match", "the other mode's key")
}

// A damaged index file that is still recognisably memidx's (both meta
// pages gone, the marker page intact) is dropped and rebuilt. Garbage with
// no marker is another matter: see TestRefresh_ForeignFileIsLeftAlone.
func TestRefresh_DamagedFileIsReset(t *testing.T) {
	f := newFixture(t, 2)
	ix := f.index()
	f.refresh(ix, lineage.Active)
	b, err := os.ReadFile(ix.Store().Path())
	require.NoError(t, err)
	copy(b, strings.Repeat("garbage!", 1024))
	require.NoError(t, os.WriteFile(ix.Store().Path(), b, 0o600))
	rep := f.refresh(ix, lineage.Active)
	assert.Equal(t, 2, rep.Rebuilt)
	assert.Contains(t, rep.Coverage.Reasons, IndexReset)
}

func TestRefresh_MissingSource(t *testing.T) {
	f := newFixture(t, 1)
	f.paths = append(f.paths, filepath.Join(f.dir, "gone.jsonl"))
	rep := f.refresh(f.index(), lineage.Active)
	assert.Equal(t, "-"+coverage.SourceUnavailable, tiersOf(rep)[1])
	assert.False(t, rep.Coverage.Complete)
	assert.Equal(t, 1, rep.Coverage.StaleSessions)
}

func TestRefresh_Permissions(t *testing.T) {
	f := newFixture(t, 1)
	ix := f.index()
	f.refresh(ix, lineage.Active)
	st, err := os.Stat(f.cfg.IndexDir)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o700), st.Mode().Perm())
	st, err = os.Stat(ix.Store().Path())
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), st.Mode().Perm())
}

// An index that cannot take what a refresh built (another process holds
// it past the lock timeout here) leaves the builds in the states, so that
// the caller answers from them instead of reading every source a second
// time.
func TestRefresh_BusyKeepsBuilds(t *testing.T) {
	f := newFixture(t, 3)
	holder := f.index()
	inside, release, done := make(chan struct{}), make(chan struct{}), make(chan error)
	go func() {
		done <- holder.Store().Update(ctx, func(*bolt.Tx) error {
			close(inside)
			<-release
			return nil
		})
	}()
	<-inside
	ix := Open(f.cfg, 50*time.Millisecond)
	ix.RacyWindow = -1
	rep := f.refresh(ix, lineage.Active)
	close(release)
	require.NoError(t, <-done)
	assert.Contains(t, rep.Coverage.Reasons, IndexBusy)
	require.Equal(t, 3, rep.Rebuilt)
	tiers := map[string]int{}
	for _, st := range rep.States {
		require.NotNil(t, st.Built(), st.Path)
		assert.Same(t, st.Record, st.Built().Record)
		tiers[st.Record.Tier.String()]++
		if st.Record.Tier == Hot {
			assert.NotNil(t, st.Built().Hot)
		} else {
			assert.NotNil(t, st.Built().Cold)
		}
	}
	assert.Equal(t, map[string]int{Hot.String(): 2, Cold.String(): 1}, tiers)
	// An index that took them keeps nothing in the states.
	for _, st := range f.refresh(f.index(), lineage.Active).States {
		assert.Nil(t, st.Built())
	}
}

// Two indexes on one directory stand for two processes.
func TestRefresh_TwoProcessesAtOnce(t *testing.T) {
	f := newFixture(t, 8)
	f.cfg.HotSessions = 4
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ix := f.index()
			for j := 0; j < 3; j++ {
				var targets []Target
				for _, p := range f.paths {
					targets = append(targets, Target{Path: p})
				}
				rep, err := ix.Refresh(ctx, targets, RefreshOptions{Mode: lineage.Active, Searched: []string{f.dir}})
				if err != nil {
					errs <- err
					return
				}
				for _, s := range rep.States {
					if s.Record == nil && s.Reason() != IndexBusy {
						errs <- fmt.Errorf("%s: %s", s.Path, s.Reason())
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	rep := f.refresh(f.index(), lineage.Active)
	assert.True(t, rep.Coverage.Complete, rep.Coverage.Reasons)
	assert.Equal(t, 0, rep.Rebuilt)
}

// A long-lived Index verifies a hot shard's blocks once per commit: a
// second read at the same commit shares the first one's bits, and damage
// written by a later commit is still found (the bits of another commit are
// never trusted).
func TestReader_VerifiedOncePerCommit(t *testing.T) {
	f := newFixture(t, 3)
	ix := f.index()
	rep := f.refresh(ix, lineage.Active)
	var hots []*Record
	for _, st := range rep.States {
		if st.Record.Tier == Hot {
			hots = append(hots, st.Record)
		}
	}
	require.NotEmpty(t, hots)
	view := func() (errs []error) {
		require.NoError(t, ix.View(ctx, lineage.Active, func(r *Reader) error {
			for _, rec := range hots {
				_, err := r.Shard(rec)
				errs = append(errs, err)
			}
			return nil
		}))
		return errs
	}
	for _, err := range view() {
		require.NoError(t, err)
	}
	ix.seen.mu.Lock()
	first, n := ix.seen.at, len(ix.seen.shards)
	ix.seen.mu.Unlock()
	assert.Equal(t, len(hots), n, "one memo per shard read")

	// Damage each shard's columns (a data byte: the stamp of the sums
	// still matches the record) in a new commit.
	require.NoError(t, ix.Store().Update(ctx, func(tx *bolt.Tx) error {
		for _, rec := range hots {
			b := tx.Bucket(hotBucket).Bucket(recordKey(lineage.Active, rec.Path))
			v := append([]byte(nil), b.Get(keyCols)...)
			v[len(v)-1] ^= 1
			if err := b.Put(keyCols, v); err != nil {
				return err
			}
		}
		return nil
	}))
	for _, err := range view() {
		assert.ErrorIs(t, err, hotbm25.ErrCorrupt)
	}
	ix.seen.mu.Lock()
	assert.NotEqual(t, first, ix.seen.at, "the memo moved to the new commit")
	ix.seen.mu.Unlock()
}

// TestRecordArenaDecodesAsAlone: records decoded through one arena (as a
// walk of the records bucket decodes them) equal their lone decodes,
// across slab and text-chunk boundaries and after the sealed bytes they
// came from are overwritten.
func TestRecordArenaDecodesAsAlone(t *testing.T) {
	shared := strings.Clone("entry:4000;branches:active")
	arena := recordArena{}
	var got, want []*Record
	n := perSlab(unsafe.Sizeof(Record{}))*2 + 3
	for i := range n {
		first, last := float64(i), float64(i)+0.5
		rec := &Record{CacheVersion: indexfile.CacheVersion, Path: fmt.Sprintf("/p/%d/%s.jsonl", i, strings.Repeat("x", i*97%600)),
			Branches: ActiveBranch, Tier: Hot, EntryCount: int32(i), Doc: uint32(i), SourceHash: sumA}
		facts := sessionFacts{sessionID: fmt.Sprint("id", i)}
		if i%3 == 0 {
			facts.firstTs, facts.lastTs = stampAt(first), stampAt(last)
			rec.SetReasons([]string{"max_entry_chars"})
			facts.sessionID, facts.lineageFingerprint = "019d59f8-84c2-738a-a424-2e63ffc49c39", sumB
		}
		if i == 7 {
			facts.cwd = strings.Repeat("c", arenaTextChunk) // larger than a chunk
		}
		rec.facts = &facts
		rec.SetPolicy("entry:4000;branches:active")
		if i%2 == 0 {
			rec.SetPolicy("another policy")
		}
		gate, enc := encodeWhole(t, rec)
		key := recordKey(lineage.Active, rec.Path)
		alone, err := (&recordArena{}).decodeFull(lineage.Active, key, gate, enc)
		require.NoError(t, err)
		r, err := arena.decodeFull(lineage.Active, key, gate, enc)
		require.NoError(t, err)
		for j := range enc {
			enc[j] = 0xff // the decoded strings must not alias the value
		}
		for j := range gate {
			gate[j] = 0xff
		}
		got, want = append(got, r), append(want, alone)
	}
	runtime.GC()
	for i := range n {
		require.Equal(t, want[i], got[i], "record %d", i)
		if i%2 == 1 {
			assert.Equal(t, policies.named(shared), got[i].policy, "record %d's policy by its number", i)
		}
		assert.Equal(t, ActiveBranch, got[i].Branches, "record %d", i)
	}
}
