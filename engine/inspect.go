package engine

import (
	"context"
	"errors"

	"github.com/memidx/memidx/internal/index"
	"github.com/memidx/memidx/internal/indexfile"
	"github.com/memidx/memidx/internal/lineage"
)

// IndexRecord is one row of InspectIndex.
type IndexRecord struct {
	Path               string   `json:"path"`
	SessionID          string   `json:"sessionId"`
	Branches           string   `json:"branches"`
	Tier               string   `json:"tier"`
	SourceBytes        int64    `json:"sourceBytes"`
	CacheBytes         int64    `json:"cacheBytes"`
	CacheSourceRatio   float64  `json:"cacheSourceRatio"`
	EntryCount         int      `json:"entryCount"`
	Complete           bool     `json:"complete"`
	Reasons            []string `json:"reasons"`
	SourceHash         string   `json:"sourceHash"`
	LineageFingerprint string   `json:"lineageFingerprint"`
}

// IndexTotals sums InspectIndex.
type IndexTotals struct {
	Records          int     `json:"records"`
	Hot              int     `json:"hot"`
	Cold             int     `json:"cold"`
	SourceBytes      int64   `json:"sourceBytes"`
	CacheBytes       int64   `json:"cacheBytes"`
	HotCacheBytes    int64   `json:"hotCacheBytes"`
	ColdCacheBytes   int64   `json:"coldCacheBytes"`
	ColdSourceBytes  int64   `json:"coldSourceBytes"`
	CacheSourceRatio float64 `json:"cacheSourceRatio"`
	ColdSourceRatio  float64 `json:"coldCacheSourceRatio"`
	Incomplete       int     `json:"incomplete"`
	// LexiconBytes are the archive lexicon's segments, counted in
	// CacheBytes too (not in any record's cacheBytes).
	LexiconBytes   int64 `json:"lexiconBytes"`
	IndexFileBytes int64 `json:"indexFileBytes"`
}

// IndexReport is what the index holds.
type IndexReport struct {
	IndexDir string        `json:"indexDir"`
	Records  []IndexRecord `json:"records"`
	Totals   IndexTotals   `json:"totals"`
	// Storage, when asked for, is where the bytes of the index file go.
	Storage *IndexStorage `json:"storage,omitempty"`
}

// IndexStorage is where the bytes of the index file go: by top-level
// bucket (records, hot shards, cold digests, lexicon, roster, meta); the
// rest of UsedBytes (the file's pages up to the highest in use) is free
// pages, the freelist and the meta pages.
type IndexStorage struct {
	Buckets   []BucketStorage `json:"buckets"`
	UsedBytes int64           `json:"usedBytes"`
	PageSize  int             `json:"pageSize"`
}

// BucketStorage is one top-level bucket: its values and nested buckets,
// their key and value bytes (ChecksumBytes of the values are block
// checksums), and the pages that hold them (PageBytes allocated, of which
// InuseBytes are used; an inline bucket lives in its parent's page and
// has none).
type BucketStorage struct {
	Name          string `json:"name"`
	Values        int    `json:"values"`
	Buckets       int    `json:"buckets"`
	KeyBytes      int64  `json:"keyBytes"`
	ValueBytes    int64  `json:"valueBytes"`
	ChecksumBytes int64  `json:"checksumBytes"`
	PageBytes     int64  `json:"pageBytes"`
	InuseBytes    int64  `json:"inuseBytes"`
}

func storageOf(u *index.Usage) *IndexStorage {
	s := &IndexStorage{Buckets: make([]BucketStorage, len(u.Buckets)), UsedBytes: u.UsedBytes, PageSize: u.PageSize}
	for i, b := range u.Buckets {
		s.Buckets[i] = BucketStorage(b)
	}
	return s
}

func ratio(a, b int64) float64 {
	if b == 0 {
		return 0
	}
	return float64(int64(float64(a)/float64(b)*1e6+0.5)) / 1e6
}

// InspectIndex lists every record of both branch modes. It reads the index
// only; nothing is refreshed.
func (e *Engine) InspectIndex(ctx context.Context) (*IndexReport, error) {
	return guard(e, ctx, e.inspectIndex)
}

// InspectIndexStorage is InspectIndex with Storage: where the bytes of
// the index file go, by bucket and kind. It reads (and verifies) every
// value of the file.
func (e *Engine) InspectIndexStorage(ctx context.Context) (*IndexReport, error) {
	return guard(e, ctx, func(ctx context.Context) (*IndexReport, error) {
		rep, err := e.inspectIndex(ctx)
		if err != nil {
			return nil, err
		}
		u, err := e.ix.Usage(ctx)
		if err != nil {
			return nil, err
		}
		rep.Storage = storageOf(u)
		return rep, nil
	})
}

