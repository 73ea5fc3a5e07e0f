package engine

import (
	"context"
	"encoding/json"
)

// Catalog returns the capability catalog in use: Options.Catalog, or the
// built-in one with the memory provider. Its text never enters the memory
// index.
func (e *Engine) Catalog() *Catalog {
	e.catalogOnce.Do(func() {
		if e.catalog == nil {
			e.catalog = DefaultCatalog()
		}
	})
	return e.catalog
}

// ToolCatalogRequest is tools.catalog's argument object.
type ToolCatalogRequest struct {
	// Limit bounds the actions listed; 0 is the catalog's default.
	Limit int
}

// ToolSearchRequest is tools.search's argument object (on the wire also a
// bare query string).
type ToolSearchRequest struct {
	Query string
	// Limit bounds the hits; 0 is the catalog's default.
	Limit int
}

// ToolDescribeRequest is tools.describe's argument object.
type ToolDescribeRequest struct {
	// Ref is a qualified ref ("omp.grep") or a bare action name.
	Ref string
	// DescriptorHash, when set, must be the action's current descriptor
	// hash; a change answers descriptor_changed.
	DescriptorHash string
}

// The wire forms of the tools requests; their tags name the arguments in
// the messages of a refused request.
type (
	catalogArgs struct {
		Limit *int64 `json:"limit,omitempty"`
	}
	searchArgs struct {
		Query string `json:"query"`
		Limit *int64 `json:"limit,omitempty"`
	}
	describeArgs struct {
		Ref            string `json:"ref"`
		DescriptorHash string `json:"descriptorHash,omitempty"`
	}
)

// UnmarshalJSON reads tools.catalog's arguments strictly; its error is an
// *ErrorObject with the code invalid_request.
func (r *ToolCatalogRequest) UnmarshalJSON(b []byte) error {
	var a catalogArgs
	if err := decodeStrict(b, &a, nil); err != nil {
		return DomainError(err)
	}
	*r = ToolCatalogRequest{Limit: limitOf(a.Limit)}
	return nil
}

// UnmarshalJSON reads tools.search's arguments strictly: an object or a
// bare query string.
func (r *ToolSearchRequest) UnmarshalJSON(b []byte) error {
	var bare string
	if json.Unmarshal(b, &bare) == nil {
		*r = ToolSearchRequest{Query: bare}
		return nil
	}
	var a searchArgs
	if err := decodeStrict(b, &a, nil); err != nil {
		return DomainError(err)
	}
	*r = ToolSearchRequest{Query: a.Query, Limit: limitOf(a.Limit)}
	return nil
}

// UnmarshalJSON reads tools.describe's arguments strictly.
func (r *ToolDescribeRequest) UnmarshalJSON(b []byte) error {
	var a describeArgs
	if err := decodeStrict(b, &a, nil); err != nil {
		return DomainError(err)
	}
	*r = ToolDescribeRequest(a)
	return nil
}

func limitOf(p *int64) int {
	if p == nil {
		return 0
	}
	return int(*p)
}

// SearchTools ranks the catalog's actions for a query (tools.search). A
// query the catalog refuses is a result with an error, not a Go error.
func (e *Engine) SearchTools(ctx context.Context, req ToolSearchRequest) (*ToolSearchResult, error) {
	return guard(e, ctx, func(context.Context) (*ToolSearchResult, error) {
		hits, err := e.Catalog().inner().Search(req.Query, req.Limit)
		if err != nil {
			return toolFailure[ToolSearchResult](err, func(r *ToolSearchResult, eo *ErrorObject) { r.Error = eo })
		}
		return &ToolSearchResult{Hits: toolHits(hits)}, nil
	})
}

// DescribeTool answers one action's descriptor with its schemas
// (tools.describe). An unknown, ambiguous or quarantined ref, or a changed
// descriptor hash, is a result with an error.
func (e *Engine) DescribeTool(ctx context.Context, req ToolDescribeRequest) (*ToolDescribeResult, error) {
	return guard(e, ctx, func(context.Context) (*ToolDescribeResult, error) {
		d, err := e.Catalog().inner().Describe(req.Ref, req.DescriptorHash)
		if err != nil {
			return toolFailure[ToolDescribeResult](err, func(r *ToolDescribeResult, eo *ErrorObject) { r.Error = eo })
		}
		return &ToolDescribeResult{Descriptor: toolDescriptor(d)}, nil
	})
}

// ToolCatalog answers the capability tree (tools.catalog).
func (e *Engine) ToolCatalog(ctx context.Context, req ToolCatalogRequest) (*ToolCatalogResult, error) {
	return guard(e, ctx, func(context.Context) (*ToolCatalogResult, error) {
		return &ToolCatalogResult{Catalog: toolTree(e.Catalog().inner().Catalog(req.Limit))}, nil
	})
}

// toolFailure makes a domain failure a result with its error object; any
// other error is the engine's.
func toolFailure[R any](err error, set func(*R, *ErrorObject)) (*R, error) {
	eo := DomainError(err)
	if eo == nil {
		return nil, err
	}
	r := new(R)
	set(r, eo)
	return r, nil
}
