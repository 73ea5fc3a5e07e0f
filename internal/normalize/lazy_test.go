package normalize_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/internal/lineage"
	"github.com/memidx/memidx/internal/normalize"
	"github.com/memidx/memidx/internal/session"
)

// Lazy entries are Session's entries, one by one, wherever the plan
// applies: every OMP fixture and real file, both branch modes, the
// expansion and the indexing policies, attached to the slim read and
// detached from it.
func TestLazyMatchesSession(t *testing.T) {
	paths, _ := filepath.Glob("../../testdata/omp/*.jsonl")
	real, _ := filepath.Glob("../../../shared/testdata/real/*.jsonl")
	paths = append(paths, real...)
	lazy := 0
	for _, p := range paths {
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		f := session.Parse(p, data)
		var pl normalize.Planner
		s, err := session.ReadSlim(bytes.NewReader(data), int64(len(data)), p, pl.Tag)
		if errors.Is(err, session.ErrNeedsFullRead) {
			continue
		}
		require.NoError(t, err)
		name := filepath.Base(p)
		for _, mode := range []lineage.Mode{lineage.Active, lineage.All} {
			for i, opt := range []normalize.Options{normalize.Lossless(), normalize.DefaultOptions(), normalize.Lossless()} {
				want := normalize.Session(f, lineage.Select(f, mode, nil), opt)
				l, ok := normalize.NewLazy(s, lineage.SelectSlim(s, mode, nil), &pl, opt)
				if !ok {
					continue
				}
				// The third pass: detached from the slim read, as a
				// build holds it.
				detached := i == 2
				if detached {
					l.Detach()
				}
				lazy++
				require.Equal(t, len(want.Entries), l.Len(), name)
				for k := 0; k < l.Len(); k++ {
					off, end := l.Span(k)
					got, err := l.Entry(k, bytes.Clone(data[off:end]))
					require.NoError(t, err, "%s %d", name, k)
					w := want.Entries[k]
					if !detached {
						id, ok := l.EntryID(k)
						require.Equal(t, w.EntryID != nil, ok, "%s %d", name, k)
						if ok {
							require.Equal(t, *w.EntryID, id, "%s %d", name, k)
						}
					}
					wj, _ := json.Marshal(w)
					gj, _ := json.Marshal(got)
					require.Equal(t, string(wj), string(gj), "%s %d", name, k)
					require.Equal(t, w.Record, got.Record)
					require.Equal(t, w.Line, got.Line)
					require.Equal(t, w.ArgsCuts, got.ArgsCuts)
					require.Equal(t, w.IndexText(), got.IndexText())
				}
			}
		}
	}
	t.Logf("%d lazy plans checked", lazy)
	require.Greater(t, lazy, 100)
}
