package index

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/memidx/memidx/internal/lineage"
	"github.com/memidx/memidx/internal/session/listing"
)

// Tier is where a session's indexed data lives: a hot shard or a cold
// digest (the zero Tier is none). A byte, not the string a record held
// (16 bytes a record, at 100k sessions 1.6 MB a server keeps).
type Tier uint8

// Tiers.
const (
	Hot Tier = iota + 1
	Cold
)

// String is the tier's name on the wire ("hot", "cold"; "" for none).
func (t Tier) String() string {
	switch t {
	case Hot:
		return "hot"
	case Cold:
		return "cold"
	}
	return ""
}

// MarshalText writes the tier's name.
func (t Tier) MarshalText() ([]byte, error) { return []byte(t.String()), nil }

// UnmarshalText reads what MarshalText wrote.
func (t *Tier) UnmarshalText(b []byte) error {
	for _, x := range []Tier{0, Hot, Cold} {
		if string(b) == x.String() {
			*t = x
			return nil
		}
	}
	return fmt.Errorf("index: %q is not a tier", b)
}

// Identity is what the stat gate compares: a source whose identity is
// unchanged is not re-read. ctime changes on every write and on utimes, so
// a same-size rewrite that restores mtime still changes it.
type Identity struct {
	Size    int64
	MtimeNs int64
	CtimeNs int64
	Inode   uint64
	Dev     uint64
}

// StatIdentity stats path.
func StatIdentity(path string) (Identity, error) {
	st, err := os.Stat(path)
	if err != nil {
		return Identity{}, err
	}
	return identityOf(st)
}

// IdentityOf is the stat identity of a file already opened (and so
// checked) by its caller.
func IdentityOf(st fs.FileInfo) (Identity, error) { return identityOf(st) }

func identityOf(st fs.FileInfo) (Identity, error) {
	if !st.Mode().IsRegular() {
		return Identity{}, fmt.Errorf("%s: not a regular file", st.Name())
	}
	return identityFrom(listing.StatOf(st)), nil
}

// identityFrom is the identity of a stat a listing took.
func identityFrom(s listing.FileStat) Identity {
	return Identity{Size: s.Size, MtimeNs: s.MtimeNs, CtimeNs: s.CtimeNs, Inode: s.Inode, Dev: s.Dev}
}

// Record is the stored description of one session file in one branch
// mode; the tier data (hot shard or cold digest) sits beside it. A server
// keeps one per session, so its fields are laid out to leave no padding:
// the pointers first, then the words, the sums and the small numbers.
// Its JSON is recordJSON's.
type Record struct {
	Path string
	// note holds what few records have: their own coverage reasons and
	// the live branch they were built under (Reasons, LiveSignature). A
	// pointer rather than a slice and a string: 32 bytes less a record.
	note *recordNote
	// facts holds what the session's file says of itself (SessionID, Cwd,
	// LineageFingerprint, CacheBytes, FirstTs, LastTs); nil for a partial
	// record (see partial), which the stat gate and a search's ruling out
	// never need it for.
	facts    *sessionFacts
	Identity Identity
	// SumLen is the hot shard's total token count (BM25 mean length).
	SumLen int64
	// Pack is the cold pack that holds the record's digest (pack.go; 0:
	// the digest has a value of its own in the cold bucket).
	Pack uint64
	// IndexedAtNs is when the source was read; a source modified within
	// the racy window before that is re-hashed on the next refresh, because
	// a write in the same clock tick can leave every stat field unchanged.
	IndexedAtNs int64
	// VerifiedAtNs is the last refresh that found the source's identity
	// unchanged and re-hashed it to the same SourceHash (0: none).
	VerifiedAtNs int64
	SourceHash   Sum
	Tier         Tier
	Branches     BranchMode
	// partial: read from the manifest (manifest.go); it has no facts
	// until a Reader reads its tier data and completes it.
	partial      bool
	CacheVersion int32
	// DataStamp is the blocksum.Stamp of the tier data written with the
	// record: a reader whose data has another stamp met a session that
	// another process rewrote after this record was read.
	DataStamp uint32
	// Doc is the record's number in the archive lexicon (0: none; hot
	// records written before hot shards joined the lexicon have none). It
	// is never reused, so a rebuilt session's old postings are masked.
	Doc        uint32
	EntryCount int32
	// policy numbers its policy string (Policy, policynum.go).
	policy policyNum
}

