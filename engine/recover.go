package engine

import (
	"context"
	"errors"

	"github.com/memidx/memidx/bucket"
	"github.com/memidx/memidx/index"
	"github.com/memidx/memidx/lineage"
)

// attempt is where one try of a call takes its answer from.
type attempt int

const (
	fromIndex  attempt = iota // the refreshed index
	fromMemory                // the sources read into memory (the index cannot be used)
)

// recovering answers a call that reads tier data (a recall, an
// inspection), recovering as the index allows, each step once: tier data
// that a try found damaged is dropped (the next refresh rebuilds it) and
// the call asked again, as it is when the index file itself turned out
// damaged and was reset (the answer then says index_reset), or when the
// data was rewritten by another process between the refresh and the read;
// when the index cannot be read at all and the call can answer from the
// sources (fallback), it is asked once more that way (index_unwritable).
// once returns its answer and the records whose tier data it found
// damaged; note adds a reason to an answer.
func recovering[T any](ctx context.Context, e *Engine, mode lineage.Mode, fallback bool,
	once func(how attempt) (T, []*index.Record, error), note func(out T, reason string)) (T, error) {
	var reasons []string
	try := func(how attempt) (T, bool, error) {
		out, broken, err := once(how)
		return out, e.ix.Forget(ctx, mode, broken), err
	}
	out, dropped, err := try(fromIndex)
	if errors.Is(err, index.ErrNoData) {
		out, dropped, err = try(fromIndex)
	}
	if dropped {
		reasons = append(reasons, index.IndexReset)
		out, _, err = try(fromIndex)
	}
	if err != nil && e.ix.ResetIfDamaged(err) {
		reasons = append(reasons, index.IndexReset)
		out, _, err = try(fromIndex)
	}
	if err != nil && fallback && (errors.Is(err, bucket.ErrCorrupt) || errors.Is(err, bucket.ErrLocked)) {
		reasons = append(reasons, index.IndexUnwritable)
		out, _, err = try(fromMemory)
	}
	for _, r := range reasons {
		note(out, r)
	}
	return out, err
}
