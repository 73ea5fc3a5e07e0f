package engine_test

import (
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/engine"
)

// naturalWorld is one hot session of four entries and, with cold set,
// a second session kept cold.
func naturalWorld(t *testing.T, cold bool) *world {
	w := newWorld(t)
	w.write("s-hot",
		msgLine("u1", "", ts, user("When did the deploys start timing out?")),
		msgLine("a1", "u1", ts, assistant("The deployment timed out after the registry returned 429.")),
		msgLine("u2", "a1", ts, user("how do we publish the package")),
		msgLine("a2", "u2", ts, assistant("Publishing needs npm provenance; run npm publish with the token.")),
	)
	if cold {
		w.cfg.HotSessions = 1
		w.write("s-newer", msgLine("u1", "", ts, user("unrelated pelican work")))
	}
	return w
}

// idf is Lucene's BM25 idf, written out again: n entries, df of them hold
// the term.
func idf(n, df float64) float64 { return math.Log(1 + (n-df+0.5)/(df+0.5)) }

func coverageOf(h engine.Hit) *float64 {
	if h.Entry != nil {
		return h.Entry.QueryCoverage
	}
	return h.Session.QueryCoverage
}

func TestNaturalMode(t *testing.T) {
	w := naturalWorld(t, false)
	e := w.engine()
	lit := recall(t, e, engine.RecallRequest{Query: "deploys timing", Scope: "project"})
	require.NotEmpty(t, lit.Hits)
	assert.Equal(t, "u1", *lit.Hits[0].Entry.EntryID, "literal finds only the words themselves")
	assert.Equal(t, 1, lit.Total)

	nat := recall(t, e, engine.RecallRequest{Query: "when were the deployments timing out", QueryMode: engine.ModeNatural, Scope: "project"})
	require.Len(t, nat.Hits, 2, "stems find deploys/deployment and timing/timed; stop words find nothing")
	ids := []string{*nat.Hits[0].Entry.EntryID, *nat.Hits[1].Entry.EntryID}
	assert.ElementsMatch(t, []string{"u1", "a1"}, ids)
	assert.True(t, nat.Coverage.Complete)

	pub := recall(t, e, engine.RecallRequest{Query: "How did we publish it?", QueryMode: engine.ModeNatural, Scope: "project"})
	require.NotEmpty(t, pub.Hits)
	for _, h := range pub.Hits {
		assert.Contains(t, []string{"u2", "a2"}, *h.Entry.EntryID)
	}

	only := recall(t, e, engine.RecallRequest{Query: "how was it?", QueryMode: engine.ModeNatural, Scope: "project"})
	assert.Equal(t, recall(t, e, engine.RecallRequest{Query: "how was it?", Scope: "project"}).Total, only.Total,
		"a query of stop words alone is a literal one")

	bad := recall(t, e, engine.RecallRequest{Query: "x", QueryMode: engine.ModeNatural, QueryMatch: engine.MatchAll, Scope: "project"})
	require.NotNil(t, bad.Error)
	assert.Equal(t, "invalid_request", bad.Error.Code)
}

func TestNaturalModeColdSessions(t *testing.T) {
	w := naturalWorld(t, true)
	p := recall(t, w.engine(), engine.RecallRequest{Query: "deployed", QueryMode: engine.ModeNatural, Scope: "project"})
	require.Len(t, p.Hits, 1)
	sh := p.Hits[0].Session
	require.NotNil(t, sh, "the cold session holds deploys and deployment, forms of deploy")
	assert.Equal(t, 1, sh.MatchedTerms, "one query term, its stem")
	lit := recall(t, w.engine(), engine.RecallRequest{Query: "deployed", Scope: "project"})
	assert.Zero(t, lit.Total, "literal mode has no stems")
}