// sessionFacts is the part of a Record that a partial one lacks: 88 of
// its bytes, which a one-shot call over 100k sessions held for every
// session while it needed them for a few (8.8 MB; a record is 176 bytes,
// was 256). Once a record is built or decoded its facts do not change,
// so that a copy of the record may share them; the one exception is
// pointAt's, which moves the session id to bytes of equal content.
type sessionFacts struct {
	sessionID, cwd     string
	lineageFingerprint Sum
	cacheBytes         int64
	firstTs, lastTs    Stamp
}

// noFacts are a partial record's session facts: none. Read only.
var noFacts sessionFacts

// factsOf is r's session facts, noFacts for a partial record.
func (r *Record) factsOf() *sessionFacts {
	if r.facts == nil {
		return &noFacts
	}
	return r.facts
}

// SessionID is the session's id ("" for a partial record).
func (r *Record) SessionID() string { return r.factsOf().sessionID }

// Cwd is the session's working directory ("" for a partial record).
func (r *Record) Cwd() string { return r.factsOf().cwd }

// LineageFingerprint fingerprints the branch the record was built from
// (zero for a partial record).
func (r *Record) LineageFingerprint() Sum { return r.factsOf().lineageFingerprint }

// CacheBytes is what the session's indexed data takes (0 for a partial
// record).
func (r *Record) CacheBytes() int64 { return r.factsOf().cacheBytes }

// FirstTs is the session's first timestamp (none for a partial record).
func (r *Record) FirstTs() Stamp { return r.factsOf().firstTs }

// LastTs is the session's last timestamp (none for a partial record).
func (r *Record) LastTs() Stamp { return r.factsOf().lastTs }

// BranchMode is a record's branch mode (lineage.Active or lineage.All)
// as a byte: the zero BranchMode is none.
type BranchMode uint8

// The branch modes of records.
const (
	ActiveBranch BranchMode = iota + 1
	AllBranches
)

// BranchModeOf is the BranchMode of mode; none for a mode that is neither.
func BranchModeOf(mode lineage.Mode) BranchMode {
	switch mode {
	case lineage.Active:
		return ActiveBranch
	case lineage.All:
		return AllBranches
	}
	return 0
}

// Mode is the lineage mode b stands for ("" for none).
func (b BranchMode) Mode() lineage.Mode {
	switch b {
	case ActiveBranch:
		return lineage.Active
	case AllBranches:
		return lineage.All
	}
	return ""
}

// String is the mode's name on the wire ("active", "all"; "" for none).
func (b BranchMode) String() string { return string(b.Mode()) }

// DefaultRacyWindow is the racy window of a source whose change time has
// no sub-second part (or that has none): file times there may have whole
// seconds (two on FAT), so a change within two seconds of a read may leave
// every stat field as it was.
const DefaultRacyWindow = 2 * time.Second

// FineRacyWindow is the racy window of a source whose change time has a
// sub-second part: the file system stamps nanoseconds, from the kernel's
// clock, which advances at least every tick (1-10 ms on Linux, 15.6 ms on
// Windows; measured here: stamps a few µs apart, never more than 6.5 ms
// behind the wall clock under load). A tenth of a second is many ticks.
const FineRacyWindow = 100 * time.Millisecond

// windowOf is the racy window for a source of identity id: configured
// when it is not 0, else by the stamps the file system gives.
func (id Identity) windowOf(configured time.Duration) time.Duration {
	switch {
	case configured != 0:
		return configured
	case id.CtimeNs%int64(time.Second) != 0:
		return FineRacyWindow
	}
	return DefaultRacyWindow
}

