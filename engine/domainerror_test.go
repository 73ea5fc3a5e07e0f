package engine_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/memidx/memidx/engine"
	"github.com/memidx/memidx/internal/indexfile"
)

// A bug met inside an index transaction answers internal_error, with
// what happened and where; an error of no known kind has no code.
func TestDomainError_InternalError(t *testing.T) {
	err := fmt.Errorf("recall: %w", fmt.Errorf("%w: index out of range (in pkg.F)", indexfile.ErrInternal))
	eo := engine.DomainError(err)
	require.NotNil(t, eo)
	assert.Equal(t, "internal_error", eo.Code)
	assert.Contains(t, eo.Message, "in pkg.F")
	assert.NotEmpty(t, eo.Hint)
	assert.Nil(t, engine.DomainError(errors.New("something else")))
}