// queryCoverage, mode by mode: the share of the query terms' idf mass a
// hit holds (the stems', for natural), 1 for a verified phrase, absent
// for regex and browsing.
func TestQueryCoverage(t *testing.T) {
	const n = 4 // entries in the scope
	// "the" is in every entry, "registry" in one.
	stopShare := idf(n, 4) / (idf(n, 4) + idf(n, 1))
	for _, c := range []struct {
		name string
		req  engine.RecallRequest
		want map[string]float64 // by entry id; nil: no field
	}{
		{"literal, all held", engine.RecallRequest{Query: "registry 429"}, map[string]float64{"a1": 1}},
		{"literal, part held", engine.RecallRequest{Query: "registry kubernetes"},
			map[string]float64{"a1": idf(n, 1) / (idf(n, 1) + idf(n, 0))}},
		{"literal, stop words count", engine.RecallRequest{Query: "the registry"},
			map[string]float64{"a1": 1, "u1": stopShare, "u2": stopShare, "a2": stopShare}},
		{"natural, stems", engine.RecallRequest{Query: "when did the deployments time out", QueryMode: engine.ModeNatural},
			map[string]float64{"u1": 1, "a1": 1}},
		{"natural, part held", engine.RecallRequest{Query: "deployments to kubernetes", QueryMode: engine.ModeNatural},
			map[string]float64{"u1": idf(n, 2) / (idf(n, 2) + idf(n, 0)), "a1": idf(n, 2) / (idf(n, 2) + idf(n, 0))}},
		{"phrase", engine.RecallRequest{Query: "registry returned", QueryMode: engine.ModePhrase}, map[string]float64{"a1": 1}},
		{"regex", engine.RecallRequest{Query: "regis.ry", QueryMode: engine.ModeRegex}, nil},
		{"browse", engine.RecallRequest{Role: "assistant"}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := naturalWorld(t, false)
			c.req.Scope = "project"
			p := recall(t, w.engine(), c.req)
			require.NotEmpty(t, p.Hits)
			if c.want == nil {
				assert.Nil(t, p.QueryCoverage)
				for _, h := range p.Hits {
					assert.Nil(t, coverageOf(h))
				}
				return
			}
			got := map[string]float64{}
			best := 0.0
			for _, h := range p.Hits {
				qc := coverageOf(h)
				require.NotNil(t, qc)
				got[*h.Entry.EntryID] = *qc
				best = max(best, *qc)
			}
			require.Len(t, got, len(c.want))
			for id, want := range c.want {
				assert.InDelta(t, want, got[id], 1e-4, id)
			}
			require.NotNil(t, p.QueryCoverage)
			assert.Equal(t, best, *p.QueryCoverage, "the page's is its best hit's")
		})
	}
}

// A page under weakMatchBelow says weakMatch; the threshold is the
// configuration's.
func TestWeakMatch(t *testing.T) {
	for _, c := range []struct {
		below float64
		query string
		weak  bool
	}{
		{0.5, "registry 429", false},
		{0.5, "registry kubernetes helm", true},
		{0.1, "registry kubernetes helm", false},
		{1, "registry 429", false},
	} {
		w := naturalWorld(t, false)
		w.cfg.WeakMatchBelow = c.below
		p := recall(t, w.engine(), engine.RecallRequest{Query: c.query, QueryMode: engine.ModeNatural, Scope: "project"})
		require.NotNil(t, p.QueryCoverage, c.query)
		assert.Equal(t, c.weak, p.WeakMatch, "%s under %v: coverage %v", c.query, c.below, *p.QueryCoverage)
	}
}

