package index

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/internal/analyzer/natural"
	"github.com/memidx/memidx/internal/lineage"
)

// A stem's lookup in the lexicon finds the docs of its forms; the scans of
// one lexicon read share a budget, past which a stem finds only itself and
// StemScanCut says so.
func TestLexiconStemDocs(t *testing.T) {
	f := newFixture(t, 12)
	words := []string{"deploy", "deployed", "deployment", "deployments", "timeout", "timeouts", "timed",
		"time", "publish", "published", "publishing", "flaky", "flakiness", "capability", "capable",
		"hoping", "hope", "running", "runs", "the", "did", "v2", "parse_config"}
	for i, p := range f.paths {
		var text []string
		for j := range 6 {
			text = append(text, words[(i*5+j*3)%len(words)])
		}
		require.NoError(t, os.WriteFile(p, []byte(sessionText(fmt.Sprintf("s%d", i), strings.Join(text, " "))), 0o600))
	}
	ix := f.index()
	t.Cleanup(func() { ix.Close() })
	f.refresh(ix, lineage.Active)
	read := func(fn func(l *Lexicon)) {
		require.NoError(t, ix.View(ctx, lineage.Active, func(r *Reader) error {
			l, err := r.Lexicon()
			require.NoError(t, err)
			require.NotNil(t, l)
			fn(l)
			return nil
		}))
	}
	var terms []string
	read(func(l *Lexicon) {
		for _, s := range l.segs {
			require.NoError(t, s.EachKey(func(k []byte) {
				if natural.Stemmable(string(k)) {
					terms = append(terms, string(k))
				}
			}))
		}
	})
	require.NotEmpty(t, terms)
	// A brute-force union over every term whose stem is the stem's.
	want := func(l *Lexicon, stem string) map[uint32]bool {
		m := map[uint32]bool{}
		for _, tm := range terms {
			if st, ok := natural.Term(tm); ok && st == stem {
				docs, err := l.Docs(nil, tm)
				require.NoError(t, err)
				for _, d := range docs {
					m[d] = true
				}
			}
		}
		return m
	}
	checked := 0
	read(func(l *Lexicon) {
		for _, tm := range terms[:min(len(terms), 200)] {
			st, _ := natural.Term(tm)
			docs, err := l.Docs(nil, natural.Key(st))
			require.NoError(t, err)
			got := map[uint32]bool{}
			for _, d := range docs {
				assert.False(t, got[d], "doc %d twice for %q", d, st)
				got[d] = true
			}
			assert.Equal(t, want(l, st), got, "stem %q", st)
			checked++
		}
		assert.False(t, l.StemScanCut)
	})
	require.Positive(t, checked)

	old := maxStemScan
	maxStemScan = 3
	defer func() { maxStemScan = old }()
	read(func(l *Lexicon) {
		for _, tm := range terms[:min(len(terms), 50)] {
			st, _ := natural.Term(tm)
			_, err := l.Docs(nil, natural.Key(st))
			require.NoError(t, err)
		}
		assert.True(t, l.StemScanCut, "50 stems scan more than 3 keys (scanned %d, %v)", l.scanned, terms[:5])
		assert.LessOrEqual(t, l.scanned, maxStemScan+len(l.segs), "the scans stop at the budget")
	})
}