// racy reports whether the record's stat identity cannot vouch for it
// (window: see RacyAt). A record is trusted once it was read, or
// re-verified (identity unchanged, hash the same), at least the window
// after the source's last change, or re-verified at least the window
// after it was read: a later write is then stamped at least the window
// after the write that was read, by a clock that moves forward, so its
// stamps differ. The second rule settles a source dated in the future (a
// clock that ran ahead and was set back, a file synced from another
// machine), which the first never would.
func (r *Record) racy(window time.Duration) bool {
	w := int64(r.Identity.windowOf(window))
	at := max(r.IndexedAtNs, r.VerifiedAtNs)
	return r.Identity.RacyAt(at, window) && at-r.IndexedAtNs < w
}

// Settled reports whether two reads of a source of this identity, at
// firstNs and thenNs (Unix ns), that found the same content vouch for it
// from now on (the rule of Record.racy; firstNs == thenNs for one read).
func (id Identity) Settled(firstNs, thenNs int64) bool {
	r := Record{Identity: id, IndexedAtNs: firstNs, VerifiedAtNs: thenNs}
	return !r.racy(0)
}

// RacyAt reports whether a file read at atNs (Unix ns) with this identity
// changed within the racy window before the read (or is dated after it):
// then a later change could keep the same identity, and the identity
// cannot vouch for what was read. window 0 is the window the file's
// stamps call for (FineRacyWindow or DefaultRacyWindow).
func (id Identity) RacyAt(atNs int64, window time.Duration) bool {
	return atNs-max(id.MtimeNs, id.CtimeNs) < int64(id.windowOf(window))
}

// recordNote is the rare part of a Record.
type recordNote struct {
	reasons       []string
	liveSignature string
}

// Reasons are why the record's own coverage is incomplete (none: it is
// complete). The caller must not change them.
func (r *Record) Reasons() []string {
	if r.note == nil {
		return nil
	}
	return r.note.reasons
}

// LiveSignature identifies the host's live branch the record was built
// under ("" for the persisted leaf).
func (r *Record) LiveSignature() string {
	if r.note == nil {
		return ""
	}
	return r.note.liveSignature
}

// SetReasons sets the record's own coverage reasons.
func (r *Record) SetReasons(reasons []string) { r.setNote(reasons, r.LiveSignature()) }

// setNote sets the record's rare part; none when both are empty. The
// note is new: a copy of the record made before keeps its own.
func (r *Record) setNote(reasons []string, live string) {
	r.note = nil
	if len(reasons) > 0 || live != "" {
		r.note = &recordNote{reasons: reasons, liveSignature: live}
	}
}

// Complete reports whether the record's own coverage is complete.
func (r *Record) Complete() bool { return len(r.Reasons()) == 0 }

// recordJSON is a Record's JSON, field for field as it was when the
// record held its reasons itself ("reasons" is [] for none).
type recordJSON struct {
	CacheVersion       int32    `json:"cacheVersion"`
	Path               string   `json:"path"`
	Branches           string   `json:"branches"`
	SessionID          string   `json:"sessionId"`
	Cwd                string   `json:"cwd"`
	SourceHash         Sum      `json:"sourceHash"`
	LineageFingerprint Sum      `json:"lineageFingerprint"`
	Policy             string   `json:"policy"`
	Tier               Tier     `json:"tier"`
	EntryCount         int32    `json:"entryCount"`
	Reasons            []string `json:"reasons"`
	CacheBytes         int64    `json:"cacheBytes"`
	FirstTs            Stamp    `json:"firstTs"`
	LastTs             Stamp    `json:"lastTs"`
}

