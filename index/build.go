package index

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/memidx/memidx/blocksum"
	"github.com/memidx/memidx/bucket"
	"github.com/memidx/memidx/coldvocab"
	"github.com/memidx/memidx/coverage"
	"github.com/memidx/memidx/hotbm25"
	"github.com/memidx/memidx/lineage"
	"github.com/memidx/memidx/normalize"
	"github.com/memidx/memidx/session"
)

// Source is one read of a session file: its bytes, their hash and the
// identity they were read under.
type Source struct {
	Path     string
	Identity Identity
	Data     []byte
	// Hash is the SHA-256 hex of Data.
	Hash string
	// Changed is true when the file changed while it was read: the bytes
	// may mix two versions and must not be indexed.
	Changed bool
}

// Parse parses the bytes as OMP does. Data must not be modified after.
func (s *Source) Parse() *session.File { return session.ParseHashed(s.Path, s.Data, s.Hash) }

// ReadSource reads path, checking its identity before and after so that a
// read racing a writer is detected rather than indexed.
func ReadSource(path string) (*Source, error) { return readSourceInto(path, nil) }

// readSourceInto is ReadSource reusing buf's memory when it is large
// enough. The caller must not reuse buf while anything parsed from the
// source is still in use.
func readSourceInto(path string, buf []byte) (*Source, error) {
	f, st, err := session.OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	before, err := identityOf(st)
	if err != nil {
		return nil, err
	}
	if before.Size > session.MaxFileBytes {
		return nil, fmt.Errorf("%s is %d bytes, over the %d-byte limit", path, before.Size, int64(session.MaxFileBytes))
	}
	want := int(before.Size) + 512
	if cap(buf) < want {
		buf = make([]byte, 0, want+want/4)
	}
	data, err := session.AppendAll(f, buf[:0])
	if err != nil {
		return nil, err
	}
	after, err := StatIdentity(path)
	src := &Source{Path: path, Identity: before}
	if err != nil || after != before || int64(len(data)) != before.Size {
		src.Changed = true
	}
	src.Data = data
	// Only a session is hashed or kept: a file that passed the listing but
	// holds no session header (a stray *.jsonl, a swapped-in file) stops
	// here.
	if !session.IsSessionData(data) {
		return nil, fmt.Errorf("%w: %s", ErrNotSession, path)
	}
	sum := sha256.Sum256(src.Data)
	src.Hash = hex.EncodeToString(sum[:])
	return src, nil
}

// ErrNotSession is returned for a file that OMP would not open as a
// session (no valid header, and not blank).
var ErrNotSession = errors.New("not an OMP session file")

// built is a record with its tier data, ready to write.
type built struct {
	rec   *Record
	hot   *hotbm25.Built
	cold  []byte
	bytes int64 // source bytes read
}

