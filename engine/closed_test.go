package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/engine"
)

// engineCall is one public method of Engine that can fail, called with a
// request that answers on an open engine.
type engineCall struct {
	name string
	call func(ctx context.Context, e *engine.Engine) error
}

// engineCalls are every exported method of Engine that returns an error.
func engineCalls(path string) []engineCall {
	visit := func(engine.ExpandedEntry) (bool, error) { return true, nil }
	follow := engine.FabricCall{Ref: "memory.expand", Args: json.RawMessage(`{"session":` + jsString(path) + `,"indices":[0]}`)}
	return []engineCall{
		{"Recall", func(ctx context.Context, e *engine.Engine) error {
			_, err := e.Recall(ctx, engine.RecallRequest{Query: "entry", Scope: engine.ScopeProject})
			return err
		}},
		{"Expand", func(ctx context.Context, e *engine.Engine) error {
			_, err := e.Expand(ctx, engine.ExpandRequest{Session: path, Indices: []int{1}})
			return err
		}},
		{"Sessions", func(ctx context.Context, e *engine.Engine) error {
			_, err := e.Sessions(ctx, engine.SessionsRequest{Scope: engine.ScopeProject})
			return err
		}},
		{"Walk", func(ctx context.Context, e *engine.Engine) error {
			_, err := e.Walk(ctx, engine.ExpandRequest{Session: path}, visit)
			return err
		}},
		{"Call", func(ctx context.Context, e *engine.Engine) error {
			_, err := e.Call(ctx, follow)
			return err
		}},
		{"Rebuild", func(ctx context.Context, e *engine.Engine) error {
			_, err := e.Rebuild(ctx, engine.RebuildRequest{Scope: engine.ScopeProject})
			return err
		}},
		{"InspectIndex", func(ctx context.Context, e *engine.Engine) error {
			_, err := e.InspectIndex(ctx)
			return err
		}},
		{"InspectSession", func(ctx context.Context, e *engine.Engine) error {
			_, err := e.InspectSession(ctx, path, "active")
			return err
		}},
		{"ToolCatalog", func(ctx context.Context, e *engine.Engine) error {
			_, err := e.ToolCatalog(ctx, engine.ToolCatalogRequest{})
			return err
		}},
		{"SearchTools", func(ctx context.Context, e *engine.Engine) error {
			_, err := e.SearchTools(ctx, engine.ToolSearchRequest{Query: "recall"})
			return err
		}},
		{"DescribeTool", func(ctx context.Context, e *engine.Engine) error {
			_, err := e.DescribeTool(ctx, engine.ToolDescribeRequest{Ref: "memory.recall"})
			return err
		}},
	}
}

// After Close every call answers ErrClosed, as bbolt's DB does, and Close
// may be called again.
func TestClosedEngineAnswersErrClosed(t *testing.T) {
	w := newWorld(t)
	path := eightEntries(w)
	for _, c := range engineCalls(path) {
		t.Run(c.name, func(t *testing.T) {
			e := w.engine()
			require.NoError(t, c.call(ctx, e), "an open engine answers")
			require.NoError(t, e.Close())
			err := c.call(ctx, e)
			require.ErrorIs(t, err, engine.ErrClosed)
			require.NoError(t, e.Close(), "Close is idempotent")
			require.ErrorIs(t, c.call(ctx, e), engine.ErrClosed)
		})
	}
}

// A call racing Close either answers or returns ErrClosed; none panics,
// none begun after Close returned answers, and Close ends a walk in
// flight (go test -race checks the rest). A call that answered just
// before Close returned may be seen by its goroutine only after: the
// check is on when the call began.
func TestCallsRacingClose(t *testing.T) {
	w := newWorld(t)
	path := eightEntries(w)
	calls := engineCalls(path)
	for round := range 4 {
		e := w.engine(func(o *engine.Options) { o.Watch = round%2 == 1 })
		var wg sync.WaitGroup
		closed := make(chan struct{})
		for _, c := range calls {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					after := false
					select {
					case <-closed:
						after = true
					default:
					}
					err := c.call(ctx, e)
					if err != nil {
						assert.ErrorIs(t, err, engine.ErrClosed, c.name)
						return
					}
					if after {
						t.Errorf("%s, begun after Close returned, answered", c.name)
						return
					}
				}
			}()
		}
		time.Sleep(time.Duration(round+1) * 5 * time.Millisecond)
		require.NoError(t, e.Close())
		close(closed)
		wg.Wait()
	}
}

// Close ends a walk in flight: the walk returns ErrClosed with the
// entries it visited and says it is not complete.
func TestCloseEndsAWalkInFlight(t *testing.T) {
	w := newWorld(t)
	path := eightEntries(w)
	e := w.engine()
	second := make(chan struct{})
	type walked struct {
		res *engine.WalkResult
		err error
	}
	done := make(chan walked, 1)
	go func() {
		seen := 0
		res, err := e.Walk(ctx, engine.ExpandRequest{Session: path}, func(engine.ExpandedEntry) (bool, error) {
			seen++
			if seen == 2 {
				close(second)
				// Close has begun once ToolCatalog, which reads
				// nothing Close waits for, answers ErrClosed.
				for wait := time.Now().Add(10 * time.Second); time.Now().Before(wait); time.Sleep(time.Millisecond) {
					if _, err := e.ToolCatalog(ctx, engine.ToolCatalogRequest{}); errors.Is(err, engine.ErrClosed) {
						break
					}
				}
			}
			return true, nil
		})
		done <- walked{res, err}
	}()
	<-second
	require.NoError(t, e.Close())
	got := <-done
	require.True(t, errors.Is(got.err, engine.ErrClosed), "%v", got.err)
	require.NotNil(t, got.res)
	assert.Equal(t, 2, got.res.Visited)
	assert.False(t, got.res.Complete)
	assert.Equal(t, []string{engine.WalkCancelled}, got.res.Reasons)
}
