package engine

import (
	"context"
	"errors"
	"sync"
)

// ErrClosed is the error of every call of an Engine made after Close,
// and of a call in flight that Close ended.
var ErrClosed = errors.New("engine: closed")

// lifecycle admits calls until Close, and lets Close end the calls in
// flight and wait for them before it releases what they use.
type lifecycle struct {
	mu     sync.Mutex
	closed bool
	calls  sync.WaitGroup
	once   sync.Once // the release, which a second Close waits for
	// closing ends when Close begins, and with it every call in flight.
	closing context.Context
	close   context.CancelFunc
}

func (l *lifecycle) init() { l.closing, l.close = context.WithCancel(context.Background()) }

// begin admits a call made with ctx: it returns the context the call runs
// under (ctx, also ended by Close) and the func that ends the call. It
// fails with ErrClosed after Close, and with ctx's error when the caller's
// context has ended already.
func (e *Engine) begin(ctx context.Context) (context.Context, func(), error) {
	if e.base != nil {
		return e.beginDerived(ctx)
	}
	return e.beginOwn(ctx)
}

// beginOwn is begin on e's own lifecycle.
func (e *Engine) beginOwn(ctx context.Context) (context.Context, func(), error) {
	l := &e.life
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil, nil, ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	l.calls.Add(1)
	run, cancel := context.WithCancelCause(ctx)
	stop := context.AfterFunc(l.closing, func() { cancel(ErrClosed) })
	return run, func() { stop(); cancel(nil); l.calls.Done() }, nil
}

// ended is the error of a call made with ctx that ran under run when it
// was ended from outside: the caller's context's own error, or ErrClosed
// when Close ended it; nil when neither did.
func ended(ctx, run context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if errors.Is(context.Cause(run), ErrClosed) {
		return ErrClosed
	}
	return nil
}

// guard runs call as a public method of e: admitted by begin, and
// answering ended's error instead of call's outcome when the caller's
// context or Close ended it, so that an answer is never made of what a
// call had read when it was told to stop.
func guard[T any](e *Engine, ctx context.Context, call func(context.Context) (T, error)) (T, error) {
	var zero T
	run, end, err := e.begin(ctx)
	if err != nil {
		return zero, err
	}
	defer end()
	res, err := call(run)
	if eerr := ended(ctx, run); eerr != nil {
		return zero, eerr
	}
	return res, err
}

// isClosed reports whether Close has begun, for the calls that take no
// context and read nothing Close releases.
func (e *Engine) isClosed() bool {
	e.life.mu.Lock()
	defer e.life.mu.Unlock()
	return e.life.closed
}

// Close releases what the Engine holds between calls: the index file's
// read handle, the watches of Options.Watch and the cached session reads.
// Every call after it returns ErrClosed. Calls in flight are ended (their
// context is cancelled; they return ErrClosed) and Close waits for them to
// return before it releases anything, as bbolt's Close waits for its
// transactions; so a Walk's visitor must not call Close. Close may be
// called again: it waits for the first to finish and returns nil. The
// accessors that read nothing (Config, Dirs, Notices, Catalog)
// still answer.
func (e *Engine) Close() error {
	var err error
	e.life.once.Do(func() { err = e.release() })
	return err
}

// release is Close's work, done once.
func (e *Engine) release() error {
	l := &e.life
	l.mu.Lock()
	l.closed = true
	l.mu.Unlock()
	l.close()
	l.calls.Wait()
	if e.base != nil {
		return nil // what it uses is its base's
	}
	e.snaps.close()
	ixErr := e.ix.Close()
	if e.watch == nil {
		return ixErr
	}
	return errors.Join(e.watch.Close(), ixErr)
}