// liveSignature identifies a live branch.
func liveSignature(l *lineage.Live) string {
	if l == nil {
		return ""
	}
	h := sha256.New()
	io.WriteString(h, l.LeafID)
	for _, id := range l.BranchIDs {
		io.WriteString(h, "\x00")
		io.WriteString(h, id)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// build normalizes a source into the record and tier data of tier. full
// keeps every entry's whole text in a hot shard: a hydrated cold session,
// never stored.
func (ix *Index) build(src *Source, mode lineage.Mode, tier string, live *lineage.Live, full bool) (*built, error) {
	f := src.Parse()
	sel := lineage.Select(f, mode, liveFor(mode, live))
	rec := &Record{
		CacheVersion:       bucket.CacheVersion,
		Path:               src.Path,
		Branches:           string(mode),
		Identity:           src.Identity,
		SourceHash:         f.SourceHash,
		LineageFingerprint: sel.Fingerprint,
		LiveSignature:      liveSignature(liveFor(mode, live)),
		Policy:             ix.policy.String(tier, mode),
		Tier:               tier,
		IndexedAtNs:        time.Now().UnixNano(),
	}
	if f.Header != nil {
		rec.SessionID = f.Header.ID
		rec.Cwd = f.Header.Cwd
	}
	opt := normalize.Options{IndexThinking: ix.policy.IndexThinking, IndexToolOutput: ix.policy.IndexToolOutput}
	res := normalize.Session(f, sel, opt) // full text: the cold vocabulary needs it
	rec.EntryCount = len(res.Entries)
	for i := range res.Entries {
		if ts := res.Entries[i].Timestamp; ts != nil {
			if rec.FirstTs == nil || *ts < *rec.FirstTs {
				v := *ts
				rec.FirstTs = &v
			}
			if rec.LastTs == nil || *ts > *rec.LastTs {
				v := *ts
				rec.LastTs = &v
			}
		}
	}
	b := &built{rec: rec, bytes: src.Identity.Size}
	problems := res.Problems
	if tier == Hot {
		for i := range res.Entries {
			if full {
				break
			}
			// One budget for the text and the argument rests it indexes:
			// a hot entry stays within MaxEntryChars, and a cut of either
			// makes an empty answer non-authoritative.
			if res.Entries[i].Bound(ix.policy.MaxEntryChars) {
				problems.Add(coverage.MaxEntryChars)
			}
		}
		hb, err := hotbm25.Build(res.Entries)
		if err != nil {
			return nil, err
		}
		b.hot = hb
		rec.SumLen = hb.SumLen
		rec.CacheBytes = int64(len(hb.Dict) + len(hb.Cols) + len(hb.Ents))
		rec.DataStamp, _ = blocksum.Stamp(hb.Dict, hb.Cols, hb.Ents)
	} else {
		blob, d, err := coldvocab.Build(coldvocab.Digest{
			SessionID:          rec.SessionID,
			File:               rec.Path,
			Cwd:                rec.Cwd,
			MtimeMs:            rec.MtimeMs(),
			Size:               rec.Identity.Size,
			SourceHash:         rec.SourceHash,
			Branches:           rec.Branches,
			LineageFingerprint: rec.LineageFingerprint,
			Policy:             rec.Policy,
		}, res.Entries, problems, coldvocab.Limits{
			MaxVocabularyBytes: ix.policy.MaxColdVocabularyBytes,
			MaxCacheBytes:      ix.policy.MaxColdCacheBytes,
		})
		if err != nil {
			return nil, err
		}
		b.cold = blob
		problems = coverage.Of(d.IndexCoverage.Reasons...)
		rec.CacheBytes = int64(len(blob))
		rec.DataStamp, _ = blocksum.Stamp(blob)
	}
	rec.Reasons = problems.Reasons()
	return b, nil
}

func liveFor(mode lineage.Mode, live *lineage.Live) *lineage.Live {
	if mode != lineage.Active {
		return nil
	}
	return live
}

// Built is a session read and built for one tier without touching the
// index file: the record and either the hot shard or the cold digest.
type Built struct {
	Record *Record
	Hot    *hotbm25.Built
	Cold   []byte
}

// ErrSourceUnavailable wraps the error of a session file that could not be
// read.
var ErrSourceUnavailable = errors.New("source unavailable")

// BuildSource reads and builds one session in memory, as a refresh would
// for tier (Hot or Cold), with the index's policy. Nothing is written: the
// engine uses it to answer when the index file cannot be used. A source
// that cannot be read gives ErrSourceUnavailable.
func (ix *Index) BuildSource(t Target, mode lineage.Mode, tier string) (*Built, error) {
	return ix.buildSource(t, mode, tier, false)
}

// HydrateSource reads one session into an in-memory hot shard of its full,
// untruncated entries, so that a cold session answers entry by entry; the
// record still says Cold. Nothing is written.
func (ix *Index) HydrateSource(t Target, mode lineage.Mode) (*Built, error) {
	b, err := ix.buildSource(t, mode, Hot, true)
	if err != nil {
		return nil, err
	}
	b.Record.Tier = Cold
	return b, nil
}

func (ix *Index) buildSource(t Target, mode lineage.Mode, tier string, full bool) (*Built, error) {
	src, err := ReadSource(t.Path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrSourceUnavailable, err)
	}
	b, err := ix.build(src, mode, tier, t.Live, full)
	if err != nil {
		return nil, err
	}
	if src.Changed {
		b.rec.Reasons = append(b.rec.Reasons, coverage.SourceChangedDuringIndex)
	}
	return &Built{Record: b.rec, Hot: b.hot, Cold: b.cold}, nil
}
