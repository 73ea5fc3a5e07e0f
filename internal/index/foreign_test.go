package index

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	bolt "go.etcd.io/bbolt"

	"github.com/memidx/memidx/internal/indexfile"
	"github.com/memidx/memidx/internal/lineage"
)

// An index.db that is not memidx's is never written nor deleted: every
// refresh builds from the sources (the states keep the builds, for the
// caller to answer from) and says so, naming the file.
func TestRefresh_ForeignFileIsLeftAlone(t *testing.T) {
	for _, c := range []struct {
		name string
		make func(t *testing.T, path string)
	}{
		{"garbage", func(t *testing.T, p string) {
			require.NoError(t, os.WriteFile(p, bytes.Repeat([]byte("garbage!"), 1000), 0o600))
		}},
		{"sqlite", func(t *testing.T, p string) {
			require.NoError(t, os.WriteFile(p, append([]byte("SQLite format 3\x00"), make([]byte, 4080)...), 0o644))
		}},
		{"another program's bbolt file", func(t *testing.T, p string) {
			db, err := bolt.Open(p, 0o600, nil)
			require.NoError(t, err)
			require.NoError(t, db.Update(func(tx *bolt.Tx) error {
				b, err := tx.CreateBucket([]byte("config"))
				if err != nil {
					return err
				}
				return b.Put([]byte("k"), []byte("v"))
			}))
			require.NoError(t, db.Close())
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture(t, 3)
			ix := f.index()
			require.NoError(t, os.MkdirAll(f.cfg.IndexDir, 0o755))
			path := ix.Store().Path()
			c.make(t, path)
			old := time.Now().Add(-time.Hour).Truncate(time.Second)
			require.NoError(t, os.Chtimes(path, old, old))
			before := fileDigest(t, path)

			for i := 0; i < 2; i++ {
				var targets []Target
				for _, p := range f.paths {
					targets = append(targets, Target{Path: p})
				}
				rep, err := ix.Refresh(ctx, targets, RefreshOptions{Mode: lineage.Active, Searched: []string{f.dir}, NoBudgets: i == 1})
				require.NoError(t, err)
				if i == 1 {
					// A rebuild keeps no builds: what the file did not
					// take is not indexed, and says why.
					assert.Zero(t, rep.Rebuilt)
					assert.Zero(t, rep.Indexed)
					for _, st := range rep.States {
						assert.Nil(t, st.Record, st.Path)
						assert.Equal(t, IndexForeignFile, st.Reason(), st.Path)
						assert.Contains(t, st.Detail(), path)
					}
				} else {
					assert.Equal(t, 3, rep.Rebuilt)
				}
				assert.Contains(t, rep.Coverage.Reasons, IndexForeignFile)
				assert.NotContains(t, rep.Coverage.Reasons, IndexReset)
				assert.False(t, rep.Coverage.Complete)
				require.NotNil(t, rep.Coverage.Error)
				assert.Equal(t, IndexForeignFile, rep.Coverage.Error.Code)
				assert.Contains(t, rep.Coverage.Error.Message, path)
				if i == 0 {
					for _, st := range rep.States {
						assert.NotNil(t, st.Built(), "%s: the build answers the call", st.Path)
					}
				}
			}
			assert.Equal(t, before, fileDigest(t, path), "the file is unchanged")
			assert.False(t, ix.ResetIfDamaged(fmt.Errorf("x: %w", indexfile.ErrCorrupt)))
			assert.Equal(t, before, fileDigest(t, path), "the file is unchanged")
		})
	}
}

func fileDigest(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	st, err := os.Stat(path)
	require.NoError(t, err)
	return fmt.Sprintf("%x %v %v", sha256.Sum256(b), st.ModTime(), st.Mode())
}