// context.next makes an entry hit carry the entries after it, in its
// page's next token and in its follow.
func TestRecallContextNext(t *testing.T) {
	w := naturalWorld(t, false)
	e := w.engine()
	req := engine.RecallRequest{Query: "how do we publish the package", QueryMode: engine.ModeNatural, Scope: "project",
		PageSize: 1, Context: &engine.RecallContext{Next: 1}}
	p := recall(t, e, req)
	require.Len(t, p.Hits, 1)
	h := p.Hits[0].Entry
	require.Equal(t, "u2", *h.EntryID, "the question ranks first")
	require.NotNil(t, h.Context)
	require.Len(t, h.Context.Next, 1)
	next := h.Context.Next[0]
	assert.Equal(t, 3, next.Index)
	assert.Equal(t, "a2", *next.EntryID)
	assert.Equal(t, "assistant", *next.Role)
	assert.Contains(t, next.Snippet, "npm provenance", "the answer is in the context")

	r, err := e.Call(ctx, h.Follow)
	require.NoError(t, err)
	require.Nil(t, r.Expand.Error)
	require.Len(t, r.Expand.Entries, 2, "the follow expands the hit and its context")
	assert.Equal(t, 3, r.Expand.Entries[1].Index)

	require.NotNil(t, p.Next)
	r, err = e.Call(ctx, *p.Next)
	require.NoError(t, err)
	require.NotEmpty(t, r.Recall.Hits)
	assert.NotNil(t, r.Recall.Hits[0].Entry.Context, "the next page keeps the context")

	last := recall(t, e, engine.RecallRequest{Query: "Publishing needs npm provenance", Scope: "project", Context: &engine.RecallContext{Next: 3}})
	require.NotEmpty(t, last.Hits)
	assert.Empty(t, last.Hits[0].Entry.Context.Next, "the session's last entry has none after it")

	// Within an entryRange, the context stays inside it too.
	ranged := recall(t, e, engine.RecallRequest{Query: "publish", Scope: "session:s-hot",
		EntryRange: &engine.Range{First: 0, Last: 2}, Context: &engine.RecallContext{Next: 3}})
	require.NotEmpty(t, ranged.Hits)
	for _, h := range ranged.Hits {
		for _, c := range h.Entry.Context.Next {
			assert.LessOrEqual(t, c.Index, 2, "context past the entry range")
		}
	}

	none := recall(t, e, engine.RecallRequest{Query: "publish", Scope: "project"})
	assert.Nil(t, none.Hits[0].Entry.Context, "no context unless asked")
	for _, n := range []int{-1, 4} {
		bad := recall(t, e, engine.RecallRequest{Query: "publish", Scope: "project", Context: &engine.RecallContext{Next: n}})
		require.NotNil(t, bad.Error, n)
		assert.Equal(t, "invalid_request", bad.Error.Code)
	}
}

// A natural hit found through a form of a stem is anchored on that form,
// as a literal hit is on its term.
func TestNaturalSnippetAnchorsOnForms(t *testing.T) {
	w := newWorld(t)
	pad := strings.Repeat("lorem ipsum dolor sit amet ", 40)
	w.write("s", msgLine("u1", "", ts, user(pad+"the deployment to production broke")))
	e := w.engine()
	lit := recall(t, e, engine.RecallRequest{Query: "deployment", Scope: "project"})
	require.Len(t, lit.Hits, 1)
	assert.Contains(t, lit.Hits[0].Entry.Snippet, "deployment", "literal anchors on the term")
	nat := recall(t, e, engine.RecallRequest{Query: "when was it deployed", QueryMode: engine.ModeNatural, Scope: "project"})
	require.Len(t, nat.Hits, 1)
	assert.Contains(t, nat.Hits[0].Entry.Snippet, "deployment", "natural anchors on the stem's form")
}

// An unknown key inside an object argument is named with its path.
func TestNestedUnknownArgument(t *testing.T) {
	for in, want := range map[string]string{
		`{"query":"x","context":{"prev":1}}`:                                 `unknown argument "context.prev"; valid arguments of context: next`,
		`{"query":"x","scope":"session:s","entryRange":{"first":0,"lst":1}}`: `unknown argument "entryRange.lst"; valid arguments of entryRange: first, last`,
	} {
		_, eo := engine.DecodeRecall([]byte(in))
		require.NotNil(t, eo, in)
		assert.Equal(t, "invalid_request", eo.Code)
		assert.Equal(t, want, eo.Message)
	}
	r, eo := engine.DecodeRecall([]byte(`{"query":"x","context":{"next":2}}`))
	require.Nil(t, eo)
	assert.Equal(t, 2, r.Context.Next)
}
