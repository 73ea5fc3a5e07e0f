package engine_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/engine"
	"github.com/memidx/memidx/internal/coverage"
)

func TestErrorsIs(t *testing.T) {
	eo := &engine.ErrorObject{Code: coverage.StalePointer, Message: "changed"}
	assert.True(t, errors.Is(eo, engine.ErrStalePointer))
	assert.True(t, errors.Is(fmt.Errorf("wrapped: %w", eo), engine.ErrStalePointer))
	assert.False(t, errors.Is(eo, engine.ErrSessionNotFound))
	assert.True(t, errors.Is(eo, &engine.ErrorObject{Code: coverage.StalePointer}))
	ce := &coverage.Error{Code: coverage.InvalidScope, Message: "no"}
	assert.True(t, errors.Is(ce, engine.ErrInvalidScope))
	assert.Equal(t, engine.ErrInvalidScope, engine.CodeOf(fmt.Errorf("x: %w", ce)))
	assert.Equal(t, engine.ErrorCode(""), engine.CodeOf(errors.New("disk on fire")))
}

// Every result's Err is its request error, as a Go error errors.Is
// understands; an invalid regex is one (its message included), and sits in
// the page's error as well as in coverage.error.
func TestResultErr(t *testing.T) {
	w := newWorld(t)
	w.write("s1", msgLine("a", "", "2026-09-01T10:00:01.000Z", user("hello world")))
	e := w.engine()
	p := recall(t, e, engine.RecallRequest{Query: "hello(", QueryMode: engine.ModeRegex, Scope: engine.ScopeProject})
	require.Error(t, p.Err())
	assert.True(t, errors.Is(p.Err(), engine.ErrInvalidRegex))
	assert.Contains(t, p.Err().Error(), "missing closing )")
	require.NotNil(t, p.Error)
	require.NotNil(t, p.Coverage.Error, "the reference's field stays")
	assert.Equal(t, p.Coverage.Error.Message, p.Error.Message)

	p = recall(t, e, engine.RecallRequest{Query: "hello", Scope: engine.ScopeProject})
	assert.NoError(t, p.Err())

	x, err := e.Expand(ctx, engine.ExpandRequest{Session: "nope"})
	require.NoError(t, err)
	assert.True(t, errors.Is(x.Err(), engine.ErrSessionNotFound))

	res, err := e.Call(ctx, engine.FabricCall{Ref: "memory.forget"})
	require.NoError(t, err)
	require.NotNil(t, res.Unknown)
	assert.True(t, errors.Is(res.Err(), engine.ErrUnknownRef))

	s, err := e.Sessions(ctx, engine.SessionsRequest{Scope: "everything"})
	require.NoError(t, err)
	assert.True(t, errors.Is(s.Err(), engine.ErrInvalidScope))
}

// The catalog tools' failures and a bad tools.call ref carry sentinels too,
// and a page's coverage.error is the same error object type as its error.
func TestToolErrorsIs(t *testing.T) {
	w := newWorld(t)
	e := w.engine()
	d, err := e.DescribeTool(ctx, engine.ToolDescribeRequest{Ref: "no.such.action"})
	require.NoError(t, err)
	assert.True(t, errors.Is(d.Err(), engine.ErrActionNotFound), "%v", d.Err())
	c, err := e.Call(ctx, engine.FabricCall{Ref: "memory.nothing", Args: []byte(`{}`)})
	require.NoError(t, err)
	assert.True(t, errors.Is(c.Unknown.Err(), engine.ErrUnknownRef))

	p := recall(t, e, engine.RecallRequest{Query: "(", QueryMode: engine.ModeRegex, Scope: engine.ScopeProject})
	var cov error = p.Coverage.Error // an *engine.ErrorObject, no internal type
	assert.True(t, errors.Is(cov, engine.ErrInvalidRegex))
}
