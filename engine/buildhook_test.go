package engine_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/engine"
)

// TestOptionsWorkersAndBuildCharged: Options.BuildCharged is told every
// change of the builds' memory charge and Options.Workers bounds the
// sessions built at once, so one worker's charges never overlap.
func TestOptionsWorkersAndBuildCharged(t *testing.T) {
	for _, workers := range []int{1, 3} {
		t.Run(fmt.Sprint("workers=", workers), func(t *testing.T) {
			w := newWorld(t)
			for i := range 8 {
				w.write(fmt.Sprintf("s%d", i), msgLine("u1", "", "2026-09-01T10:00:01.000Z", user(strings.Repeat("words to build ", 200))))
			}
			var mu sync.Mutex
			var seen []int64
			e := w.engine(func(o *engine.Options) {
				o.Workers = workers
				o.BuildCharged = func(inUse int64) {
					mu.Lock()
					seen = append(seen, inUse)
					mu.Unlock()
				}
			})
			defer e.Close()
			rep, err := e.Rebuild(context.Background(), engine.RebuildRequest{Scope: engine.ScopeGlobal})
			require.NoError(t, err)
			require.Equal(t, 8, rep.Rebuilt)
			mu.Lock()
			defer mu.Unlock()
			require.GreaterOrEqual(t, len(seen), 16, "a charge and a release per session")
			require.Zero(t, seen[len(seen)-1], "every charge released")
			if workers == 1 {
				// A build charges its bytes, then (read in one pass) its
				// lines: at most two rises before the charge is back to 0.
				rises := 0
				for i := range seen {
					switch {
					case seen[i] == 0:
						rises = 0
					case i == 0 || seen[i] > seen[i-1]:
						rises++
					}
					require.LessOrEqual(t, rises, 2, "two builds at once with one worker: %v", seen)
				}
			}
		})
	}
}
