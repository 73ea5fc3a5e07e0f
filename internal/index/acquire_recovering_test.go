package index

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/internal/lineage"
)

// step is what one scripted try returns: whether it found tier data
// damaged, and its error.
type step struct {
	broken bool
	err    error
}

// runScript runs recovering over tries that return script's steps in turn
// (the last one again past its end); a broken try's record is really in
// the index, so that dropping it succeeds.
func runScript(t *testing.T, script []step) (tries int, reasons []string, err error) {
	t.Helper()
	cfg := DefaultConfig()
	cfg.IndexDir = filepath.Join(t.TempDir(), "ix")
	ix := Open(cfg, time.Second)
	t.Cleanup(func() { ix.Close() })
	rec := &Record{Path: "/nowhere/s.jsonl"}
	need := &Need{Refresh: RefreshOptions{Mode: lineage.Active}}
	reasons, err = ix.recovering(context.Background(), need,
		func(int, bool) ([]*Record, error) {
			s := script[min(tries, len(script)-1)]
			tries++
			var broken []*Record
			if s.broken {
				broken = []*Record{rec}
			}
			return broken, s.err
		})
	return tries, reasons, err
}

func TestRecoveringScripts(t *testing.T) {
	damaged := fmt.Errorf("x: %w", ErrDamaged)
	for _, tc := range []struct {
		name    string
		script  []step
		tries   int
		reset   bool
		wantErr bool
	}{
		{"answers at once", []step{{}}, 1, false, false},
		{"rewritten meanwhile: asked again", []step{{err: ErrNoData}, {}}, 2, false, false},
		{"damaged: dropped, asked again", []step{{broken: true, err: damaged}, {}}, 2, true, false},
		// A rewrite after a drop is asked again too, not given up on.
		{"dropped, then rewritten meanwhile", []step{{broken: true, err: damaged}, {err: ErrNoData}, {}}, 3, true, false},
		{"dropped while rewritten: the reset is kept", []step{{broken: true, err: ErrNoData}, {}}, 2, true, false},
		{"never stands: bounded", []step{{err: ErrNoData}}, maxTries, false, true},
		{"an error that no step helps", []step{{err: fmt.Errorf("disk on fire")}}, 1, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tries, reasons, err := runScript(t, tc.script)
			assert.Equal(t, tc.tries, tries)
			if tc.wantErr {
				require.Error(t, err)
			} else {
				require.NoError(t, err)
			}
			if tc.reset {
				assert.Contains(t, reasons, IndexReset)
			} else {
				assert.NotContains(t, reasons, IndexReset)
			}
		})
	}
}