// MarshalJSON writes the record as recordJSON.
func (r Record) MarshalJSON() ([]byte, error) {
	reasons := r.Reasons()
	if reasons == nil {
		reasons = []string{}
	}
	return json.Marshal(recordJSON{CacheVersion: r.CacheVersion, Path: r.Path, Branches: r.Branches.String(),
		SessionID: r.SessionID(), Cwd: r.Cwd(), SourceHash: r.SourceHash, LineageFingerprint: r.LineageFingerprint(),
		Policy: r.Policy(), Tier: r.Tier, EntryCount: r.EntryCount, Reasons: reasons, CacheBytes: r.CacheBytes(),
		FirstTs: r.FirstTs(), LastTs: r.LastTs()})
}

// MtimeMs is the source mtime in JavaScript milliseconds.
func (r *Record) MtimeMs() float64 { return float64(r.Identity.MtimeNs) / 1e6 }

// recordKey is the bbolt key of a session in a branch mode: active and all
// never share a record. The path is hashed (SHA-256, 16 bytes): short keys
// keep bbolt's pages full and its comparisons cheap; the manifest entry
// stores the path, and the record a checksum of its key (keySum).
func recordKey(mode lineage.Mode, path string) []byte {
	return appendRecordKey(make([]byte, 0, len(mode)+1+gateSumLen), mode, path)
}

// appendRecordKey appends the key of recordKey to k.
func appendRecordKey(k []byte, mode lineage.Mode, path string) []byte {
	sum := gateSumOf(bytesOf(path))
	k = append(k, mode...)
	k = append(k, 0)
	return append(k, sum[:]...)
}

// gateSumOf is the SHA-256 prefix of path that its record key ends in.
func gateSumOf(path []byte) [gateSumLen]byte {
	sum := sha256.Sum256(path)
	return [gateSumLen]byte(sum[:gateSumLen])
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

// toolArgsPolicy ends every policy string: memidx indexes tool-call
// arguments whole, past the reference's display cut (normalize.ArgsCut).
// Records built without it lack those terms; the different policy string
// makes refresh rebuild them.
const toolArgsPolicy = ";tool-args:whole"

// String is the policy string of a tier, in the reference's spelling plus
// toolArgsPolicy (the lineage travels separately in the record).
func (p Policy) String(tier Tier, mode lineage.Mode) string {
	b := strconv.FormatBool
	if tier == Hot {
		return "entry:" + strconv.Itoa(p.MaxEntryChars) + ";branches:" + string(mode) +
			";thinking:" + b(p.IndexThinking) + ";tool-output:" + b(p.IndexToolOutput) + toolArgsPolicy
	}
	return "vocab:" + strconv.Itoa(p.MaxColdVocabularyBytes) + ";cache:" + strconv.Itoa(p.MaxColdCacheBytes) +
		";branches:" + string(mode) + ";thinking:" + b(p.IndexThinking) + ";tool-output:" + b(p.IndexToolOutput) +
		toolArgsPolicy
}

// pointAt sets the record's Path to p, a string another holds (the
// listing's, a manifest key's), and cuts its SessionID from p when the
// file is named for the session (<time>_<id>.jsonl, as OMP names it): a
// server holds every record, and a copy of each id was 3.7 MB of its heap
// at 100k sessions. The id follows the path it was cut from, so that an
// old path is not kept alive by it. It writes the record's facts in
// place: it must only see a record just decoded, before any copy of it
// is made or it is shared (stat and keepWith call it so).
func (r *Record) pointAt(p string) {
	r.Path = p
	if r.facts == nil {
		return
	}
	if id, ok := sessionIDIn(p, r.facts.sessionID); ok {
		r.facts.sessionID = id // equal content: a copy sharing the facts reads the same
	}
}

// sessionIDIn is id as p spells it when p is a session file named for
// it: <anything>_<id>.jsonl.
func sessionIDIn(p, id string) (string, bool) {
	base, ok := strings.CutSuffix(p, ".jsonl")
	if !ok || id == "" || len(base) <= len(id) || base[len(base)-len(id)-1] != '_' {
		return "", false
	}
	at := base[len(base)-len(id):]
	return at, at == id
}
