package lineage_test

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/internal/jsjson"
	"github.com/memidx/memidx/internal/lineage"
	"github.com/memidx/memidx/internal/session"
)

// The slim reader keeps records as spans and ids; wherever it does not
// hand the file to the full reader it must agree with it exactly: records,
// ids after migration, header, and both selections with their
// fingerprints. Every OMP fixture and real file is read whole and one byte
// at a time (every window boundary).
func TestSlimMatchesParse(t *testing.T) {
	paths, _ := filepath.Glob("../../testdata/omp/*.jsonl")
	real, _ := filepath.Glob("../../../shared/testdata/real/*.jsonl")
	paths = append(paths, real...)
	require.NotEmpty(t, paths)
	fast := 0
	for _, p := range paths {
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		full := session.Parse(p, data)
		for _, c := range []struct{ one, stream bool }{{false, false}, {true, false}, {false, true}, {true, true}} {
			f := full
			if c.stream {
				f = session.ParseWith(p, data, full.SourceHash, session.Options{Stream: true})
			}
			one := c.one
			var r = bytes.NewReader(data)
			var rd interface{ Read([]byte) (int, error) } = r
			if one {
				rd = iotest.OneByteReader(r)
			}
			var tags []string
			s, err := session.ReadSlimWith(rd, int64(len(data)), p, func(rec int, typ string, v jsjson.Value) uint8 {
				tags = append(tags, jsjson.Stringify(v))
				return uint8(rec)
			}, session.Options{Stream: c.stream})
			if errors.Is(err, session.ErrNeedsFullRead) {
				continue
			}
			require.NoError(t, err, p)
			if !one && !c.stream {
				fast++
			}
			name := filepath.Base(p)
			require.Equal(t, f.SourceHash, s.SourceHash, name)
			require.Equal(t, f.Size, s.Size, name)
			require.Equal(t, f.Title, s.Title, name)
			require.NotNil(t, f.Header, name)
			require.Equal(t, jsjson.Stringify(f.Header.Value), jsjson.Stringify(s.Header.Value), name)
			hf, hs := *f.Header, *s.Header
			hf.Value, hs.Value = jsjson.Value{}, jsjson.Value{}
			if math.IsNaN(hf.Version) && math.IsNaN(hs.Version) {
				hf.Version, hs.Version = 0, 0
			}
			require.Equal(t, hf, hs, name)
			require.Equal(t, f.Migrated, s.Migrated, name)
			require.Equal(t, f.LegacyHookMessages(), s.LegacyHookMessages(), name)
			require.Len(t, s.Records, len(f.Records), name)
			for i := range f.Records {
				a, b := &f.Records[i], &s.Records[i]
				require.Equal(t, a.Offset, b.Offset, "%s %d", name, i)
				require.Equal(t, a.End, b.End, "%s %d", name, i)
				require.Equal(t, a.Line, int(b.Line), "%s %d", name, i)
				require.Equal(t, a.ID, b.ID, "%s %d", name, i)
				require.Equal(t, a.Parent, b.Parent, "%s %d", name, i)
				require.Equal(t, a.HasParentKey, b.HasParentKey(), "%s %d", name, i)
				require.Equal(t, uint8(i), b.Tag, "%s %d", name, i)
				require.Equal(t, jsjson.Stringify(a.Value), tags[i], "%s %d", name, i)
				require.Equal(t, jsjson.Stringify(a.IDValue()), jsjson.Stringify(b.IDValue()), "%s %d", name, i)
			}
			for _, mode := range []lineage.Mode{lineage.Active, lineage.All} {
				want, got := lineage.Select(f, mode, nil), lineage.SelectSlim(s, mode, nil)
				require.Equal(t, want.Indexes, got.Indexes, name)
				require.Equal(t, want.Fingerprint, got.Fingerprint, name)
				require.Equal(t, want.LeafIndex, got.LeafIndex, name)
				require.Equal(t, want.Problems.Reasons(), got.Problems.Reasons(), name)
				require.Equal(t, jsjson.Stringify(want.LeafID), jsjson.Stringify(got.LeafID), name)
			}
			live := &lineage.Live{LeafID: "x", BranchIDs: []string{"a", "b"}}
			if len(f.Records) > 1 {
				if id, ok := f.Records[1].ID.String(); ok {
					live.BranchIDs = append(live.BranchIDs, id)
				}
			}
			want, got := lineage.Select(f, lineage.Active, live), lineage.SelectSlim(s, lineage.Active, live)
			require.Equal(t, want, got, name)
		}
	}
	t.Logf("%d of %d files read slim", fast, len(paths))
	require.Greater(t, fast, len(paths)/3, "the fast path covers the usual files")
}
