package index

import (
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"syscall"
	"time"

	"github.com/vmihailenco/msgpack/v5"

	"github.com/memidx/memidx/blocksum"
	"github.com/memidx/memidx/bucket"
	"github.com/memidx/memidx/lineage"
)

// Tiers.
const (
	Hot  = "hot"
	Cold = "cold"
)

// Identity is what the stat gate compares: a source whose identity is
// unchanged is not re-read. ctime changes on every write and on utimes, so
// a same-size rewrite that restores mtime still changes it.
type Identity struct {
	Size    int64  `msgpack:"z"`
	MtimeNs int64  `msgpack:"m"`
	CtimeNs int64  `msgpack:"c"`
	Inode   uint64 `msgpack:"i"`
	Dev     uint64 `msgpack:"d"`
}

// StatIdentity stats path.
func StatIdentity(path string) (Identity, error) {
	st, err := os.Stat(path)
	if err != nil {
		return Identity{}, err
	}
	return identityOf(st)
}

func identityOf(st fs.FileInfo) (Identity, error) {
	if !st.Mode().IsRegular() {
		return Identity{}, fmt.Errorf("%s: not a regular file", st.Name())
	}
	id := Identity{Size: st.Size(), MtimeNs: st.ModTime().UnixNano()}
	if sys, ok := st.Sys().(*syscall.Stat_t); ok {
		id.CtimeNs = sys.Ctim.Sec*1e9 + sys.Ctim.Nsec
		id.Inode = sys.Ino
		id.Dev = uint64(sys.Dev)
	}
	return id, nil
}

// Record is the stored description of one session file in one branch
// mode; the tier data (hot shard or cold digest) sits beside it.
type Record struct {
	CacheVersion       int      `msgpack:"v" json:"cacheVersion"`
	Path               string   `msgpack:"p" json:"path"`
	Branches           string   `msgpack:"b" json:"branches"`
	SessionID          string   `msgpack:"s" json:"sessionId"`
	Cwd                string   `msgpack:"w" json:"cwd"`
	Identity           Identity `msgpack:"id" json:"-"`
	SourceHash         string   `msgpack:"h" json:"sourceHash"`
	LineageFingerprint string   `msgpack:"l" json:"lineageFingerprint"`
	// LiveSignature identifies the host's live branch the record was built
	// under ("" for the persisted leaf).
	LiveSignature string `msgpack:"L,omitempty" json:"-"`
	Policy        string `msgpack:"P" json:"policy"`
	Tier          string `msgpack:"t" json:"tier"`
	EntryCount    int    `msgpack:"n" json:"entryCount"`
	// SumLen is the hot shard's total token count (BM25 mean length).
	SumLen     int64    `msgpack:"L2,omitempty" json:"-"`
	Reasons    []string `msgpack:"r" json:"reasons"`
	CacheBytes int64    `msgpack:"cb" json:"cacheBytes"`
	// DataStamp is the blocksum.Stamp of the tier data written with the
	// record: a reader whose data has another stamp met a session that
	// another process rewrote after this record was read.
	DataStamp uint32   `msgpack:"ds" json:"-"`
	FirstTs   *float64 `msgpack:"f,omitempty" json:"firstTs"`
	LastTs    *float64 `msgpack:"la,omitempty" json:"lastTs"`
	// IndexedAtNs is when the source was read; a source modified within
	// racyWindow before that is re-hashed on the next refresh, because a
	// write in the same clock tick can leave every stat field unchanged.
	IndexedAtNs int64 `msgpack:"at" json:"-"`
}

// DefaultRacyWindow is how close to its indexing time a source change must
// be for the stat gate not to trust it (file times have the kernel tick's
// granularity, and some file systems whole seconds).
const DefaultRacyWindow = 2 * time.Second

// racy reports whether the record's stat identity cannot vouch for it.
func (r *Record) racy(window time.Duration) bool { return r.Identity.RacyAt(r.IndexedAtNs, window) }

// RacyAt reports whether a file read at atNs (Unix ns) with this identity
// changed within window before the read: then a later change could keep
// the same identity, and the identity cannot vouch for what was read.
func (id Identity) RacyAt(atNs int64, window time.Duration) bool {
	return atNs-max(id.MtimeNs, id.CtimeNs) < int64(window)
}

// Complete reports whether the record's own coverage is complete.
func (r *Record) Complete() bool { return len(r.Reasons) == 0 }

// MtimeMs is the source mtime in JavaScript milliseconds.
func (r *Record) MtimeMs() float64 { return float64(r.Identity.MtimeNs) / 1e6 }

// recordKey is the bbolt key of a session in a branch mode: active and all
// never share a record. The path is hashed (SHA-256, 16 bytes): short keys
// keep bbolt's pages full and its comparisons cheap, and the record stores
// the path, which decodeRecord checks against the key.
func recordKey(mode lineage.Mode, path string) []byte {
	sum := sha256.Sum256([]byte(path))
	k := make([]byte, 0, len(mode)+1+16)
	k = append(k, mode...)
	k = append(k, 0)
	return append(k, sum[:16]...)
}

// encodeRecord stores a record sealed ([blocksum]): a damaged record (a
// reason or a count changed by bit rot) is dropped and rebuilt, never
// trusted.
func encodeRecord(r *Record) ([]byte, error) {
	b, err := msgpack.Marshal(r)
	if err != nil {
		return nil, err
	}
	return blocksum.Seal(b)
}

func decodeRecord(key, sealed []byte) (*Record, error) {
	b, err := blocksum.Unseal(sealed)
	if err != nil {
		return nil, err
	}
	var r Record
	if err := msgpack.Unmarshal(b, &r); err != nil {
		return nil, err
	}
	if r.CacheVersion != bucket.CacheVersion {
		return nil, fmt.Errorf("record of cache version %d", r.CacheVersion)
	}
	if string(key) != string(recordKey(lineage.Mode(r.Branches), r.Path)) {
		return nil, fmt.Errorf("record key %q does not match its source %q (%s)", key, r.Path, r.Branches)
	}
	if r.Tier != Hot && r.Tier != Cold {
		return nil, fmt.Errorf("record tier %q", r.Tier)
	}
	return &r, nil
}

// Policy is the part of the configuration a record's content depends on,
// besides the lineage: changing any of it rebuilds the record.
type Policy struct {
	MaxEntryChars          int
	IndexThinking          bool
	IndexToolOutput        bool
	MaxColdVocabularyBytes int
	MaxColdCacheBytes      int
}

// PolicyOf takes the policy from a configuration.
func PolicyOf(c Config) Policy {
	return Policy{
		MaxEntryChars:          c.MaxEntryChars,
		IndexThinking:          c.IndexThinking,
		IndexToolOutput:        c.IndexToolOutput,
		MaxColdVocabularyBytes: c.MaxColdVocabularyBytes,
		MaxColdCacheBytes:      c.MaxColdCacheBytes,
	}
}

// String is the policy string of a tier, in the reference's spelling (the
// lineage travels separately in the record).
func (p Policy) String(tier string, mode lineage.Mode) string {
	b := strconv.FormatBool
	if tier == Hot {
		return "entry:" + strconv.Itoa(p.MaxEntryChars) + ";branches:" + string(mode) +
			";thinking:" + b(p.IndexThinking) + ";tool-output:" + b(p.IndexToolOutput)
	}
	return "vocab:" + strconv.Itoa(p.MaxColdVocabularyBytes) + ";cache:" + strconv.Itoa(p.MaxColdCacheBytes) +
		";branches:" + string(mode) + ";thinking:" + b(p.IndexThinking) + ";tool-output:" + b(p.IndexToolOutput)
}
