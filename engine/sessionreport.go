package engine

import (
	"github.com/memidx/memidx/internal/coldvocab"
	"github.com/memidx/memidx/internal/index"
)

// SessionRecord is the index's record of one session (InspectSession):
// what was indexed, under which policy, in which tier.
type SessionRecord struct {
	CacheVersion       int      `json:"cacheVersion"`
	Path               string   `json:"path"`
	Branches           string   `json:"branches"`
	SessionID          string   `json:"sessionId"`
	Cwd                string   `json:"cwd"`
	SourceHash         string   `json:"sourceHash"`
	LineageFingerprint string   `json:"lineageFingerprint"`
	Policy             string   `json:"policy"`
	Tier               string   `json:"tier"`
	EntryCount         int      `json:"entryCount"`
	Reasons            []string `json:"reasons"`
	CacheBytes         int64    `json:"cacheBytes"`
	FirstTs            *float64 `json:"firstTs"`
	LastTs             *float64 `json:"lastTs"`
	// indexedAtNs is when the source was read (tests tell a rebuilt
	// record from the one it replaced by it).
	indexedAtNs int64
}

// SessionDigest is a cold session's digest (InspectSession): its
// identity, what it touched and the vocabulary's coverage.
type SessionDigest struct {
	CacheVersion       int            `json:"cacheVersion"`
	Kind               string         `json:"kind"`
	SessionID          string         `json:"sessionId"`
	File               string         `json:"file"`
	Cwd                string         `json:"cwd"`
	MtimeMs            float64        `json:"mtime"`
	Size               int64          `json:"size"`
	SourceHash         string         `json:"sourceHash"`
	Branches           string         `json:"branches"`
	LineageFingerprint string         `json:"lineageFingerprint"`
	Policy             string         `json:"policy"`
	FirstTs            *float64       `json:"firstTs"`
	LastTs             *float64       `json:"lastTs"`
	EntryCount         int            `json:"entryCount"`
	FilesTouched       []string       `json:"filesTouched"`
	ToolHistogram      map[string]int `json:"toolHistogram"`
	ErrorCount         int            `json:"errorCount"`
	IndexCoverage      DigestCoverage `json:"indexCoverage"`
	CacheBytes         int            `json:"cacheBytes"`
	CacheSourceRatio   float64        `json:"cacheSourceRatio"`
}

// DigestCoverage is a digest's own coverage.
type DigestCoverage struct {
	Complete        bool     `json:"complete"`
	VocabularyBytes int      `json:"vocabularyBytes"`
	Reasons         []string `json:"reasons"`
	// VocabularyCut is true when construction stopped at
	// maxColdVocabularyBytes: any term may be missing.
	VocabularyCut bool `json:"vocabularyCut,omitempty"`
	// VocabularyLastTerm is set when the cache cap kept a sorted prefix:
	// a term that sorts at or before it is present if and only if it is
	// in the session.
	VocabularyLastTerm *string `json:"vocabularyLastTerm,omitempty"`
	// AddressCount is how many entries (from the first) the addresses
	// cover.
	AddressCount int `json:"addressCount"`
	// FilesTouchedComplete is false when filesTouched was capped.
	FilesTouchedComplete bool `json:"filesTouchedComplete"`
}

// recordOf is the record's wire face; no reasons are [] on the wire.
func recordOf(r *index.Record) *SessionRecord {
	out := &SessionRecord{CacheVersion: int(r.CacheVersion), Path: r.Path, Branches: r.Branches.String(), SessionID: r.SessionID(),
		Cwd: r.Cwd(), SourceHash: r.SourceHash.String(), LineageFingerprint: r.LineageFingerprint().String(), Policy: r.Policy(),
		Tier: r.Tier.String(), EntryCount: int(r.EntryCount), Reasons: r.Reasons(), CacheBytes: r.CacheBytes(),
		FirstTs: r.FirstTs().Ptr(), LastTs: r.LastTs().Ptr(), indexedAtNs: r.IndexedAtNs}
	if out.Reasons == nil {
		out.Reasons = []string{}
	}
	return out
}

func digestOf(d *coldvocab.Digest) *SessionDigest {
	return &SessionDigest{CacheVersion: d.CacheVersion, Kind: d.Kind, SessionID: d.SessionID, File: d.File,
		Cwd: d.Cwd, MtimeMs: d.MtimeMs, Size: d.Size, SourceHash: d.SourceHash, Branches: d.Branches,
		LineageFingerprint: d.LineageFingerprint, Policy: d.Policy, FirstTs: d.FirstTs, LastTs: d.LastTs,
		EntryCount: d.EntryCount, FilesTouched: d.FilesTouched, ToolHistogram: d.ToolHistogram,
		ErrorCount: d.ErrorCount, IndexCoverage: DigestCoverage(d.IndexCoverage), CacheBytes: d.CacheBytes,
		CacheSourceRatio: d.CacheSourceRatio}
}