func (e *Engine) inspectIndex(ctx context.Context) (*IndexReport, error) {
	rep := &IndexReport{IndexDir: e.cfg.IndexDir, Records: []IndexRecord{}}
	t := &rep.Totals
	for _, mode := range []lineage.Mode{lineage.Active, lineage.All} {
		err := e.ix.View(ctx, mode, func(r *index.Reader) error {
			recs, err := r.Records()
			if err != nil {
				return err
			}
			lex := r.LexiconBytes()
			t.LexiconBytes += lex
			t.CacheBytes += lex
			for _, rec := range recs {
				row := IndexRecord{
					Path: rec.Path, SessionID: rec.SessionID(), Branches: rec.Branches.String(), Tier: rec.Tier.String(),
					SourceBytes: rec.Identity.Size, CacheBytes: rec.CacheBytes(), EntryCount: int(rec.EntryCount),
					Complete: rec.Complete(), Reasons: rec.Reasons(), SourceHash: rec.SourceHash.String(),
					LineageFingerprint: rec.LineageFingerprint().String(),
				}
				if row.Reasons == nil {
					row.Reasons = []string{}
				}
				row.CacheSourceRatio = ratio(row.CacheBytes, row.SourceBytes)
				rep.Records = append(rep.Records, row)
				t.Records++
				t.SourceBytes += row.SourceBytes
				t.CacheBytes += row.CacheBytes
				if rec.Tier == index.Hot {
					t.Hot++
					t.HotCacheBytes += row.CacheBytes
				} else {
					t.Cold++
					t.ColdCacheBytes += row.CacheBytes
					t.ColdSourceBytes += row.SourceBytes
				}
				if !row.Complete {
					t.Incomplete++
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	t.CacheSourceRatio = ratio(t.CacheBytes, t.SourceBytes)
	t.ColdSourceRatio = ratio(t.ColdCacheBytes, t.ColdSourceBytes)
	if st, err := statSize(e.ix.Store().Path()); err == nil {
		t.IndexFileBytes = st
	}
	return rep, nil
}

// SessionReport describes one session's record after a refresh.
type SessionReport struct {
	Record   *SessionRecord `json:"record"`
	Path     string         `json:"path"`
	Size     int64          `json:"sourceBytes"`
	Digest   *SessionDigest `json:"digest,omitempty"`
	Shard    *ShardSummary  `json:"shard,omitempty"`
	Coverage Coverage       `json:"coverage"`
}

// ShardSummary describes a hot shard.
type ShardSummary struct {
	Entries   int   `json:"entries"`
	Terms     int   `json:"terms"`
	DictBytes int64 `json:"cacheBytes"`
}

// InspectSession refreshes one session (session:<id-or-path>) and
// describes its record with its digest or shard summary. It recovers as a
// recall does (index.Acquire): tier data rewritten by another process
// between the refresh and the read is read again after a new refresh;
// damaged tier data is dropped and rebuilt, a damaged index file reset
// (the coverage then says index_reset). A session the refresh built in
// memory (the index busy or unwritable) is described from that build; an
// index that turns busy or unreadable after the refresh leaves the summary
// out and says why in the coverage.
func (e *Engine) InspectSession(ctx context.Context, target, branches string) (*SessionReport, error) {
	return guard(e, ctx, func(ctx context.Context) (*SessionReport, error) { return e.inspectSession(ctx, target, branches) })
}

func (e *Engine) inspectSession(ctx context.Context, target, branches string) (*SessionReport, error) {
	mode, err := lineage.ParseMode(branches)
	if err != nil {
		return nil, err
	}
	r, err := e.resolve("session:"+target, mode)
	if err != nil {
		return nil, err
	}
	var d index.Description
	last, reasons, err := e.ix.Acquire(ctx, e.need(r, false), d.Describe)
	var out *SessionReport
	if last != nil {
		out = sessionHead(last)
		// Only the last try's own description answers (an earlier try's
		// describes a record since dropped).
		if d.View == last {
			describedBy(out, &d)
		}
	}
	if out == nil {
		return nil, err
	}
	switch {
	case errors.Is(err, indexfile.ErrLocked):
		reasons, err = append(reasons, index.IndexBusy), nil
	case errors.Is(err, indexfile.ErrUnreadable):
		reasons, err = append(reasons, index.IndexUnreadable), nil
	}
	markIncomplete(&out.Coverage.Reasons, &out.Coverage.Complete, reasons...)
	return out, err
}

// sessionHead is the report of the one session of v, without the
// summary of its tier data.
func sessionHead(v *index.View) *SessionReport {
	out := &SessionReport{Coverage: indexCoverage(v.Coverage())}
	if v.Len() == 0 {
		return out
	}
	st := v.State(0)
	out.Path = st.Path
	if rec := st.Record; rec != nil {
		out.Record = recordOf(rec)
		out.Size = rec.Identity.Size
	}
	return out
}

// describedBy sets out's summary of the session's tier data from d.
func describedBy(out *SessionReport, d *index.Description) {
	if d.Digest != nil {
		out.Digest = digestOf(d.Digest)
	}
	if s := d.Shard; s != nil {
		out.Shard = &ShardSummary{Entries: s.Entries, Terms: s.Terms, DictBytes: d.View.Record(0).CacheBytes()}
	}
}
