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
// inspection), recovering as the index allows, in at most maxTries tries:
// tier data that a try found damaged is dropped (the next refresh rebuilds
// it) and the call asked again, as it is when the index file itself turned
// out damaged and was reset (the answer then says index_reset), or when the
// data was rewritten by another process between the refresh and the read;
// when the index cannot be read at all and the call can answer from the
// sources (fallback), it is asked again that way (index_unwritable). once
// returns its answer and the records whose tier data it found damaged;
// reasons are those of the steps taken, for the final answer's coverage.
func recovering[T any](ctx context.Context, e *Engine, mode lineage.Mode, fallback bool,
	once func(how attempt) (T, []*index.Record, error)) (out T, reasons []string, err error) {
	how := fromIndex
	for try := 1; ; try++ {
		var broken []*index.Record
		out, broken, err = once(how)
		dropped := e.ix.Forget(ctx, mode, broken)
		if dropped {
			reasons = append(reasons, index.IndexReset)
		}
		again := false
		switch {
		case try == maxTries:
		case dropped || errors.Is(err, index.ErrNoData):
			again = true
		case err == nil:
		case how == fromIndex && e.ix.ResetIfDamaged(err):
			reasons, again = append(reasons, index.IndexReset), true
		case how == fromIndex && fallback && (errors.Is(err, bucket.ErrCorrupt) || errors.Is(err, bucket.ErrLocked)):
			reasons, again, how = append(reasons, index.IndexUnwritable), true, fromMemory
		}
		if !again {
			return out, reasons, err
		}
	}
}

// maxTries bounds recovering: a drop, a reset and the sources, and one
// more for data another process rewrote meanwhile.
const maxTries = 4

// markIncomplete adds reasons to a coverage's, which is then not
// complete (nothing to do without reasons).
func markIncomplete(reasons *[]string, complete *bool, add ...string) {
	if len(add) > 0 {
		*reasons = mergeReasons(*reasons, add...)
		*complete = false
	}
}
