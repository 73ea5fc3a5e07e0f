package evalset

import (
	"context"
	"math"

	"github.com/memidx/memidx/engine"
)

// Options are the recall arguments every question is asked with. The
// strings are passed to the engine as given, so a mode the engine does not
// know is its invalid_request.
type Options struct {
	Mode     engine.QueryMode
	Match    engine.QueryMatch
	Branches engine.Branches
	Scope    engine.Scope
	PageSize int
	// WeakBelow, when set, is the queryCoverage under which a page counts
	// as "no evidence" for the answerability counts; nil takes the pages'
	// weakMatch (the configured weakMatchBelow).
	WeakBelow *float64
}

// TopHits is how many hits a result keeps for a miss's report.
const TopHits = 3

// Result is one question's outcome.
type Result struct {
	Line  int    `json:"line"`
	ID    string `json:"id,omitempty"`
	Query string `json:"query"`
	Kind  string `json:"kind"`
	Ranks Ranks  `json:"ranks"`
	Hits  int    `json:"hits"`
	// QueryCoverage is the page's, when the engine reports one.
	QueryCoverage *float64 `json:"queryCoverage,omitempty"`
	// WeakMatch is the page's: under the configured weakMatchBelow.
	WeakMatch bool  `json:"weakMatch,omitempty"`
	Top       []Top `json:"top,omitempty"`
}

// Top is one of a result's first hits.
type Top struct {
	SessionID string  `json:"sessionId"`
	EntryID   string  `json:"entryId,omitempty"`
	Index     int     `json:"index"`
	Kind      string  `json:"kind"`
	Score     float64 `json:"score"`
	Snippet   string  `json:"snippet,omitempty"`
}

// Run asks every question of qs through e and ranks the answers. A page
// that answers with an error (an unknown mode, a bad regex) ends the run
// with that error: every later question would fail alike.
func Run(ctx context.Context, e *engine.Engine, qs []Question, opt Options) (*Report, error) {
	eps := newEpisodeMap(e, opt.Branches)
	results := make([]Result, 0, len(qs))
	for _, q := range qs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		r, err := ask(ctx, e, eps, q, opt)
		if err != nil {
			return nil, err
		}
		results = append(results, r)
	}
	return NewReport(opt, results), nil
}

func ask(ctx context.Context, e *engine.Engine, eps *episodeMap, q Question, opt Options) (Result, error) {
	res := Result{Line: q.Line, ID: q.ID, Query: q.Query, Kind: kindName(q.Kind())}
	if q.Kind() == Unlabelled {
		return res, nil
	}
	page, err := e.Recall(ctx, engine.RecallRequest{
		Query: q.Query, QueryMode: opt.Mode, QueryMatch: opt.Match,
		Branches: opt.Branches, Scope: opt.Scope, PageSize: opt.PageSize,
	})
	if err != nil {
		return res, err
	}
	if err := page.Err(); err != nil {
		return res, err
	}
	hits, err := hitRefs(ctx, eps, q, page)
	if err != nil {
		return res, err
	}
	res.Ranks = Rank(q, hits)
	res.Hits = len(hits)
	res.QueryCoverage = pageCoverage(page)
	res.WeakMatch = page.WeakMatch
	for i, h := range page.Hits {
		if i == TopHits {
			break
		}
		res.Top = append(res.Top, top(h))
	}
	return res, nil
}

// hitRefs are the page's hits as ranking sees them; the episodes are
// looked up only for a question labelled by episodes.
func hitRefs(ctx context.Context, eps *episodeMap, q Question, page *engine.RecallPage) ([]HitRef, error) {
	out := make([]HitRef, 0, len(page.Hits))
	for _, h := range page.Hits {
		if h.Session != nil {
			out = append(out, HitRef{SessionID: h.Session.SessionID, Episode: -1})
			continue
		}
		en := h.Entry
		ref := HitRef{SessionID: en.SessionID, Entry: true, EntryID: deref(en.EntryID), Index: en.Index, Episode: -1}
		if len(q.Episodes) > 0 && matchesSession(q, en.SessionID) {
			ep, err := eps.episode(ctx, en.SessionID, ref.EntryID, en.Index)
			if err != nil {
				return nil, err
			}
			ref.Episode = ep
		}
		out = append(out, ref)
	}
	return out, nil
}

func top(h engine.Hit) Top {
	if h.Session != nil {
		return Top{SessionID: h.Session.SessionID, Kind: "session", Score: h.Session.Score}
	}
	en := h.Entry
	return Top{SessionID: en.SessionID, EntryID: deref(en.EntryID), Index: en.Index, Kind: "entry", Score: en.Score, Snippet: en.Snippet}
}

// pageCoverage is the page's queryCoverage, nil where its mode has none.
func pageCoverage(page *engine.RecallPage) *float64 {
	if c := page.QueryCoverage; c != nil && !math.IsNaN(*c) {
		return c
	}
	return nil
}

func kindName(k Kind) string {
	switch k {
	case Abstain:
		return "abstain"
	case Unlabelled:
		return "unlabelled"
	}
	return "answerable"
}
