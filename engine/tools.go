package engine

import (
	"encoding/json"
	"errors"

	"github.com/memidx/memidx/internal/catalog"
	"github.com/memidx/memidx/internal/coverage"
)

// Catalog returns the capability catalog in use: Options.Catalog, or the
// built-in one with the memory provider. Its text never enters the memory
// index.
func (e *Engine) Catalog() *Catalog {
	e.catalogOnce.Do(func() {
		if e.catalog == nil {
			e.catalog = catalog.Default()
		}
	})
	return e.catalog
}

type catalogArgs struct {
	Limit *int64 `json:"limit,omitempty"`
}

type searchArgs struct {
	Query string `json:"query"`
	Limit *int64 `json:"limit,omitempty"`
}

type describeArgs struct {
	Ref            string `json:"ref"`
	DescriptorHash string `json:"descriptorHash,omitempty"`
}

// ToolsError is the result of a tools.* call that failed for a domain
// reason.
type ToolsError struct {
	Error *ErrorObject `json:"error"`
}

// Tools answers tools.catalog ({limit?}), tools.search ({query, limit?} or
// a bare string) and tools.describe ({ref, descriptorHash?}). A bad
// argument or an unknown ref is a result with an error, not a Go error.
func (e *Engine) Tools(method string, params json.RawMessage) (any, error) {
	if e.isClosed() {
		return nil, ErrClosed
	}
	fail := func(err error) (any, error) {
		var ce *coverage.Error
		if errors.As(err, &ce) {
			return &ToolsError{Error: &ErrorObject{Code: ce.Code, Message: ce.Message}}, nil
		}
		return nil, err
	}
	limit := func(p *int64) int {
		if p == nil {
			return 0
		}
		return int(*p)
	}
	switch method {
	case "tools.catalog":
		var a catalogArgs
		if err := decodeStrict(params, &a, nil); err != nil {
			return fail(err)
		}
		return e.Catalog().Catalog(limit(a.Limit)), nil
	case "tools.search":
		var a searchArgs
		var bare string
		if json.Unmarshal(params, &bare) == nil {
			a.Query = bare
		} else if err := decodeStrict(params, &a, nil); err != nil {
			return fail(err)
		}
		hits, err := e.Catalog().Search(a.Query, limit(a.Limit))
		if err != nil {
			return fail(err)
		}
		return hits, nil
	case "tools.describe":
		var a describeArgs
		if err := decodeStrict(params, &a, nil); err != nil {
			return fail(err)
		}
		d, err := e.Catalog().Describe(a.Ref, a.DescriptorHash)
		if err != nil {
			return fail(err)
		}
		return d, nil
	}
	return &ToolsError{Error: &ErrorObject{Code: "unknown_ref", Message: "unknown tools method " + method}}, nil
}
