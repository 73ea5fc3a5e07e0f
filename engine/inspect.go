package engine

import (
	"context"

	"github.com/memidx/memidx/coldvocab"
	"github.com/memidx/memidx/index"
	"github.com/memidx/memidx/lineage"
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
					Path: rec.Path, SessionID: rec.SessionID, Branches: rec.Branches, Tier: rec.Tier,
					SourceBytes: rec.Identity.Size, CacheBytes: rec.CacheBytes, EntryCount: rec.EntryCount,
					Complete: rec.Complete(), Reasons: rec.Reasons, SourceHash: rec.SourceHash,
					LineageFingerprint: rec.LineageFingerprint,
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
	Record   *index.Record     `json:"record"`
	Path     string            `json:"path"`
	Size     int64             `json:"sourceBytes"`
	Digest   *coldvocab.Digest `json:"digest,omitempty"`
	Shard    *ShardSummary     `json:"shard,omitempty"`
	Coverage index.Coverage    `json:"coverage"`
}

// ShardSummary describes a hot shard.
type ShardSummary struct {
	Entries   int   `json:"entries"`
	Terms     int   `json:"terms"`
	DictBytes int64 `json:"cacheBytes"`
}

// InspectSession refreshes one session (session:<id-or-path>) and
// describes its record with its digest or shard summary.
func (e *Engine) InspectSession(ctx context.Context, target, branches string) (*SessionReport, error) {
	mode, err := lineage.ParseMode(branches)
	if err != nil {
		return nil, err
	}
	r, err := e.resolve("session:"+target, mode)
	if err != nil {
		return nil, err
	}
	rep, err := e.refresh(ctx, r, false, nil)
	if err != nil {
		return nil, err
	}
	out := &SessionReport{Coverage: rep.Coverage}
	if len(rep.States) == 0 {
		return out, nil
	}
	st := rep.States[0]
	out.Path = st.Path
	if st.Record == nil {
		return out, nil
	}
	rec := *st.Record // a copy: the wire form gets [] for no reasons
	if rec.Reasons == nil {
		rec.Reasons = []string{}
	}
	out.Record = &rec
	out.Size = st.Record.Identity.Size
	err = e.ix.View(ctx, mode, func(rd *index.Reader) error {
		if st.Record.Tier == index.Hot {
			s, err := rd.Shard(st.Record)
			if err != nil {
				return err
			}
			out.Shard = &ShardSummary{Entries: s.Len(), Terms: s.Terms().Len(), DictBytes: st.Record.CacheBytes}
			return nil
		}
		blob, _, err := rd.Digest(st.Record)
		if err != nil {
			return err
		}
		d, err := coldvocab.Decode(blob)
		if err != nil {
			return err
		}
		out.Digest = d
		return nil
	})
	return out, err
}
