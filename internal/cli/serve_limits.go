package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"sync"
)

// serveLimits bound what one connection holds for its client, whatever it
// sends: the requests of one batch, the answers of batches kept until their
// batch is complete, and the answers written to a client that has not read
// them yet. Each is a serve flag.
type serveLimits struct {
	// maxBatch is the number of requests a batch may hold: a larger
	// batch is one invalid-request error, and none of it runs.
	maxBatch int
	// maxBatchBytes bounds the answers of batches held until their batch
	// is complete (one batch's whole answer, or several batches' at
	// once): an answer that would pass it is replaced by a limit error.
	maxBatchBytes int64
	// maxQueuedBytes bounds the answers waiting for the client to read
	// them: past it serve stops reading requests and starting calls
	// (back-pressure) until the client has read.
	maxQueuedBytes int64
	// maxPendingBytes bounds the arguments of the calls read and not yet
	// answered (up to serveQueued calls of up to maxMessageBytes each):
	// past it serve stops reading requests until calls end.
	maxPendingBytes int64
}

// Defaults of the serve limits: a thousand requests is more than any host
// sends at once, and 64 MiB holds a thousand walk pages of ordinary size
// while keeping a connection's answers far from the machine's memory.
const (
	defaultMaxBatch        = 1000
	defaultMaxBatchBytes   = 64 << 20
	defaultMaxQueuedBytes  = 64 << 20
	defaultMaxPendingBytes = 64 << 20
)

func defaultServeLimits() serveLimits {
	return serveLimits{maxBatch: defaultMaxBatch, maxBatchBytes: defaultMaxBatchBytes,
		maxQueuedBytes: defaultMaxQueuedBytes, maxPendingBytes: defaultMaxPendingBytes}
}

// addServeLimitFlags declares the limit flags; check validates them after
// parsing.
func addServeLimitFlags(fl *flag.FlagSet) (get func() (serveLimits, error)) {
	maxBatch := fl.Int("max-batch", defaultMaxBatch, "requests a batch may hold; a larger batch is refused with one error")
	maxBatchBytes := fl.Int64("max-batch-bytes", defaultMaxBatchBytes, "bytes of batch answers held until their batch is complete; an answer past it is a limit error")
	maxQueued := fl.Int64("max-queued-bytes", defaultMaxQueuedBytes, "bytes of answers the client has not read yet; past it serve stops reading requests")
	maxPending := fl.Int64("max-pending-bytes", defaultMaxPendingBytes, "bytes of arguments of calls read and not yet answered; past it serve stops reading requests")
	return func() (serveLimits, error) {
		l := serveLimits{maxBatch: *maxBatch, maxBatchBytes: *maxBatchBytes, maxQueuedBytes: *maxQueued, maxPendingBytes: *maxPending}
		if l.maxBatch < 1 || l.maxBatchBytes < 1 || l.maxQueuedBytes < 1 || l.maxPendingBytes < 1 {
			return l, usageError("--max-batch, --max-batch-bytes, --max-queued-bytes and --max-pending-bytes take a positive number")
		}
		return l, nil
	}
}

// rpcLimitExceeded is the error of a request whose answer a serve limit
// refused (a server error in JSON-RPC's implementation-defined range).
const rpcLimitExceeded = -32001

// errBatchTooLong is splitBatch's answer to a batch over the request bound.
var errBatchTooLong = errors.New("batch too long")

// splitBatch returns the elements of a JSON array (msg is valid JSON),
// stopping at the first element past max: a batch of millions of tiny
// requests is refused without a slice of millions.
func splitBatch(msg []byte, max int) ([]json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(msg))
	if _, err := dec.Token(); err != nil { // the opening '['
		return nil, err
	}
	var elems []json.RawMessage
	for dec.More() {
		if len(elems) == max {
			return nil, errBatchTooLong
		}
		var el json.RawMessage
		if err := dec.Decode(&el); err != nil {
			return nil, err
		}
		elems = append(elems, el)
	}
	return elems, nil
}

// byteGate counts bytes held against a limit.
type byteGate struct {
	mu    sync.Mutex
	cond  *sync.Cond
	limit int64
	used  int64
}

func newByteGate(limit int64) *byteGate {
	g := &byteGate{limit: limit}
	g.cond = sync.NewCond(&g.mu)
	return g
}

// tryTake takes n bytes when they fit under the limit.
func (g *byteGate) tryTake(n int64) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.used+n > g.limit {
		return false
	}
	g.used += n
	return true
}

// add takes n bytes whether or not they fit: what is already encoded is
// held anyway; the holders of the gate wait for it to drain.
func (g *byteGate) add(n int64) {
	g.mu.Lock()
	g.used += n
	g.mu.Unlock()
}

func (g *byteGate) release(n int64) {
	g.mu.Lock()
	g.used -= n
	g.cond.Broadcast()
	g.mu.Unlock()
}

// held is the bytes held now.
func (g *byteGate) held() int64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.used
}

// take waits until n more bytes fit under the limit, or nothing is held
// (a single charge larger than the limit still goes, alone), and takes
// them; it takes nothing when ctx ends first.
func (g *byteGate) take(ctx context.Context, n int64) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	fits := func() bool { return g.used == 0 || g.used+n <= g.limit }
	if !fits() {
		stop := context.AfterFunc(ctx, func() {
			g.mu.Lock()
			g.cond.Broadcast()
			g.mu.Unlock()
		})
		defer stop()
		for !fits() {
			if err := ctx.Err(); err != nil {
				return err
			}
			g.cond.Wait()
		}
	}
	g.used += n
	return nil
}

// waitRoom waits until the bytes held are under the limit, or ctx ends.
func (g *byteGate) waitRoom(ctx context.Context) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.used < g.limit {
		return nil
	}
	stop := context.AfterFunc(ctx, func() {
		g.mu.Lock()
		g.cond.Broadcast()
		g.mu.Unlock()
	})
	defer stop()
	for g.used >= g.limit {
		if err := ctx.Err(); err != nil {
			return err
		}
		g.cond.Wait()
	}
	return nil
}

// limitError is the answer of a request whose answer a limit refused.
func limitError(id json.RawMessage, format string, a ...any) []byte {
	r := &rpcResponse{ID: id, Error: &rpcError{Code: rpcLimitExceeded, Message: fmt.Sprintf(format, a...)}}
	return bytes.TrimRight(encodeResponse(r), "\n")
}
