package index

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/internal/lineage"
)

// within reports whether s's bytes lie inside p's.
func within(s, p string) bool {
	if s == "" || p == "" {
		return false
	}
	a, b := uintptr(unsafe.Pointer(unsafe.StringData(s))), uintptr(unsafe.Pointer(unsafe.StringData(p)))
	return a >= b && a+uintptr(len(s)) <= b+uintptr(len(p))
}

// A server's records of files named for their sessions (as OMP names
// them) spell their session ids in their paths, the listing's strings,
// and hold no copy of them; a file named otherwise keeps its own.
func TestRecordsCutTheirSessionIDsFromTheirPaths(t *testing.T) {
	f := newFixture(t, 0)
	ids := []string{"019d78ae-26a7-7f4c-8e01-b7790e80cbe2", "019d78ae-26a7-7f4c-8e01-b7790e80cbe3", "plain"}
	names := []string{"2026-04-10T18-36-12-327Z_" + ids[0] + ".jsonl", "2026-04-10T18-36-13-000Z_" + ids[1] + ".jsonl", "other-name.jsonl"}
	base := time.Now().Add(-time.Hour)
	for i, name := range names {
		p := filepath.Join(f.dir, name)
		require.NoError(t, os.WriteFile(p, []byte(sessionText(ids[i], "alpha beta")), 0o600))
		mt := base.Add(time.Duration(i) * time.Minute)
		require.NoError(t, os.Chtimes(p, mt, mt))
		f.paths = append(f.paths, p)
	}
	built := f.index()
	f.refresh(built, lineage.Active)
	built.Close()

	for _, archive := range []bool{false, true} {
		ix := f.index()
		ix.LongLived()
		var targets []Target
		for _, p := range f.paths {
			targets = append(targets, Target{Path: strings.Clone(p)})
		}
		pre := ix.Preload(ctx, lineage.Active)
		if archive {
			pre = ix.PreloadArchive(ctx, lineage.Active)
		}
		for call := 0; call < 2; call++ {
			rep, err := ix.Refresh(ctx, targets, RefreshOptions{Mode: lineage.Active, Searched: []string{f.dir}, Preloaded: pre})
			require.NoError(t, err)
			require.Len(t, rep.States, len(targets))
			for i, st := range rep.States {
				rec := st.Record
				require.NotNil(t, rec, names[i])
				assert.Equal(t, ids[i], rec.SessionID(), names[i])
				assert.Equal(t, i < 2, within(rec.SessionID(), rec.Path), "%s, archive %v, call %d: the id cut from the path", names[i], archive, call)
				assert.Equal(t, unsafe.StringData(targets[i].Path), unsafe.StringData(rec.Path), "%s: the target's path", names[i])
			}
			pre = nil
		}
		ix.Close()
	}
}

func TestSessionIDIn(t *testing.T) {
	for _, c := range []struct {
		p, id string
		ok    bool
	}{
		{"/s/--w--/2026-01-01T00-00-00-000Z_abc.jsonl", "abc", true},
		{"/s/--w--/x_abc.jsonl", "abc", true},
		{"/s/--w--/xabc.jsonl", "abc", false},
		{"/s/--w--/_abc.jsonl", "abc", true},
		{"/s/--w--/abc.jsonl", "abc", false},
		{"/s/--w--/x_abc.json", "abc", false},
		{"/s/--w--/x_abd.jsonl", "abc", false},
		{"/s/--w--/x_.jsonl", "", false},
	} {
		got, ok := sessionIDIn(c.p, c.id)
		assert.Equal(t, c.ok, ok, c.p)
		if ok {
			assert.Equal(t, c.id, got)
			assert.True(t, within(got, c.p), c.p)
		}
	}
}
