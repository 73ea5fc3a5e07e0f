package engine_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/engine"
)

// A walk that did not visit every selected entry never says complete:
// whoever ended it (the visitor, the caller's context, the walk's own
// time budget), Complete is false and Reasons names why. Only the
// caller's context is a Go error (its own); a stop asked by the visitor
// and the walk budget are results.
func TestWalkEndedEarlyIsNotComplete(t *testing.T) {
	w := newWorld(t)
	path := eightEntries(w)
	errVisit := errors.New("the visitor had enough")
	// budget is the deadlines' length: long enough for the walk to reach
	// its second entry on a loaded machine.
	const budget = 500 * time.Millisecond
	for _, c := range []struct {
		name    string
		timeout time.Duration // Options.WalkTimeout
		// atSecond runs at the second entry, with the walk's cancel; its
		// results are the visitor's.
		atSecond func(ctx context.Context, cancel func()) (bool, error)
		// deadline gives the caller's context a deadline of its own.
		deadline bool
		wantErr  error
		visited  int
		stopped  bool
		reasons  []string
	}{
		{name: "whole walk", visited: 8, reasons: []string{}},
		{name: "visitor returns false", visited: 2, stopped: true, reasons: []string{engine.WalkStopped},
			atSecond: func(context.Context, func()) (bool, error) { return false, nil }},
		{name: "visitor returns an error", visited: 2, stopped: true, reasons: []string{engine.WalkStopped}, wantErr: errVisit,
			atSecond: func(context.Context, func()) (bool, error) { return true, errVisit }},
		{name: "caller cancels", visited: 2, reasons: []string{engine.WalkCancelled}, wantErr: context.Canceled,
			atSecond: func(_ context.Context, cancel func()) (bool, error) { cancel(); return true, nil }},
		{name: "caller's deadline", deadline: true, visited: 2, reasons: []string{engine.WalkCancelled}, wantErr: context.DeadlineExceeded,
			atSecond: func(ctx context.Context, _ func()) (bool, error) { <-ctx.Done(); return true, nil }},
		{name: "walk timeout", timeout: budget, visited: 2, reasons: []string{engine.WalkDeadline},
			atSecond: func(context.Context, func()) (bool, error) {
				time.Sleep(budget + 100*time.Millisecond)
				return true, nil
			}},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := w.engine(func(o *engine.Options) { o.WalkTimeout = c.timeout })
			defer e.Close()
			wctx, cancel := context.WithCancel(ctx)
			if c.deadline {
				wctx, cancel = context.WithTimeout(ctx, budget)
			}
			defer cancel()
			seen := 0
			res, err := e.Walk(wctx, engine.ExpandRequest{Session: path}, func(engine.ExpandedEntry) (bool, error) {
				seen++
				if seen == 2 && c.atSecond != nil {
					return c.atSecond(wctx, cancel)
				}
				return true, nil
			})
			if c.wantErr != nil {
				require.ErrorIs(t, err, c.wantErr)
			} else {
				require.NoError(t, err)
			}
			require.NotNil(t, res)
			assert.Equal(t, c.visited, seen, "entries the visitor saw")
			assert.Equal(t, c.visited, res.Visited)
			assert.Equal(t, c.stopped, res.Stopped)
			assert.Equal(t, c.visited == 8, res.Complete)
			assert.Equal(t, c.reasons, res.Reasons)
			assert.Nil(t, res.Error)
		})
	}
}

// eightEntries writes a session of eight entries and returns its path.
func eightEntries(w *world) string {
	lines := make([]string, 8)
	parent := ""
	for i := range lines {
		id := string(rune('a' + i))
		lines[i] = msgLine(id, parent, ts, user("entry "+id))
		parent = id
	}
	return w.write("s-eight", lines...)
}
