package engine_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/engine"
)

// The caller's context ending is the context's error from every method,
// whether it ended before the call or during it; it is never a result.
// (memidx's own budgets, such as Options.WalkTimeout, are results: see
// TestWalkEndedEarlyIsNotComplete.)
func TestCallerContextEndIsItsError(t *testing.T) {
	w := newWorld(t)
	path := eightEntries(w)
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	expired, cancel2 := context.WithDeadline(ctx, time.Unix(1, 0))
	defer cancel2()
	for _, c := range engineCalls(path) {
		for _, d := range []struct {
			name string
			ctx  context.Context
			want error
		}{{"cancelled", cancelled, context.Canceled}, {"past its deadline", expired, context.DeadlineExceeded}} {
			t.Run(c.name+" "+d.name, func(t *testing.T) {
				e := w.engine()
				defer e.Close()
				require.ErrorIs(t, c.call(d.ctx, e), d.want)
			})
		}
	}
}

// A context that ends while the call works is its error too, not an
// answer made of what the call had read so far.
func TestCallerContextEndingMidCall(t *testing.T) {
	w := newWorld(t)
	path := eightEntries(w)
	calls := map[string]engineCall{}
	for _, c := range engineCalls(path) {
		calls[c.name] = c
	}
	for _, c := range []struct {
		call string
		hook func(f func()) (restore func())
	}{
		{"Recall", engine.SetBeforeSearch},
		{"Expand", engine.SetAfterSnapshot},
		{"Call", engine.SetAfterSnapshot},
		{"Walk", engine.SetAfterSnapshot},
	} {
		t.Run(c.call, func(t *testing.T) {
			e := w.engine()
			defer e.Close()
			cctx, cancel := context.WithCancel(ctx)
			defer cancel()
			restore := c.hook(cancel)
			defer restore()
			require.ErrorIs(t, calls[c.call].call(cctx, e), context.Canceled)
		})
	}
}
